// The gates of one recurrent cell step, fused in one pass over the hidden units, in float
// registers (see VectorRegister.h for why an anonymous namespace). PyTorch's formulas exactly:
//   LSTM: gates [i f g o] pre-activation; c' = sigmoid(f) c + sigmoid(i) tanh(g); h' = sigmoid(o) tanh(c').
//   GRU:  gi = W_i x + b_i, gh = W_h h + b_h, each [r z n]; r = sigmoid(gi_r + gh_r),
//         z = sigmoid(gi_z + gh_z), n = tanh(gi_n + r gh_n), h' = (1 - z) n + z h.
#pragma once

#include "engine/kernels/vector/PackedGemm.h"
#include "engine/kernels/vector/RowKernels.h"

namespace sonotype::engine::kernels
{
namespace
{
    /** Calls f (offset, count) for each register's worth of [0, size): count == Vec::width but for the tail. */
    template <typename F>
    inline void forRegisters (int64_t size, F f) noexcept
    {
        constexpr int W = Vec::width;
        int64_t j = 0;
        for (; j + W <= size; j += W)
            f (j, W);
        if (j < size)
            f (j, static_cast<int> (size - j));
    }

    inline Reg loadPart (const float* p, int count) noexcept { return count == Vec::width ? Vec::load (p) : Vec::loadFirst (p, count); }

    inline void storePart (float* p, Reg v, int count) noexcept
    {
        if (count == Vec::width)
            Vec::store (p, v);
        else
            Vec::storeFirst (p, v, count);
    }

    /** c[0, n) += a[0, k) * B, B [k, n] packed by PackedGemm<Rows>::packB (panels of kColumns
        columns, k-major, zero-padded): the recurrent product of one sequence per step, where the
        general kernel would compute Rows rows for one. Four panels at a time, for independent
        accumulators: the loads of B, not the multiply-adds' latency, bound it. */
    template <int Rows>
    void packedRowTimesImpl (int64_t n, int64_t k, const float* a, const float* packed, float* c) noexcept
    {
        constexpr int W = Vec::width;
        constexpr int64_t kColumns = PackedGemm<Rows>::kColumns;
        constexpr int kPanels = 4;
        const int64_t panels = (n + kColumns - 1) / kColumns;
        for (int64_t first = 0; first < panels; first += kPanels)
        {
            const int count = static_cast<int> (panels - first < kPanels ? panels - first : kPanels);
            Reg sums[2 * kPanels];
            for (auto& s : sums)
                s = Vec::zero();
            const float* b = packed + first * k * kColumns;
            if (count == kPanels)
                for (int64_t p = 0; p < k; ++p)
                {
                    const Reg x = Vec::set1 (a[p]);
#pragma GCC unroll 4
                    for (int q = 0; q < kPanels; ++q)
                    {
                        const float* row = b + q * k * kColumns + p * kColumns;
                        sums[2 * q] = Vec::fma (x, Vec::load (row), sums[2 * q]);
                        sums[2 * q + 1] = Vec::fma (x, Vec::load (row + W), sums[2 * q + 1]);
                    }
                }
            else
                for (int64_t p = 0; p < k; ++p)
                {
                    const Reg x = Vec::set1 (a[p]);
                    for (int q = 0; q < count; ++q)
                    {
                        const float* row = b + q * k * kColumns + p * kColumns;
                        sums[2 * q] = Vec::fma (x, Vec::load (row), sums[2 * q]);
                        sums[2 * q + 1] = Vec::fma (x, Vec::load (row + W), sums[2 * q + 1]);
                    }
                }
            for (int q = 0; q < count; ++q)
                for (int half = 0; half < 2; ++half)
                {
                    const int64_t column = (first + q) * kColumns + half * W;
                    if (column >= n)
                        break;
                    const int used = static_cast<int> (n - column < W ? n - column : W);
                    storePart (c + column, Vec::add (loadPart (c + column, used), sums[2 * q + half]), used);
                }
        }
    }

