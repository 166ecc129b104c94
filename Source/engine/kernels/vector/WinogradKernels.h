// The transforms of a Winograd convolution, F(2x2, 3x3) or F(4x2, 3x3)
// (engine/kernels/ConvolutionWinograd.cpp has the whole algorithm), vectorised over consecutive
// tiles (see VectorRegister.h for why an anonymous namespace).
//
// A tile is TileRows (2 or 4) output rows by 2 output columns. Along the rows it is F(2, 3): with
// B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1] and A^T = [1 1 1 0; 0 1 -1 -1] (coefficients 0 or
// +-1: adds and subtracts, exact up to their own rounding), 4 input columns give 2 outputs. Down the
// columns it is F(TileRows, 3) (WinogradColumns): TileRows + 2 input rows give TileRows outputs.
// A tile's input d [TileRows + 2, 4] becomes V = B^T d B, and its products m (same shape) the
// outputs A^T m A; element (i, k) of V and m is xi = 4 i + k.
#pragma once

#include "engine/kernels/vector/VectorMath.h"

#include <cstdint>
#include <type_traits>

namespace sonotype::engine::kernels
{
namespace
{
    /** from[2i] -> even[i], from[2i + 1] -> odd[i] for i < pairs. */
    inline void deinterleave (const float* from, int64_t pairs, float* even, float* odd) noexcept
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

    /** The padded input of a Winograd convolution, split into even and odd columns, for every
        channel in one call: padded row py (0 to rows - 1) of channel c is row py - padH of x's
        channel c (x [channels, inH, inW]; zeros outside [0, inH)) with padW zeros before it and
        zeros after; its even columns, even[i] = column 2i - padW for i < pairs, go to split + c *
        channelStride + (py % tileRows) * 2 * length + (py / tileRows) * pairs, its odd ones
        (column 2i + 1 - padW) a length further. */
    inline void winogradSplitImpl (const float* x, int64_t channels, int64_t inH, int64_t inW, int64_t padH, int64_t padW, int tileRows,
                                   int64_t rows, int64_t pairs, float* split, int64_t length, int64_t channelStride) noexcept
    {
        // Pairs whose two columns are both inside the row go through the vector loop: [first, last).
        const int64_t first = (padW + 1) / 2 < pairs ? (padW + 1) / 2 : pairs;
        const int64_t inside = (inW + padW) / 2 < pairs ? (inW + padW) / 2 : pairs;
        const int64_t last = inside > first ? inside : first;
        for (int64_t c = 0; c < channels; ++c)
        {
            const float* channel = x + c * inH * inW;
            float* to = split + c * channelStride;
            int64_t plane = 0, slot = 0; // py % tileRows, py / tileRows
            for (int64_t py = 0; py < rows; ++py)
            {
                float* even = to + plane * 2 * length + slot * pairs;
                float* odd = even + length;
                const int64_t iy = py - padH;
                if (iy < 0 || iy >= inH)
                {
                    for (int64_t i = 0; i < pairs; ++i)
                        even[i] = odd[i] = 0.0f;
                }
                else
                {
                    const float* row = channel + iy * inW;
                    const auto edge = [&] (int64_t i) {
                        const int64_t column = 2 * i - padW;
                        even[i] = column >= 0 && column < inW ? row[column] : 0.0f;
                        odd[i] = column + 1 >= 0 && column + 1 < inW ? row[column + 1] : 0.0f;
                    };
                    for (int64_t i = 0; i < first; ++i)
                        edge (i);
                    if (last > first)
                        deinterleave (row + 2 * first - padW, last - first, even + first, odd + first);
                    for (int64_t i = last; i < pairs; ++i)
                        edge (i);
                }
                if (++plane == tileRows)
                {
                    plane = 0;
                    ++slot;
                }
            }
        }
    }

    /** The transforms down a tile's columns: F(TileRows, 3) over TileRows + 2 input rows, B^T d
        (input) and A^T m (output). Along the rows every tile is F(2, 3). */
    template <int TileRows>
    struct WinogradColumns;

