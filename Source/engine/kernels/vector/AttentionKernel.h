// Scaled-dot-product attention for one batch/head without materialising the score matrix: K is
// transposed once into scratch, then each query row's scores are built across keys in registers,
// softmaxed in place and multiplied into V (see VectorRegister.h for why an anonymous namespace).
// Suited to the small head dimensions of audio models (16-64), where a packed product per head
// costs more in packing than in arithmetic.
#pragma once

#include "engine/kernels/vector/RowKernels.h"

namespace sonotype::engine::kernels
{
namespace
{
    constexpr int64_t kKeyBlock = 2 * Vec::width; // keys whose scores one pass keeps in registers, per query row
    constexpr int kQueryRows = 4;                  // query rows computed together: independent FMA chains

    inline int64_t paddedKeys (int64_t s) noexcept { return (s + kKeyBlock - 1) / kKeyBlock * kKeyBlock; }

    inline std::size_t attentionScratchFloatsImpl (int64_t s, int64_t d) noexcept
    {
        return static_cast<std::size_t> (paddedKeys (s) * (d + kQueryRows));
    }

    inline void attentionImpl (const float* q, const float* k, const float* v, float* out, int64_t l, int64_t s, int64_t d, int64_t dv,
                               float scale, const float* mask, int64_t maskRow, int64_t maskColumn, float* scratch) noexcept
    {
        constexpr int W = Vec::width, R = kQueryRows;
        const int64_t sp = paddedKeys (s);
        float* keys = scratch;            // [d][sp]: K transposed, zero-padded
        float* scores = scratch + d * sp; // [R][sp]
        for (int64_t c = 0; c < d; ++c)
        {
            for (int64_t j = 0; j < s; ++j)
                keys[c * sp + j] = k[j * d + c];
            for (int64_t j = s; j < sp; ++j)
                keys[c * sp + j] = 0.0f;
        }
        const Reg factor = Vec::set1 (scale);
        for (int64_t i0 = 0; i0 < l; i0 += R)
        {
            const int64_t rows = l - i0 < R ? l - i0 : R;
            const float* query[R];
            for (int r = 0; r < R; ++r)
                query[r] = q + (i0 + (r < rows ? r : rows - 1)) * d; // a short last group repeats its last row
            // Scores of R rows x 2 registers of keys: 2R independent accumulators.
            for (int64_t j0 = 0; j0 < sp; j0 += kKeyBlock)
            {
                Reg acc[R][2];
                for (int r = 0; r < R; ++r)
                    acc[r][0] = acc[r][1] = Vec::zero();
                for (int64_t c = 0; c < d; ++c)
                {
                    const Reg k0 = Vec::load (keys + c * sp + j0), k1 = Vec::load (keys + c * sp + j0 + W);
#pragma GCC unroll 4
                    for (int r = 0; r < R; ++r)
                    {
                        const Reg qc = Vec::set1 (query[r][c]);
                        acc[r][0] = Vec::fma (qc, k0, acc[r][0]);
                        acc[r][1] = Vec::fma (qc, k1, acc[r][1]);
                    }
                }
                for (int r = 0; r < R; ++r)
                {
                    Vec::store (scores + r * sp + j0, Vec::mul (acc[r][0], factor));
                    Vec::store (scores + r * sp + j0 + W, Vec::mul (acc[r][1], factor));
                }
            }
            for (int64_t r = 0; r < rows; ++r)
            {
                if (mask != nullptr)
                    for (int64_t j = 0; j < s; ++j)
                        scores[r * sp + j] += mask[(i0 + r) * maskRow + j * maskColumn];
                softmaxRowsImpl (scores + r * sp, 1, s, s);
            }
            // out_i = sum_j p_ij v_j for R rows, a register of value columns at a time.
            for (int64_t c0 = 0; c0 < dv; c0 += W)
            {
                const int width = dv - c0 < W ? static_cast<int> (dv - c0) : W;
                Reg acc[R];
                for (int r = 0; r < R; ++r)
                    acc[r] = Vec::zero();
                for (int64_t j = 0; j < s; ++j)
                {
                    const Reg vj = width == W ? Vec::load (v + j * dv + c0) : Vec::loadFirst (v + j * dv + c0, width);
#pragma GCC unroll 4
                    for (int r = 0; r < R; ++r)
                        acc[r] = Vec::fma (Vec::set1 (scores[r * sp + j]), vj, acc[r]);
                }
                for (int64_t r = 0; r < rows; ++r)
                {
                    if (width == W)
                        Vec::store (out + (i0 + r) * dv + c0, acc[r]);
                    else
                        Vec::storeFirst (out + (i0 + r) * dv + c0, acc[r], width);
                }
            }
        }
    }
} // namespace
} // namespace sonotype::engine::kernels