    /** c[j] += sum over p < k of a[p] * w[j * ldw + p], j < n: one row times a layer's weight
        [n, k] as stored (unpacked), four weight rows at a time sharing each load of a. */
    inline void rowTimesRowsImpl (int64_t n, int64_t k, const float* a, const float* w, int64_t ldw, float* c) noexcept
    {
        constexpr int W = Vec::width;
        int64_t j = 0;
        for (; j + 4 <= n; j += 4)
        {
            const float* w0 = w + j * ldw;
            Reg s0 = Vec::zero(), s1 = Vec::zero(), s2 = Vec::zero(), s3 = Vec::zero();
            int64_t p = 0;
            for (; p + W <= k; p += W)
            {
                const Reg x = Vec::load (a + p);
                s0 = Vec::fma (x, Vec::load (w0 + p), s0);
                s1 = Vec::fma (x, Vec::load (w0 + ldw + p), s1);
                s2 = Vec::fma (x, Vec::load (w0 + 2 * ldw + p), s2);
                s3 = Vec::fma (x, Vec::load (w0 + 3 * ldw + p), s3);
            }
            if (p < k)
            {
                const int rest = static_cast<int> (k - p);
                const Reg x = Vec::loadFirst (a + p, rest);
                s0 = Vec::fma (x, Vec::loadFirst (w0 + p, rest), s0);
                s1 = Vec::fma (x, Vec::loadFirst (w0 + ldw + p, rest), s1);
                s2 = Vec::fma (x, Vec::loadFirst (w0 + 2 * ldw + p, rest), s2);
                s3 = Vec::fma (x, Vec::loadFirst (w0 + 3 * ldw + p, rest), s3);
            }
            c[j] += Vec::sum (s0);
            c[j + 1] += Vec::sum (s1);
            c[j + 2] += Vec::sum (s2);
            c[j + 3] += Vec::sum (s3);
        }
        for (; j < n; ++j)
        {
            Reg s = Vec::zero();
            forRegisters (k, [&] (int64_t p, int count) { s = Vec::fma (loadPart (a + p, count), loadPart (w + j * ldw + p, count), s); });
            c[j] += Vec::sum (s);
        }
    }

    inline void lstmCellImpl (const float* gates, float* c, float* hidden, int64_t size) noexcept
    {
        forRegisters (size, [&] (int64_t j, int count) {
            const Reg i = vsigmoid (loadPart (gates + j, count));
            const Reg f = vsigmoid (loadPart (gates + size + j, count));
            const Reg g = vtanh (loadPart (gates + 2 * size + j, count));
            const Reg o = vsigmoid (loadPart (gates + 3 * size + j, count));
            const Reg cNew = Vec::fma (f, loadPart (c + j, count), Vec::mul (i, g));
            storePart (c + j, cNew, count);
            storePart (hidden + j, Vec::mul (o, vtanh (cNew)), count);
        });
    }

    inline void gruCellImpl (const float* gi, const float* gh, const float* previous, float* hidden, int64_t size) noexcept
    {
        forRegisters (size, [&] (int64_t j, int count) {
            const Reg r = vsigmoid (Vec::add (loadPart (gi + j, count), loadPart (gh + j, count)));
            const Reg z = vsigmoid (Vec::add (loadPart (gi + size + j, count), loadPart (gh + size + j, count)));
            const Reg n = vtanh (Vec::fma (r, loadPart (gh + 2 * size + j, count), loadPart (gi + 2 * size + j, count)));
            const Reg h = previous == nullptr ? Vec::zero() : loadPart (previous + j, count);
            // (1 - z) n + z h, as n + z (h - n).
            storePart (hidden + j, Vec::fma (z, Vec::sub (h, n), n), count);
        });
    }
} // namespace
} // namespace sonotype::engine::kernels
