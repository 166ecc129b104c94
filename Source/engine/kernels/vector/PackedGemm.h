// A packed matrix product in the style of GotoBLAS/BLIS (see VectorRegister.h for why an anonymous
// namespace): A is packed in panels of the rows of C's tiles (kRows, fewer at the end: tileRowsAt)
// and B in panels of kColumns = 2 registers of columns, both k-major, and a register-blocked
// micro-kernel computes each tile of C, R x kColumns, with R * 2 accumulators. Constant
// operands (weights) are packed once at load, over the whole of k; a B that is not is packed per
// block into scratch, an A read in place (or packed per block when transposed).
#pragma once

#include "engine/kernels/vector/KernelTable.h"
#include "engine/kernels/vector/VectorMath.h"

#include <type_traits>

namespace sonotype::engine::kernels
{
namespace
{
    template <int Rows>
    struct PackedGemm
    {
        static constexpr int kRows = Rows;              // MR
        static constexpr int kColumns = 2 * Vec::width; // NR
        static constexpr int64_t kDepthBlock = 256;     // KC
        static constexpr int64_t kRowBlock = Rows * 24; // MC, a multiple of MR (B streams once for up to 24 panels of rows)
        static constexpr int64_t kColumnBlock = 1024;   // NC, a multiple of NR (a packed block of B: 1 MiB)

        static int64_t roundUp (int64_t value, int64_t step) noexcept { return (value + step - 1) / step * step; }
        static int64_t smaller (int64_t a, int64_t b) noexcept { return a < b ? a : b; }
        static std::size_t floats (int64_t count) noexcept { return static_cast<std::size_t> (roundUp (count, 16)); }

        static std::size_t scratchFloats (int64_t m, int64_t n, int64_t k) noexcept
        {
            const int64_t kc = smaller (k, kDepthBlock);
            return floats (smaller (m, kRowBlock) * kc) + floats (roundUp (smaller (n, kColumnBlock), kColumns) * kc);
        }
        static std::size_t packedAFloats (int64_t m, int64_t k) noexcept { return floats (m * k); }
        static std::size_t packedBFloats (int64_t k, int64_t n) noexcept { return floats (roundUp (n, kColumns) * k); }

        /** Rows of the tile of C (and of A's panel) at row i of m rows. The rows run in blocks of
            kRowBlock (a product's blocks of rows), so that no tile crosses a block's end; in each,
            tiles of kRows, except that the block's last kRows and a few more split in two tiles of
            about half each. A tile of a few rows has a few accumulators, fewer than the
            multiply-adds in flight (a 2-row tile after 30 on AVX2 ran at half speed: 32 tokens'
            products 6% slower than 30's). Every kernel and both packings of A take their tiles
            from here, so each kernel steps through its panel by its own R (a Winograd
            convolution's 32 output channels: 6+6+6+6+4+4 rows on AVX2, 8+8+8+8 on AVX-512). */
        static int64_t tileRowsAt (int64_t m, int64_t i) noexcept
        {
            constexpr int64_t kFewest = 4;                                              // rows whose 2 * 4 accumulators cover the multiply-adds in flight
            const int64_t remaining = smaller (m, (i / kRowBlock + 1) * kRowBlock) - i; // rows left in the block
            if (remaining > kRows && remaining < kRows + kFewest)
                return remaining - remaining / 2;
            return smaller (kRows, remaining);
        }

        /** Elements (p, i) for p in [p0, p0 + depth), i in [start, start + count) of a matrix stored
            with element (p, i) at data[p * ld + i] (`alongPanel`) or at data[i * ld + p], into panels
            of Width consecutive i (zero-padded), k-major: panel stride depth * Width. B packs this
            way (panels along its columns), and each of A's panels (along its rows) as one of
            tileRowsAt rows. */
        template <int Width>
        static void packPanels (const float* data, int64_t ld, bool alongPanel, int64_t p0, int64_t depth, int64_t start, int64_t count,
                                float* out) noexcept
        {
            for (int64_t panel = 0; panel < count; panel += Width)
            {
                const int64_t used = smaller (Width, count - panel);
                float* dst = out + (panel / Width) * depth * Width;
                if (alongPanel) // a panel's row of Width floats is contiguous
                    for (int64_t p = 0; p < depth; ++p)
                    {
                        const float* src = data + (p0 + p) * ld + start + panel;
                        if (used == Width)
                            for (int i = 0; i < Width; ++i)
                                dst[p * Width + i] = src[i];
                        else
                            for (int i = 0; i < Width; ++i)
                                dst[p * Width + i] = i < used ? src[i] : 0.0f;
                    }
                else
                    for (int i = 0; i < Width; ++i)
                    {
                        const float* src = i < used ? data + (start + panel + i) * ld + p0 : nullptr;
                        for (int64_t p = 0; p < depth; ++p)
                            dst[p * Width + i] = src != nullptr ? src[p] : 0.0f;
                    }
            }
        }