    template <>
    struct WinogradColumns<2>
    {
        static void input (const Reg* d, Reg* v) noexcept
        {
            v[0] = Vec::sub (d[0], d[2]);
            v[1] = Vec::add (d[1], d[2]);
            v[2] = Vec::sub (d[2], d[1]);
            v[3] = Vec::sub (d[1], d[3]);
        }
        static void output (const Reg* m, Reg* y) noexcept
        {
            y[0] = Vec::add (Vec::add (m[0], m[1]), m[2]);
            y[1] = Vec::sub (Vec::sub (m[1], m[2]), m[3]);
        }
    };

    /** F(4, 3) at the points 0, 1, -1, 2, -2 and infinity (Lavin and Gray's): B^T = [4 0 -5 0 1 0;
        0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1], A^T = [1 1 1 1 1 0;
        0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]: coefficients up to 8, so its rounding is a few
        times F(2, 3)'s (engine/kernels/ConvolutionWinograd.cpp says when it is used). */
    template <>
    struct WinogradColumns<4>
    {
        static void input (const Reg* d, Reg* v) noexcept
        {
            const Reg four = Vec::set1 (4.0f), minusFour = Vec::set1 (-4.0f), minusFive = Vec::set1 (-5.0f);
            const Reg evens = Vec::fma (minusFour, d[2], d[4]), odds = Vec::fma (minusFour, d[1], d[3]);             // d4 - 4 d2, d3 - 4 d1
            const Reg half = Vec::sub (d[4], d[2]), twice = Vec::add (Vec::sub (d[3], d[1]), Vec::sub (d[3], d[1])); // d4 - d2, 2 (d3 - d1)
            v[0] = Vec::fma (four, d[0], Vec::fma (minusFive, d[2], d[4]));
            v[1] = Vec::add (evens, odds);
            v[2] = Vec::sub (evens, odds);
            v[3] = Vec::add (half, twice);
            v[4] = Vec::sub (half, twice);
            v[5] = Vec::fma (four, d[1], Vec::fma (minusFive, d[3], d[5]));
        }
        static void output (const Reg* m, Reg* y) noexcept
        {
            const Reg sum12 = Vec::add (m[1], m[2]), difference12 = Vec::sub (m[1], m[2]);
            const Reg sum34 = Vec::add (m[3], m[4]), difference34 = Vec::sub (m[3], m[4]);
            y[0] = Vec::add (Vec::add (m[0], sum12), sum34);
            y[1] = Vec::fma (Vec::set1 (2.0f), difference34, difference12);
            y[2] = Vec::fma (Vec::set1 (4.0f), sum34, sum12);
            y[3] = Vec::add (Vec::fma (Vec::set1 (8.0f), difference34, difference12), m[5]);
        }
    };

    /** The input transform of `lanes` tiles (lanes < width: the tail of a run; reads nothing beyond
        even[lanes] and odd[lanes] of each row): d B along each of the tile's TileRows + 2 rows
        (F(2, 3)), then B^T down its columns (F(TileRows, 3)); element 4 i + k to out + (4 i + k) *
        xiStride. The tiles' row r has its even columns at rows + (r % TileRows) * 2 * rowLength +
        (r / TileRows) * tileRowStride and its odd ones rowLength further. */
    template <bool Full, int TileRows>
    inline void winogradInputTiles (const float* rows, int64_t rowLength, int64_t tileRowStride, int lanes, float* out, int64_t xiStride) noexcept
    {
        constexpr int kInputRows = TileRows + 2;
        const auto load = [lanes] (const float* p) { return Full ? Vec::load (p) : Vec::loadFirst (p, lanes); };
        Reg s[4][kInputRows]; // d B: column k of the tile's row r
#pragma GCC unroll 6
        for (int r = 0; r < kInputRows; ++r)
        {
            // The tile's row r is even[t], odd[t], even[t + 1], odd[t + 1].
            const float* even = rows + (r % TileRows) * 2 * rowLength + (r / TileRows) * tileRowStride;
            const float* odd = even + rowLength;
            const Reg e0 = load (even), o0 = load (odd), e1 = load (even + 1), o1 = load (odd + 1);
            s[0][r] = Vec::sub (e0, e1);
            s[1][r] = Vec::add (o0, e1);
            s[2][r] = Vec::sub (e1, o0);
            s[3][r] = Vec::sub (o0, o1);
        }
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k)
        {
            Reg v[kInputRows];
            WinogradColumns<TileRows>::input (s[k], v);
#pragma GCC unroll 6
            for (int i = 0; i < kInputRows; ++i)
            {
                float* to = out + (4 * i + k) * xiStride;
                if (Full)
                    Vec::store (to, v[i]);
                else
                    Vec::storeFirst (to, v[i], lanes);
            }
        }
    }

