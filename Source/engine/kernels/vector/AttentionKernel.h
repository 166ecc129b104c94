// Scaled-dot-product attention for one batch/head without materialising the score matrix: K is
// transposed once into scratch, then a few query rows' scores at a time are built across keys in
// registers, exponentiated in place (shifted by the row's maximum), multiplied into V and divided
// by their sums at the end (see VectorRegister.h for why an anonymous namespace).
// Suited to the small head dimensions of audio models (16-64), where a packed product per head
// costs more in packing than in arithmetic.
#pragma once

#include "engine/kernels/vector/RowKernels.h"

namespace sonotype::engine::kernels
{
namespace
{
    constexpr int64_t kKeyBlock = 2 * Vec::width; // keys whose scores one pass keeps in registers, per query row
    // Query rows computed together: 2 R independent accumulators in each loop (16 with AVX-512's 32
    // registers, 8 with 16).
    constexpr int kQueryRows = Vec::width >= 16 ? 8 : 4;

    /** to[c * toStride + r] = from[r * fromStride + c] for r, c < 4: one 4x4 block of a transpose,
        in 4-float registers (SSE on x86, NEON on arm64). */
    inline void transpose4x4 (const float* from, int64_t fromStride, float* to, int64_t toStride) noexcept
    {
#if defined(__aarch64__)
        const float32x4x2_t top = vtrnq_f32 (vld1q_f32 (from), vld1q_f32 (from + fromStride));
        const float32x4x2_t bottom = vtrnq_f32 (vld1q_f32 (from + 2 * fromStride), vld1q_f32 (from + 3 * fromStride));
        vst1q_f32 (to, vcombine_f32 (vget_low_f32 (top.val[0]), vget_low_f32 (bottom.val[0])));
        vst1q_f32 (to + toStride, vcombine_f32 (vget_low_f32 (top.val[1]), vget_low_f32 (bottom.val[1])));
        vst1q_f32 (to + 2 * toStride, vcombine_f32 (vget_high_f32 (top.val[0]), vget_high_f32 (bottom.val[0])));
        vst1q_f32 (to + 3 * toStride, vcombine_f32 (vget_high_f32 (top.val[1]), vget_high_f32 (bottom.val[1])));
#else
        __m128 r0 = _mm_loadu_ps (from), r1 = _mm_loadu_ps (from + fromStride), r2 = _mm_loadu_ps (from + 2 * fromStride),
               r3 = _mm_loadu_ps (from + 3 * fromStride);
        _MM_TRANSPOSE4_PS (r0, r1, r2, r3);
        _mm_storeu_ps (to, r0);
        _mm_storeu_ps (to + toStride, r1);
        _mm_storeu_ps (to + 2 * toStride, r2);
        _mm_storeu_ps (to + 3 * toStride, r3);
#endif
    }

    /** keys [d][sp] = k [s][d] (rows ldk apart) transposed, keys beyond s zero: 4x4 blocks in registers. */
    inline void transposeKeys (const float* k, int64_t ldk, int64_t s, int64_t d, int64_t sp, float* keys) noexcept
    {
        int64_t j = 0;
        for (; j + 4 <= s; j += 4)
        {
            int64_t c = 0;
            for (; c + 4 <= d; c += 4)
                transpose4x4 (k + j * ldk + c, ldk, keys + c * sp + j, sp);
            for (; c < d; ++c)
                for (int64_t i = j; i < j + 4; ++i)
                    keys[c * sp + i] = k[i * ldk + c];
        }
        for (; j < s; ++j)
            for (int64_t c = 0; c < d; ++c)
                keys[c * sp + j] = k[j * ldk + c];
        for (int64_t c = 0; c < d; ++c)
            for (j = s; j < sp; ++j)
                keys[c * sp + j] = 0.0f;
    }

    inline int64_t paddedKeys (int64_t s) noexcept { return (s + kKeyBlock - 1) / kKeyBlock * kKeyBlock; }

    inline std::size_t attentionScratchFloatsImpl (int64_t s, int64_t d) noexcept
    {
        return static_cast<std::size_t> (paddedKeys (s) * (d + kQueryRows));
    }

