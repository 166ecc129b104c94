// Tensor shapes: up to kMaxRank dimensions, row-major (C-contiguous) layout everywhere in the engine.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

// Shape's indexing contract (an axis within the rank) is checked in debug builds and in the
// hardened builds (the sanitizer and fuzzer builds define SONOTYPE_HARDENED), where a violation
// traps so that a fuzzer reports it as a crash. Release builds rely on the loader's checks: every
// axis an op uses is validated at load (OpArgs::axis) before it indexes a Shape.
#if ! defined(NDEBUG) || defined(SONOTYPE_HARDENED)
#define SONOTYPE_SHAPE_EXPECT(condition) \
    do                                   \
    {                                    \
        if (! (condition))               \
            __builtin_trap();            \
    } while (false)
#else
#define SONOTYPE_SHAPE_EXPECT(condition) ((void) 0)
#endif

namespace sonotype::engine
{

constexpr int kMaxRank = 8;

/** The most elements a tensor may have (4 TiB of floats). Shape::push() refuses more, so products
    of a shape's dimensions, and of any subset of them, never overflow int64. */
constexpr int64_t kMaxElements = int64_t { 1 } << 40;

class Shape
{
public:
    Shape() = default;
    Shape (std::initializer_list<int64_t> dims);

    int rank() const noexcept { return rank_; }
    /** Dimension `axis`, 0 <= axis < rank() (see SONOTYPE_SHAPE_EXPECT). */
    int64_t operator[] (int axis) const noexcept
    {
        SONOTYPE_SHAPE_EXPECT (axis >= 0 && axis < rank_);
        return dims_[static_cast<size_t> (axis)];
    }
    int64_t numElements() const noexcept;

    /** Appends a dimension; throws ModelError past kMaxRank, for a negative size, or when the
        non-zero dimensions would multiply to more than kMaxElements. */
    void push (int64_t dim);

    /** This shape with dimension `axis` replaced (checked as push() checks); throws ModelError
        unless 0 <= axis < rank(). */
    Shape with (int axis, int64_t dim) const;

    /** Element stride of each axis for a contiguous tensor of this shape. */
    std::array<int64_t, kMaxRank> strides() const noexcept;

    /** Product of the dimensions in [begin, end), 0 <= begin <= end <= rank(). */
    int64_t product (int begin, int end) const noexcept;

    /** Iterations of a loop nest over all axes that still visits each axis once when another is
        empty: the product of max(dim, 1). At most kMaxElements. */
    int64_t loopCount() const noexcept;

    bool operator== (const Shape& other) const noexcept;
    bool operator!= (const Shape& other) const noexcept { return ! (*this == other); }

    std::string toString() const;

private:
    std::array<int64_t, kMaxRank> dims_ {};
    int rank_ = 0;
};

/** The NumPy-broadcast shape of a and b, or throws ModelError naming both. */
Shape broadcastShapes (const Shape& a, const Shape& b);

/** Whether `from` broadcasts to `to` under NumPy rules. */
bool broadcastsTo (const Shape& from, const Shape& to) noexcept;

/** Strides to read `from` as if it had shape `to` (0 on broadcast axes), aligned to `to`'s rank;
    all zero if `from` does not broadcast to `to` (check with broadcastsTo first). */
std::array<int64_t, kMaxRank> broadcastStrides (const Shape& from, const Shape& to) noexcept;

} // namespace sonotype::engine