    /** The input transform of `count` consecutive tiles of TileRows (2 or 4) output rows, for
        each of `channels` channels: the channel's padded input rows are split into TileRows
        planes (row py in plane py % TileRows, row py / TileRows of it), each a run of rows of
        their even columns then (at + rowLength) one of their odd columns; the tiles' row r (0 to
        TileRows + 1) at split + (r % TileRows) * 2 * rowLength + (r / TileRows) * tileRowStride,
        element t for tile t. Tile t's element xi goes to out[xi * xiStride + c * channelOut + t]. */
    template <int TileRows>
    inline void winogradInputChannels (const float* split, int64_t channels, int64_t channelStride, int64_t rowLength, int64_t tileRowStride,
                                       int64_t count, float* out, int64_t xiStride, int64_t channelOut) noexcept
    {
        constexpr int W = Vec::width;
        for (int64_t c = 0; c < channels; ++c)
        {
            const float* rows = split + c * channelStride;
            float* to = out + c * channelOut;
            int64_t t = 0;
            for (; t + W <= count; t += W)
                winogradInputTiles<true, TileRows> (rows + t, rowLength, tileRowStride, W, to + t, xiStride);
            if (t < count)
                winogradInputTiles<false, TileRows> (rows + t, rowLength, tileRowStride, static_cast<int> (count - t), to + t, xiStride);
        }
    }