        /** A[i0 .. i0+rows, p0 .. p0+depth] (A [m, k], or stored [k, m] when transposed), i0 a
            multiple of kRowBlock and i0 + rows the end of A or of a block: the panel of the tile at
            row i0 + ir (tileRowsAt rows, each step of p R floats) starts at ir * depth, no padding. */
        static void packABlock (const GemmOperand& a, int64_t i0, int64_t rows, int64_t p0, int64_t depth, float* out) noexcept
        {
            for (int64_t ir = 0, count = 0; ir < rows; ir += count)
            {
                count = tileRowsAt (i0 + rows, i0 + ir);
                forRows (count, [&] (auto r) { packPanels<decltype (r)::value> (a.data, a.ld, a.trans, p0, depth, i0 + ir, count, out + ir * depth); });
            }
        }

        /** B[p0 .. p0+depth, j0 .. j0+columns] (B [k, n], or stored [n, k] when transposed). */
        static void packBBlock (const GemmOperand& b, int64_t p0, int64_t depth, int64_t j0, int64_t columns, float* out) noexcept
        {
            packPanels<kColumns> (b.data, b.ld, ! b.trans, p0, depth, j0, columns, out);
        }

        static void packA (int64_t m, int64_t k, const GemmOperand& a, float* packed) noexcept { packABlock (a, 0, m, 0, k, packed); }
        static void packB (int64_t k, int64_t n, const GemmOperand& b, float* packed) noexcept { packBBlock (b, 0, k, 0, n, packed); }

