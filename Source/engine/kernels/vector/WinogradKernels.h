// The transforms of a Winograd F(2x2, 3x3) convolution (engine/kernels/Convolution.cpp has the
// whole algorithm), vectorised over consecutive tiles (see VectorRegister.h for
// why an anonymous namespace).
//
// With B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1] and A^T = [1 1 1 0; 0 1 -1 -1], a tile's 4x4
// input d becomes V = B^T d B and its 4x4 products m become the 2x2 outputs A^T m A. Every
// coefficient is 0 or +-1: the transforms are adds and subtracts, exact up to their own rounding.
#pragma once

#include "engine/kernels/vector/VectorMath.h"

#include <cstdint>

namespace sonotype::engine::kernels
{
namespace
{
    /** from[2i] -> even[i], from[2i + 1] -> odd[i] for i < pairs. */
    inline void deinterleaveImpl (const float* from, int64_t pairs, float* even, float* odd) noexcept
    {
        constexpr int W = Vec::width;
        int64_t i = 0;
        for (; i + W <= pairs; i += W)
        {
            const Reg low = Vec::load (from + 2 * i), high = Vec::load (from + 2 * i + W);
            Vec::store (even + i, Vec::evenLanes (low, high));
            Vec::store (odd + i, Vec::oddLanes (low, high));
        }
        for (; i < pairs; ++i)
        {
            even[i] = from[2 * i];
            odd[i] = from[2 * i + 1];
        }
    }

    /** B^T d B of `lanes` tiles (lanes < width: the tail of a run; reads nothing beyond even[lanes]
        and odd[lanes] of each row), element 4 i + k to out + (4 i + k) * xiStride. The tiles' row
        r has its even columns at rows + (r & 1) * 2 * rowLength + (r >> 1) * tileRowStride and
        its odd ones rowLength further. */
    template <bool Full>
    inline void winogradInputTiles (const float* rows, int64_t rowLength, int64_t tileRowStride, int lanes, float* out, int64_t xiStride) noexcept
    {
        Reg s[4][4];
#pragma GCC unroll 4
        for (int r = 0; r < 4; ++r)
        {
            const float* even = rows + (r & 1) * 2 * rowLength + (r >> 1) * tileRowStride;
            const float* odd = even + rowLength;
            // The tile's row r is even[t], odd[t], even[t + 1], odd[t + 1]: d B along it.
            const Reg e0 = Full ? Vec::load (even) : Vec::loadFirst (even, lanes);
            const Reg o0 = Full ? Vec::load (odd) : Vec::loadFirst (odd, lanes);
            const Reg e1 = Full ? Vec::load (even + 1) : Vec::loadFirst (even + 1, lanes);
            const Reg o1 = Full ? Vec::load (odd + 1) : Vec::loadFirst (odd + 1, lanes);
            s[r][0] = Vec::sub (e0, e1);
            s[r][1] = Vec::add (o0, e1);
            s[r][2] = Vec::sub (e1, o0);
            s[r][3] = Vec::sub (o0, o1);
        }
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k)
        {
            // B^T along the rows.
            const Reg v[4] = { Vec::sub (s[0][k], s[2][k]), Vec::add (s[1][k], s[2][k]), Vec::sub (s[2][k], s[1][k]), Vec::sub (s[1][k], s[3][k]) };
#pragma GCC unroll 4
            for (int i = 0; i < 4; ++i)
            {
                float* to = out + (4 * i + k) * xiStride;
                if (Full)
                    Vec::store (to, v[i]);
                else
                    Vec::storeFirst (to, v[i], lanes);
            }
        }
    }

    /** The input transform of `count` consecutive tiles, for each of `channels` channels: the
        channel's padded input is split into rows of its even columns then (at + rowLength) its
        odd columns; the tiles' row r (0-3) at split + (r & 1) * 2 * rowLength + (r >> 1) *
        tileRowStride, element t for tile t. Tile t's element xi goes to
        out[xi * xiStride + c * channelOut + t]. */
    inline void winogradInputImpl (const float* split, int64_t channels, int64_t channelStride, int64_t rowLength, int64_t tileRowStride,
                                   int64_t count, float* out, int64_t xiStride, int64_t channelOut) noexcept
    {
        constexpr int W = Vec::width;
        for (int64_t c = 0; c < channels; ++c)
        {
            const float* rows = split + c * channelStride;
            float* to = out + c * channelOut;
            int64_t t = 0;
            for (; t + W <= count; t += W)
                winogradInputTiles<true> (rows + t, rowLength, tileRowStride, W, to + t, xiStride);
            if (t < count)
                winogradInputTiles<false> (rows + t, rowLength, tileRowStride, static_cast<int> (count - t), to + t, xiStride);
        }
    }

