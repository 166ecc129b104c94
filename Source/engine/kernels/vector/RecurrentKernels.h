// The gates of one recurrent cell step, fused in one pass over the hidden units, in float
// registers (see VectorRegister.h for why an anonymous namespace). PyTorch's formulas exactly:
//   LSTM: gates [i f g o] pre-activation; c' = sigmoid(f) c + sigmoid(i) tanh(g); h' = sigmoid(o) tanh(c').
//   GRU:  gi = W_i x + b_i, gh = W_h h + b_h, each [r z n]; r = sigmoid(gi_r + gh_r),
//         z = sigmoid(gi_z + gh_z), n = tanh(gi_n + r gh_n), h' = (1 - z) n + z h.
#pragma once

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