        /** C tile (R rows: kRows, or the last rows of C, as few as they are; `columns` of it
            valid) = alpha * A * B panel over `depth` + the addend: row r's addend is addend + r *
            addendLd (C itself to accumulate; ld 0: one bias row for every row; null: zero),
            relu'd if asked, then plus row r of `residual` (rows ldr apart; none if null). A is
            a packed panel (Direct false) or, Direct, read in place: row r at a + r * lda. With
            `next` (rows of the B panel the following tiles will read), fetches one of its rows
            into cache every `every` steps, each `every` rows after the last: the tiles over one
            panel share the fetching of the next (tile t its rows t, t + every, ...), and a weight
            panel that comes from memory arrives while this one is multiplied. */
        template <bool Direct, int R>
        static void microKernel (int64_t depth, const float* a, int64_t lda, const float* b, float* c, int64_t ldc, float alpha,
                                 const float* addend, int64_t addendLd, bool relu, const float* residual, int64_t ldr, int64_t columns,
                                 const float* next, int64_t every = 1) noexcept
        {
            constexpr int W = Vec::width;
            Reg left[R], right[R];
            const float* rowA[R];
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r)
            {
                left[r] = right[r] = Vec::zero();
                rowA[r] = Direct ? a + r * lda : a;
            }
            int64_t countdown = 1;
            for (int64_t p = 0; p < depth; ++p)
            {
                if (next != nullptr && --countdown == 0)
                {
                    countdown = every;
                    __builtin_prefetch (next);
                    __builtin_prefetch (next + kColumns - 1);
                    next += every * kColumns;
                }
                const Reg b0 = Vec::load (b), b1 = Vec::load (b + W);
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r)
                {
                    const Reg ar = Vec::set1 (Direct ? rowA[r][p] : a[r]);
                    left[r] = Vec::fma (ar, b0, left[r]);
                    right[r] = Vec::fma (ar, b1, right[r]);
                }
                if (! Direct)
                    a += R;
                b += kColumns;
            }
            const Reg scale = Vec::set1 (alpha);
            const auto finish = [relu] (Reg v) { return relu ? Vec::relu (v) : v; };
            if (columns == kColumns)
            {
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r)
                {
                    float* row = c + r * ldc;
                    const float* add = addend + r * addendLd;
                    Reg low = finish (addend != nullptr ? Vec::fma (scale, left[r], Vec::load (add)) : Vec::mul (scale, left[r]));
                    Reg high = finish (addend != nullptr ? Vec::fma (scale, right[r], Vec::load (add + W)) : Vec::mul (scale, right[r]));
                    if (residual != nullptr)
                    {
                        low = Vec::add (low, Vec::load (residual + r * ldr));
                        high = Vec::add (high, Vec::load (residual + r * ldr + W));
                    }
                    Vec::store (row, low);
                    Vec::store (row + W, high);
                }
                return;
            }
            alignas (64) float tile[R * kColumns];
            for (int r = 0; r < R; ++r)
            {
                Vec::store (tile + r * kColumns, left[r]);
                Vec::store (tile + r * kColumns + W, right[r]);
            }
            for (int r = 0; r < R; ++r)
                for (int64_t j = 0; j < columns; ++j)
                {
                    const float value = alpha * tile[r * kColumns + j] + (addend != nullptr ? addend[r * addendLd + j] : 0.0f);
                    // As the registers' relu: NaN and -0 pass.
                    c[r * ldc + j] = (relu && value < 0.0f ? 0.0f : value) + (residual != nullptr ? residual[r * ldr + j] : 0.0f);
                }
        }

        /** f(std::integral_constant<int, rows>) for 1 <= rows <= kRows: a kernel instantiated for
            each row count, so that the last rows of C compute as few rows as they are. */
        template <typename F, int R = 1>
        static void forRows (int64_t rows, F&& f) noexcept
        {
            if constexpr (R < kRows)
                if (rows != R)
                    return forRows<F, R + 1> (rows, static_cast<F&&> (f));
            f (std::integral_constant<int, R> {});
        }

        /** left/right (two registers for each of R rows) += A panel * B over `depth`, B row p at
            base + offsets[p] for `left` and secondOffset further for `right` (the next register of
            columns, or the output row below); with Partial, only the first `first` and `second`
            floats of each are read (second 0: none). */
        template <bool Partial, int R>
        static void accumulateShifted (int64_t depth, const float* a, const float* base, const int64_t* offsets, int64_t secondOffset, int first,
                                       int second, Reg* left, Reg* right) noexcept
        {
            constexpr int W = Vec::width;
            Reg acc0[R], acc1[R];
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r)
            {
                acc0[r] = left[r];
                acc1[r] = right[r];
            }
            for (int64_t p = 0; p < depth; ++p)
            {
                const float* b = base + offsets[p];
                const Reg b0 = ! Partial || first == W ? Vec::load (b) : Vec::loadFirst (b, first);
                const Reg b1 = ! Partial ? Vec::load (b + secondOffset) : (second > 0 ? Vec::loadFirst (b + secondOffset, second) : Vec::zero());
#pragma GCC unroll 16
                for (int r = 0; r < R; ++r)
                {
                    const Reg ar = Vec::set1 (a[r]);
                    acc0[r] = Vec::fma (ar, b0, acc0[r]);
                    acc1[r] = Vec::fma (ar, b1, acc1[r]);
                }
                a += R;
            }
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r)
            {
                left[r] = acc0[r];
                right[r] = acc1[r];
            }
        }

        /** C tile = bias (per row; zero if null) + A panel * B, where B row p is input + offsets[p] + j
            (an implicit im2col), for R rows (kRows, or the last rows of C, as few as they are) and
            kColumns columns or (PartialColumns) fewer: reads no float beyond them, writes none
            beyond them. Each case a function of its own, the accumulators in registers from the
            bias to the store: with several cases in one function, GCC kept them in memory (a
            store of each per step of the partial loop, or around the branch of the whole tile). */
        template <bool PartialColumns, int R>
        __attribute__ ((always_inline)) static void shiftedTile (int64_t depth, const float* a, const float* input, const int64_t* offsets, int64_t j,
                                                                 const float* bias, float* c, int64_t ldc, int64_t columns) noexcept
        {
            constexpr int W = Vec::width;
            Reg left[R], right[R];
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r)
                left[r] = right[r] = Vec::set1 (bias != nullptr ? bias[r] : 0.0f);
            const int first = static_cast<int> (columns >= W ? W : columns), second = static_cast<int> (columns > W ? columns - W : 0);
            accumulateShifted<PartialColumns, R> (depth, a, input + j, offsets, W, first, second, left, right);
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r)
            {
                float* row = c + r * ldc;
                if (! PartialColumns)
                {
                    Vec::store (row, left[r]);
                    Vec::store (row + W, right[r]);
                    continue;
                }
                Vec::storeFirst (row, left[r], first);
                if (second > 0)
                    Vec::storeFirst (row + W, right[r], second);
            }
        }

        template <bool PartialColumns>
        static void shiftedTileRows (int64_t depth, const float* a, const float* input, const int64_t* offsets, int64_t j, const float* bias, float* c,
                                     int64_t ldc, int64_t rows, int64_t columns) noexcept
        {
            forRows (rows, [&] (auto r) { shiftedTile<PartialColumns, decltype (r)::value> (depth, a, input, offsets, j, bias, c, ldc, columns); });
        }

        static void shiftedMicroKernel (int64_t depth, const float* a, const float* input, const int64_t* offsets, int64_t j, const float* bias,
                                        float* c, int64_t ldc, int64_t rows, int64_t columns) noexcept
        {
            if (columns < kColumns)
                shiftedTileRows<true> (depth, a, input, offsets, j, bias, c, ldc, rows, columns);
            else
                shiftedTileRows<false> (depth, a, input, offsets, j, bias, c, ldc, rows, columns);
        }

        /** One tile of shiftedRowPairs: R rows of C, Vec::width columns (or, Partial, fewer; no
            float read or written beyond them), each the max of two rows of products. */
        template <bool Partial, int R>
        static void rowPairTile (int64_t depth, const float* a, const float* base, const int64_t* offsets, int64_t pairStride, const float* bias,
                                 bool relu, float* c, int64_t ldc, int columns) noexcept
        {
            Reg top[R], bottom[R];
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r)
                top[r] = bottom[r] = Vec::set1 (bias != nullptr ? bias[r] : 0.0f);
            accumulateShifted<Partial, R> (depth, a, base, offsets, pairStride, columns, columns, top, bottom);