    /** Writes one output row of W tiles: `left` and `right` are the tiles' two columns, before
        the bias and the relu, which are applied after the pooling (the same numbers: both are
        monotonic, and NaN passes both). Without pooling (poolW 1) they go side by side into the
        first `width` columns of y; with it, each tile's max (NaN winning, as torch's max pooling)
        goes to y[t] for the first ceil(width / 2) tiles (a tile whose right column is beyond
        `width` gives its left one). */
    inline void winogradStoreRow (Reg left, Reg right, Reg bias, bool relu, float* y, int64_t width, int poolW) noexcept
    {
        constexpr int W = Vec::width;
        if (width <= 0)
            return;
        const auto finish = [bias, relu] (Reg v) {
            v = Vec::add (v, bias);
            return relu ? Vec::relu (v) : v;
        };
        if (poolW == 2)
        {
            const int64_t tiles = (width + 1) / 2;
            Reg pooled = Vec::maxNaN (left, right);
            if ((width & 1) != 0 && tiles <= W)
            {
                // The last tile has its left column only: lanes from tiles - 1 on take it.
                pooled = Vec::selectLess (laneIndices(), Vec::set1 (static_cast<float> (tiles - 1)), pooled, left);
            }
            pooled = finish (pooled);
            if (tiles >= W)
                Vec::store (y, pooled);
            else
                Vec::storeFirst (y, pooled, static_cast<int> (tiles));
            return;
        }
        left = finish (left);
        right = finish (right);
        const Reg low = Vec::interleaveLow (left, right), high = Vec::interleaveHigh (left, right);
        if (width >= 2 * W)
        {
            Vec::store (y, low);
            Vec::store (y + W, high);
        }
        else if (width >= W)
        {
            Vec::store (y, low);
            if (width > W)
                Vec::storeFirst (y + W, high, static_cast<int> (width - W));
        }
        else
            Vec::storeFirst (y, low, static_cast<int> (width));
    }

    /** A^T m A + bias (relu'd if asked; NaN passes, as the relu op) of `lanes` tiles (all W when
        Full; reads nothing beyond them): the 2x2 outputs of tile t are row 0 and (with `rows` 2)
        row 1, columns 2t and 2t + 1, of which the first `width` columns count. Without pooling
        (poolH 1) rows 0 and 1 go to y0 and y1; with it, their max goes to y0. */
    template <bool Full>
    __attribute__ ((always_inline)) inline void winogradOutputTiles (const float* m, int64_t xiStride, int lanes, Reg bias, bool relu, float* y0,
                                                                     float* y1, int64_t rows, int64_t width, int poolH, int poolW) noexcept
    {
        const auto load = [&] (int xi) { return Full ? Vec::load (m + xi * xiStride) : Vec::loadFirst (m + xi * xiStride, lanes); };
        Reg a[4], b[4];
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k)
        {
            // A^T down the columns.
            const Reg m0 = load (k), m1 = load (4 + k), m2 = load (8 + k), m3 = load (12 + k);
            a[k] = Vec::add (Vec::add (m0, m1), m2);
            b[k] = Vec::sub (Vec::sub (m1, m2), m3);
        }
        // A along each row: its two columns.
        const Reg left0 = Vec::add (Vec::add (a[0], a[1]), a[2]);
        const Reg right0 = Vec::sub (Vec::sub (a[1], a[2]), a[3]);
        if (rows < 2)
        {
            winogradStoreRow (left0, right0, bias, relu, y0, width, poolW);
            return;
        }
        const Reg left1 = Vec::add (Vec::add (b[0], b[1]), b[2]);
        const Reg right1 = Vec::sub (Vec::sub (b[1], b[2]), b[3]);
        if (poolH == 2)
        {
            winogradStoreRow (Vec::maxNaN (left0, left1), Vec::maxNaN (right0, right1), bias, relu, y0, width, poolW);
            return;
        }
        winogradStoreRow (left0, right0, bias, relu, y0, width, poolW);
        winogradStoreRow (left1, right1, bias, relu, y1, width, poolW);
    }

    /** The output transform of `count` consecutive tiles of one tile row, for each of `channels`
        channels: m[xi * xiStride + c * channelIn + t] -> A^T m A + bias[c] (none if null), relu'd
        if asked, into y + c * channelOut: `rows` (1 or 2) rows of the tiles' outputs, columns
        [0, width) (tile t covers 2t and 2t + 1; width <= 2 * count). Unpooled (poolH and poolW
        1), the rows lie rowStride apart; a max pooling of 2 over the rows (poolH) writes their
        max as one row, one of 2 over the columns (poolW) each tile's max as one column. */
    inline void winogradOutputImpl (const float* m, int64_t xiStride, int64_t channels, int64_t channelIn, int64_t count, const float* bias, bool relu,
                                    float* y, int64_t channelOut, int64_t rowStride, int64_t rows, int64_t width, int poolH, int poolW) noexcept
    {
        constexpr int W = Vec::width;
        const int64_t step = poolW == 2 ? 1 : 2; // output columns per tile
        for (int64_t c = 0; c < channels; ++c)
        {
            const float* from = m + c * channelIn;
            float* y0 = y + c * channelOut;
            float* y1 = y0 + rowStride;
            const Reg b = Vec::set1 (bias != nullptr ? bias[c] : 0.0f);
            int64_t t = 0;
            for (; t + W <= count; t += W)
                winogradOutputTiles<true> (from + t, xiStride, W, b, relu, y0 + step * t, y1 + step * t, rows, width - 2 * t, poolH, poolW);
            if (t < count)
                winogradOutputTiles<false> (from + t, xiStride, static_cast<int> (count - t), b, relu, y0 + step * t, y1 + step * t, rows,
                                            width - 2 * t, poolH, poolW);
        }
    }
} // namespace
} // namespace sonotype::engine::kernels