    /** y[r, 0 .. width) = inverse[r] * sum_j p[r, j] v[j, 0 .. width) for R rows (rows of them stored), width <= W;
        rows of v ldv apart, of y ldy apart. */
    inline void weightedRowsOne (const float* p, int64_t sp, const float* v, int64_t ldv, int64_t s, int width, const float* inverse, float* y,
                                 int64_t ldy, int64_t rows) noexcept
    {
        constexpr int W = Vec::width, R = kQueryRows;
        Reg acc[R];
        for (int r = 0; r < R; ++r)
            acc[r] = Vec::zero();
        for (int64_t j = 0; j < s; ++j)
        {
            const Reg vj = width == W ? Vec::load (v + j * ldv) : Vec::loadFirst (v + j * ldv, width);
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r)
                acc[r] = Vec::fma (Vec::set1 (p[r * sp + j]), vj, acc[r]);
        }
        // All R rows with a constant bound (unrolled: the accumulators stay in registers), rows stored.
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r)
        {
            if (r >= rows)
                break;
            const Reg result = Vec::mul (acc[r], Vec::set1 (inverse[r]));
            if (width == W)
                Vec::store (y + r * ldy, result);
            else
                Vec::storeFirst (y + r * ldy, result, width);
        }
    }

    /** As weightedRowsOne for W + second columns (0 < second <= W). */
    inline void weightedRowsTwo (const float* p, int64_t sp, const float* v, int64_t ldv, int64_t s, int second, const float* inverse, float* y,
                                 int64_t ldy, int64_t rows) noexcept
    {
        constexpr int W = Vec::width, R = kQueryRows;
        Reg acc0[R], acc1[R];
        for (int r = 0; r < R; ++r)
            acc0[r] = acc1[r] = Vec::zero();
        for (int64_t j = 0; j < s; ++j)
        {
            const float* vj = v + j * ldv;
            const Reg v0 = Vec::load (vj);
            const Reg v1 = second == W ? Vec::load (vj + W) : Vec::loadFirst (vj + W, second);
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r)
            {
                const Reg weight = Vec::set1 (p[r * sp + j]);
                acc0[r] = Vec::fma (weight, v0, acc0[r]);
                acc1[r] = Vec::fma (weight, v1, acc1[r]);
            }
        }
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r)
        {
            if (r >= rows)
                break;
            const Reg scale = Vec::set1 (inverse[r]);
            Vec::store (y + r * ldy, Vec::mul (acc0[r], scale));
            if (second == W)
                Vec::store (y + r * ldy + W, Vec::mul (acc1[r], scale));
            else
                Vec::storeFirst (y + r * ldy + W, Vec::mul (acc1[r], scale), second);
        }
    }

    /** acc[r][b] = q_r . k_j for the R query rows and Registers (1 or 2) registers of keys j
        (keys [d][sp], K transposed): 2R (or R) independent accumulators. */
    template <int Registers>
    inline void scoreBlock (const float* const* query, const float* keys, int64_t sp, int64_t d, Reg (&acc)[kQueryRows][2]) noexcept
    {
        constexpr int W = Vec::width, R = kQueryRows;
        for (int r = 0; r < R; ++r)
            acc[r][0] = acc[r][1] = Vec::zero();
        for (int64_t c = 0; c < d; ++c)
        {
            const Reg k0 = Vec::load (keys + c * sp), k1 = Registers == 2 ? Vec::load (keys + c * sp + W) : Vec::zero();
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r)
            {
                const Reg qc = Vec::set1 (query[r][c]);
                acc[r][0] = Vec::fma (qc, k0, acc[r][0]);
                if (Registers == 2)
                    acc[r][1] = Vec::fma (qc, k1, acc[r][1]);
            }
        }
    }

    inline void attentionImpl (const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v, int64_t ldv, float* out, int64_t ldo,
                               int64_t l, int64_t s, int64_t d, int64_t dv, float scale, const float* mask, int64_t maskRow, int64_t maskColumn,
                               float* scratch) noexcept
    {
        constexpr int W = Vec::width, R = kQueryRows;
        const int64_t sp = paddedKeys (s);
        float* keys = scratch;            // [d][sp]: K transposed, zero-padded
        float* scores = scratch + d * sp; // [R][sp]
        transposeKeys (k, ldk, s, d, sp, keys);
        const Reg factor = Vec::set1 (scale), minusInfinity = Vec::set1 (kMinusInfinity), lanes = laneIndices();
        const int64_t live = (s + W - 1) / W * W; // whole registers holding keys; the padding beyond is never read
        for (int64_t i0 = 0; i0 < l; i0 += R)
        {
            const int64_t rows = l - i0 < R ? l - i0 : R;
            const float* query[R];
            for (int r = 0; r < R; ++r)
                query[r] = q + (i0 + (r < rows ? r : rows - 1)) * ldq; // a short last group repeats its last row
            // Scores of R rows x 2 registers of keys: 2R independent accumulators. Keys beyond s
            // are -inf; without a mask, each row's maximum is kept as its scores are stored (a
            // pass over the stored row would read back whole registers just written).
            Reg maxima[R];
            for (int r = 0; r < R; ++r)
                maxima[r] = minusInfinity;
            for (int64_t j0 = 0; j0 < live; j0 += kKeyBlock)
            {
                const bool second = j0 + W < live;
                Reg acc[R][2];
                if (second)
                    scoreBlock<2> (query, keys + j0, sp, d, acc);
                else
                    scoreBlock<1> (query, keys + j0, sp, d, acc);
                const bool partial = j0 + kKeyBlock > s;
                const Reg first = Vec::set1 (static_cast<float> (s - j0)), next = Vec::set1 (static_cast<float> (s - j0 - W));
#pragma GCC unroll 8
                for (int r = 0; r < R; ++r)
                {
                    Reg s0 = Vec::mul (acc[r][0], factor), s1 = Vec::mul (acc[r][1], factor);
                    if (partial)
                    {
                        s0 = Vec::selectLess (lanes, first, s0, minusInfinity);
                        s1 = Vec::selectLess (lanes, next, s1, minusInfinity);
                    }
                    Vec::store (scores + r * sp + j0, s0);
                    maxima[r] = Vec::max (maxima[r], s0);
                    if (second)
                    {
                        Vec::store (scores + r * sp + j0 + W, s1);
                        maxima[r] = Vec::max (maxima[r], s1);
                    }
                }
            }
            // Unnormalised probabilities: each row's output is divided by its sum at the end; all
            // rows' exponentials in one pass, independent of each other, rather than one row's
            // chain at a time.
            float inverseSums[R] = {};
            Reg shifts[R];
            for (int64_t r = 0; r < rows; ++r)
            {
                float* row = scores + r * sp;
                if (mask != nullptr)
                {
                    for (int64_t j = 0; j < s; ++j)
                        row[j] += mask[(i0 + r) * maskRow + j * maskColumn];
                    maxima[r] = Vec::load (row);
                    for (int64_t j = W; j < live; j += W)
                        maxima[r] = Vec::max (maxima[r], Vec::load (row + j));
                }
                const float maximum = Vec::maximum (maxima[r]);
                // A wholly masked row (maximum -inf) gives zeros: exp(-inf - 0) = 0.
                shifts[r] = Vec::set1 (maximum == kMinusInfinity ? 0.0f : maximum);
            }
            for (int64_t r = 0; r < rows; ++r)
            {
                float* row = scores + r * sp;
                Reg sums = Vec::zero();
                for (int64_t j = 0; j < live; j += W)
                {
                    const Reg e = vexp (Vec::sub (Vec::load (row + j), shifts[r]));
                    Vec::store (row + j, e);
                    sums = Vec::add (sums, e);
                }
                const float sum = Vec::sum (sums);
                inverseSums[r] = sum == 0.0f ? 0.0f : 1.0f / sum; // a wholly masked row gives zeros, NaN stays NaN
            }
            // out_i = sum_j p_ij v_j / sum_i for R rows, two registers of value columns at a time.
            for (int64_t c0 = 0; c0 < dv; c0 += 2 * W)
            {
                const int64_t rest = dv - c0;
                float* y = out + i0 * ldo + c0;
                if (rest <= W)
                    weightedRowsOne (scores, sp, v + c0, ldv, s, static_cast<int> (rest), inverseSums, y, ldo, rows);
                else
                    weightedRowsTwo (scores, sp, v + c0, ldv, s, rest < 2 * W ? static_cast<int> (rest - W) : W, inverseSums, y, ldo, rows);
            }
        }
    }
} // namespace
} // namespace sonotype::engine::kernels
