// A fixed-size, 64-byte-aligned, zero-initialised float buffer (weights, activation arenas).
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace sonotype::engine
{

class AlignedBuffer
{
public:
    static constexpr std::size_t kAlignment = 64;
    static constexpr std::size_t kAlignmentFloats = kAlignment / sizeof (float);

    AlignedBuffer() = default;
    explicit AlignedBuffer (std::size_t numFloats)
        : data_ (numFloats == 0 ? nullptr
                                : static_cast<float*> (::operator new[](numFloats * sizeof (float), std::align_val_t { kAlignment }))),
          size_ (numFloats)
    {
        for (std::size_t i = 0; i < numFloats; ++i)
            data_.get()[i] = 0.0f;
    }

    float* data() noexcept { return data_.get(); }
    const float* data() const noexcept { return data_.get(); }
    std::size_t size() const noexcept { return size_; }

    /** numFloats rounded up so that consecutive blocks stay aligned. */
    static constexpr std::size_t roundUp (std::size_t numFloats) noexcept
    {
        return (numFloats + kAlignmentFloats - 1) / kAlignmentFloats * kAlignmentFloats;
    }

private:
    struct Deleter
    {
        void operator() (float* p) const noexcept { ::operator delete[](p, std::align_val_t { kAlignment }); }
    };
    std::unique_ptr<float, Deleter> data_;
    std::size_t size_ = 0;
};

} // namespace sonotype::engine
