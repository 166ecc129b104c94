// Walking N-d tensors row by row with per-operand strides (0 on broadcast axes).
#pragma once

#include "engine/file/Shape.h"

#include <array>
#include <cstdint>

namespace sonotype::engine
{

using Strides = std::array<int64_t, kMaxRank>;

/** Calls fn(outOffset, operandOffsets, innerCount) for each row along the last axis of `shape`;
    operand i's element j of the row is at operandOffsets[i] + j * strides[i][rank - 1]. */
template <std::size_t N, typename RowFn>
void forEachRow (const Shape& shape, const std::array<Strides, N>& strides, RowFn&& fn) noexcept
{
    const int rank = shape.rank();
    std::array<int64_t, N> offsets {};
    if (rank == 0)
    {
        fn (int64_t { 0 }, offsets, int64_t { 1 });
        return;
    }
    const int64_t inner = shape[rank - 1];
    const int64_t total = shape.numElements();
    if (total == 0)
        return;
    const int64_t rows = total / inner;
    std::array<int64_t, kMaxRank> counter {};
    for (int64_t row = 0; row < rows; ++row)
    {
        fn (row * inner, offsets, inner);
        for (int axis = rank - 2; axis >= 0; --axis)
        {
            const auto a = static_cast<std::size_t> (axis);
            ++counter[a];
            for (std::size_t i = 0; i < N; ++i)
                offsets[i] += strides[i][a];
            if (counter[a] < shape[axis])
                break;
            for (std::size_t i = 0; i < N; ++i)
                offsets[i] -= strides[i][a] * shape[axis];
            counter[a] = 0;
        }
    }
}

/** Rows forEachRow() walks for `shape` (each a call of its row function). */
inline double rowsOf (const Shape& shape) noexcept
{
    if (shape.rank() == 0)
        return 1.0;
    const int64_t inner = shape[shape.rank() - 1];
    return inner == 0 ? 0.0 : static_cast<double> (shape.numElements() / inner);
}

/** Copies `in` (shape `from`) broadcast to shape `to` into `out`. */
inline void broadcastCopy (const float* in, const Shape& from, float* out, const Shape& to) noexcept
{
    const std::array<Strides, 1> strides { broadcastStrides (from, to) };
    const int64_t innerStride = to.rank() > 0 ? strides[0][static_cast<std::size_t> (to.rank() - 1)] : 0;
    forEachRow (to, strides, [&] (int64_t outOffset, const std::array<int64_t, 1>& offsets, int64_t count) {
        const float* source = in + offsets[0];
        float* target = out + outOffset;
        for (int64_t j = 0; j < count; ++j)
            target[j] = source[j * innerStride];
    });
}

} // namespace sonotype::engine