#pragma GCC unroll 16
            for (int r = 0; r < R; ++r)
            {
                Reg v = Vec::maxNaN (top[r], bottom[r]);
                if (relu)
                    v = Vec::relu (v);
                if (Partial)
                    Vec::storeFirst (c + r * ldc, v, columns);
                else
                    Vec::store (c + r * ldc, v);
            }
        }

        /** C [m, n] = relu?(max(bias[m] + A B0, bias[m] + A B1)), NaN winning, with B0 [p, j] =
            input[offsets[p] + j] and B1 [p, j] = input[offsets[p] + pairStride + j]: a stride-1
            convolution's two output rows (pairStride apart) max-pooled into one, in registers. */
        static void shiftedRowPairs (int64_t m, int64_t n, int64_t k, const float* packedA, const float* input, const int64_t* offsets,
                                     int64_t pairStride, const float* bias, bool relu, float* c, int64_t ldc) noexcept
        {
            constexpr int W = Vec::width;
            for (int64_t j0 = 0; j0 < n; j0 += W)
                for (int64_t i0 = 0, rows = 0; i0 < m; i0 += rows)
                {
                    rows = tileRowsAt (m, i0);
                    const float* a = packedA + i0 * k;
                    const float* rowBias = bias != nullptr ? bias + i0 : nullptr;
                    const int columns = static_cast<int> (smaller (W, n - j0));
                    forRows (rows, [&] (auto r) {
                        constexpr int R = decltype (r)::value;
                        if (columns == W)
                            rowPairTile<false, R> (k, a, input + j0, offsets, pairStride, rowBias, relu, c + i0 * ldc + j0, ldc, columns);
                        else
                            rowPairTile<true, R> (k, a, input + j0, offsets, pairStride, rowBias, relu, c + i0 * ldc + j0, ldc, columns);
                    });
                }
        }

        /** C [m, n] = bias[m] + A [m, k] (packed with packA) * B, B [p, j] = input[offsets[p] + j]:
            a stride-1 convolution over a padded input without packing its columns. */
        static void shiftedGemm (int64_t m, int64_t n, int64_t k, const float* packedA, const float* input, const int64_t* offsets,
                                 const float* bias, float* c, int64_t ldc) noexcept
        {
            for (int64_t j0 = 0; j0 < n; j0 += kColumns)
            {
                int64_t i0 = 0;
                // Whole tiles in this loop, their kernel inlined: with a short k (a Winograd
                // product's input channels) a call and a dispatch per tile cost a tenth of it.
                if (n - j0 >= kColumns)
                    for (; tileRowsAt (m, i0) == kRows; i0 += kRows)
                        shiftedTile<false, kRows> (k, packedA + i0 * k, input, offsets, j0, bias != nullptr ? bias + i0 : nullptr, c + i0 * ldc + j0,
                                                   ldc, kColumns);
                for (int64_t rows = 0; i0 < m; i0 += rows)
                {
                    rows = tileRowsAt (m, i0);
                    shiftedMicroKernel (k, packedA + i0 * k, input, offsets, j0, bias != nullptr ? bias + i0 : nullptr, c + i0 * ldc + j0, ldc, rows,
                                        smaller (kColumns, n - j0));
                }
            }
        }

        static void gemm (int64_t m, int64_t n, int64_t k, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc, float alpha,
                          float* scratch) noexcept
        {
            product (m, n, k, a, b, c, ldc, alpha, false, nullptr, false, nullptr, 0, scratch);
        }

        static void gemmColumnBias (int64_t m, int64_t n, int64_t k, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc,
                                    const float* bias, bool relu, const float* residual, int64_t ldr, float* scratch) noexcept
        {
            product (m, n, k, a, b, c, ldc, 1.0f, true, bias, relu, residual, ldr, scratch);
        }

        /** C [m, n] += alpha * A * B, or (overwrite) C = relu?(bias[column] (zero if null) + alpha * A * B)
            + residual (rows ldr apart; none if null).
            An A that is neither packed nor transposed is read in place: its panels would cost a
            transposing copy per product, as much as the product itself for the few rows of a
            transformer's tokens. */
        static void product (int64_t m, int64_t n, int64_t k, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc, float alpha,
                             bool overwrite, const float* bias, bool relu, const float* residual, int64_t ldr, float* scratch) noexcept
        {
            if (m <= 0 || n <= 0)
                return;
            const bool directA = a.packed == nullptr && ! a.trans;
            float* scratchA = scratch;
            float* scratchB = scratch + floats (smaller (m, kRowBlock) * smaller (k, kDepthBlock));
            for (int64_t j0 = 0; j0 < n; j0 += kColumnBlock)
            {
                const int64_t columns = smaller (kColumnBlock, n - j0);
                // No depth (k 0): the overwritten C is its bias.
                for (int64_t p0 = 0; p0 < k || (p0 == 0 && overwrite); p0 += kDepthBlock)
                {
                    const int64_t depth = smaller (kDepthBlock, k - p0);
                    const bool first = p0 == 0 && overwrite, last = p0 + depth >= k;
                    // Panels packed at load are read in place (over the whole of k); others are packed here.
                    if (b.packed == nullptr && depth > 0)
                        packBBlock (b, p0, depth, j0, columns, scratchB);
                    const float* panelsB = b.packed != nullptr ? b.packed + (j0 / kColumns) * k * kColumns + p0 * kColumns : scratchB;
                    const int64_t strideB = (b.packed != nullptr ? k : depth) * kColumns;
                    for (int64_t i0 = 0; i0 < m; i0 += kRowBlock)
                    {
                        const int64_t rows = smaller (kRowBlock, m - i0);
                        if (a.packed == nullptr && ! directA && depth > 0)
                            packABlock (a, i0, rows, p0, depth, scratchA);
                        for (int64_t jr = 0; jr < columns; jr += kColumns)
                        {
                            const float* panelB = panelsB + (jr / kColumns) * strideB;
                            const float* nextB = b.packed != nullptr && jr + kColumns < columns ? panelB + strideB : nullptr;
                            const int64_t tiles = (rows + kRows - 1) / kRows; // share the next panel's fetching (about)
                            for (int64_t ir = 0, height = 0, t = 0; ir < rows; ir += height, ++t)
                            {
                                float* tile = c + (i0 + ir) * ldc + j0 + jr;
                                const float* addend = first ? (bias != nullptr ? bias + j0 + jr : nullptr) : tile;
                                const int64_t addendLd = first ? 0 : ldc;
                                height = tileRowsAt (m, i0 + ir);
                                const int64_t tileColumns = smaller (kColumns, columns - jr);
                                const float* prefetch = nextB != nullptr && t < tiles ? nextB + t * kColumns : nullptr;
                                const float* residualRows = last && residual != nullptr ? residual + (i0 + ir) * ldr + j0 + jr : nullptr;
                                forRows (height, [&] (auto r) {
                                    constexpr int R = decltype (r)::value;
                                    if (directA)
                                        microKernel<true, R> (depth, a.data + (i0 + ir) * a.ld + p0, a.ld, panelB, tile, ldc, alpha, addend,
                                                              addendLd, relu && last, residualRows, ldr, tileColumns, prefetch, tiles);
                                    else // the tile's panel of A: packed at load over the whole of k, or this block's
                                        microKernel<false, R> (depth, a.packed != nullptr ? a.packed + (i0 + ir) * k + p0 * R : scratchA + ir * depth,
                                                               0, panelB, tile, ldc, alpha, addend, addendLd, relu && last, residualRows, ldr,
                                                               tileColumns, prefetch, tiles);
                                });
                            }
                        }
                    }
                    if (depth == 0)
                        break;
                }
            }
        }
    };
} // namespace
} // namespace sonotype::engine::kernels