    inline void winogradInputImpl (int tileRows, const float* split, int64_t channels, int64_t channelStride, int64_t rowLength,
                                   int64_t tileRowStride, int64_t count, float* out, int64_t xiStride, int64_t channelOut) noexcept
    {
        if (tileRows == 4)
            winogradInputChannels<4> (split, channels, channelStride, rowLength, tileRowStride, count, out, xiStride, channelOut);
        else
            winogradInputChannels<2> (split, channels, channelStride, rowLength, tileRowStride, count, out, xiStride, channelOut);
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

    /** A^T m A + bias (relu'd if asked; NaN passes, as the relu op) of `lanes` tiles of TileRows
        output rows (all W tiles when Full; reads nothing beyond them): A along each of the tile's
        TileRows + 2 rows of products (F(2, 3): two columns), then A^T down the columns. Tile t's
        outputs are rows 0 to TileRows - 1, columns 2t and 2t + 1, of which the first `rows` rows
        and the first `width` columns count. Without pooling (poolH 1) output row a goes to y + a *
        rowStride; with it, the max of rows 2a and 2a + 1 (or row 2a alone when 2a + 1 does not
        count) does. */
    template <bool Full, int TileRows, int PoolH, int PoolW>
    __attribute__ ((always_inline)) inline void winogradOutputTiles (const float* m, int64_t xiStride, int lanes, Reg bias, bool relu, float* y,
                                                                     int64_t rowStride, int64_t rows, int64_t width) noexcept
    {
        constexpr int kInputRows = TileRows + 2;
        const auto load = [&] (int xi) { return Full ? Vec::load (m + xi * xiStride) : Vec::loadFirst (m + xi * xiStride, lanes); };
        Reg left[kInputRows], right[kInputRows];
#pragma GCC unroll 6
        for (int i = 0; i < kInputRows; ++i)
        {
            const Reg m0 = load (4 * i), m1 = load (4 * i + 1), m2 = load (4 * i + 2), m3 = load (4 * i + 3);
            left[i] = Vec::add (Vec::add (m0, m1), m2);
            right[i] = Vec::sub (Vec::sub (m1, m2), m3);
        }
        Reg outLeft[TileRows], outRight[TileRows];
        WinogradColumns<TileRows>::output (left, outLeft);
        WinogradColumns<TileRows>::output (right, outRight);
#pragma GCC unroll 4
        for (int a = 0; a < TileRows; a += PoolH)
        {
            if (a >= rows)
                return;
            Reg l = outLeft[a], r = outRight[a];
            if (PoolH == 2 && a + 1 < rows)
            {
                l = Vec::maxNaN (l, outLeft[a + 1]);
                r = Vec::maxNaN (r, outRight[a + 1]);
            }
            winogradStoreRow (l, r, bias, relu, y + (a / PoolH) * rowStride, width, PoolW);
        }
    }

    /** The output transform of `count` consecutive tiles of TileRows output rows, all of one tile
        row, for each of `channels` channels: m[xi * xiStride + c * channelIn + t] -> A^T m A +
        bias[c] (none if null), relu'd if asked, into y + c * channelOut: the first `rows` rows
        (1 to TileRows) of the tiles' outputs, columns [0, width) (tile t covers 2t and 2t + 1;
        width <= 2 * count), rows rowStride apart. A max pooling of 2 over the rows (poolH) writes
        each pair's max as one row, one of 2 over the columns (poolW) each tile's max as one column. */
    template <int TileRows, int PoolH, int PoolW>
    inline void winogradOutputChannels (const float* m, int64_t xiStride, int64_t channels, int64_t channelIn, int64_t count, const float* bias,
                                        bool relu, float* y, int64_t channelOut, int64_t rowStride, int64_t rows, int64_t width) noexcept
    {
        constexpr int W = Vec::width;
        constexpr int64_t step = PoolW == 2 ? 1 : 2; // output columns per tile
        for (int64_t c = 0; c < channels; ++c)
        {
            const float* from = m + c * channelIn;
            float* to = y + c * channelOut;
            const Reg b = Vec::set1 (bias != nullptr ? bias[c] : 0.0f);
            int64_t t = 0;
            for (; t + W <= count; t += W)
                winogradOutputTiles<true, TileRows, PoolH, PoolW> (from + t, xiStride, W, b, relu, to + step * t, rowStride, rows, width - 2 * t);
            if (t < count)
                winogradOutputTiles<false, TileRows, PoolH, PoolW> (from + t, xiStride, static_cast<int> (count - t), b, relu, to + step * t,
                                                                    rowStride, rows, width - 2 * t);
        }
    }

    inline void winogradOutputImpl (int tileRows, const float* m, int64_t xiStride, int64_t channels, int64_t channelIn, int64_t count,
                                    const float* bias, bool relu, float* y, int64_t channelOut, int64_t rowStride, int64_t rows, int64_t width,
                                    int poolH, int poolW) noexcept
    {
        // A function for each tile height and pooling: the tile's rows unrolled, its outputs in registers.
        const auto pooled = [&] (auto tileRowsConstant) {
            constexpr int R = decltype (tileRowsConstant)::value;
            if (poolH == 2 && poolW == 2)
                winogradOutputChannels<R, 2, 2> (m, xiStride, channels, channelIn, count, bias, relu, y, channelOut, rowStride, rows, width);
            else if (poolH == 2)
                winogradOutputChannels<R, 2, 1> (m, xiStride, channels, channelIn, count, bias, relu, y, channelOut, rowStride, rows, width);
            else if (poolW == 2)
                winogradOutputChannels<R, 1, 2> (m, xiStride, channels, channelIn, count, bias, relu, y, channelOut, rowStride, rows, width);
            else
                winogradOutputChannels<R, 1, 1> (m, xiStride, channels, channelIn, count, bias, relu, y, channelOut, rowStride, rows, width);
        };
        if (tileRows == 4)
            pooled (std::integral_constant<int, 4> {});
        else
            pooled (std::integral_constant<int, 2> {});
    }
} // namespace
} // namespace sonotype::engine::kernels
