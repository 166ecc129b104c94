// A lock-free single-producer / single-consumer ring: audio samples from the audio thread to the
// worker (SpscFifo), MIDI events from the worker to the audio thread. Neither side ever waits,
// allocates or makes a system call: what does not fit is dropped (and the producer is told).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sonotype::runtime
{

template <typename T>
class SpscRing
{
public:
    /** Capacity is rounded up to a power of two. Allocates: call off the audio thread. */
    explicit SpscRing (std::size_t capacity = 1 << 16)
    {
        std::size_t size = 1;
        while (size < capacity)
            size <<= 1;
        buffer_.assign (size, T {});
        mask_ = size - 1;
    }

    std::size_t capacity() const noexcept { return buffer_.size(); }

    /** Producer: copies up to n items; returns how many fit (the rest are dropped). */
    std::size_t write (const T* samples, std::size_t n) noexcept
    {
        const auto write = writeIndex_.load (std::memory_order_relaxed);
        const auto read = readIndex_.load (std::memory_order_acquire);
        const std::size_t space = buffer_.size() - static_cast<std::size_t> (write - read);
        const std::size_t count = std::min (n, space);
        for (std::size_t i = 0; i < count; ++i)
            buffer_[static_cast<std::size_t> (write + i) & mask_] = samples[i];
        writeIndex_.store (write + count, std::memory_order_release);
        return count;
    }

    /** Consumer: items ready to read. */
    std::size_t available() const noexcept
    {
        return static_cast<std::size_t> (writeIndex_.load (std::memory_order_acquire) - readIndex_.load (std::memory_order_relaxed));
    }

    /** Consumer: copies the oldest item out without taking it; false when empty. */
    bool peek (T& item) const noexcept
    {
        const auto read = readIndex_.load (std::memory_order_relaxed);
        if (writeIndex_.load (std::memory_order_acquire) == read)
            return false;
        item = buffer_[static_cast<std::size_t> (read) & mask_];
        return true;
    }

    /** Consumer: copies up to n items out; returns how many. */
    std::size_t read (T* samples, std::size_t n) noexcept
    {
        const auto read = readIndex_.load (std::memory_order_relaxed);
        const auto write = writeIndex_.load (std::memory_order_acquire);
        const std::size_t count = std::min (n, static_cast<std::size_t> (write - read));
        for (std::size_t i = 0; i < count; ++i)
            samples[i] = buffer_[static_cast<std::size_t> (read + i) & mask_];
        readIndex_.store (read + count, std::memory_order_release);
        return count;
    }

private:
    std::vector<T> buffer_;
    std::size_t mask_ = 0;
    alignas (64) std::atomic<std::uint64_t> writeIndex_ { 0 };
    alignas (64) std::atomic<std::uint64_t> readIndex_ { 0 };
};

using SpscFifo = SpscRing<float>;

} // namespace sonotype::runtime
