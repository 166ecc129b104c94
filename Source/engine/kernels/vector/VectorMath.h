// exp, erf and tanh on whole registers (see VectorRegister.h for why an anonymous namespace).
//   exp:  Cephes' expf: range reduction by ln 2 in two parts and a degree-6 polynomial (about 1 ulp);
//         inputs below ln(FLT_MIN) give 0, NaN stays NaN.
//   erf:  Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7), the formula PyTorch's
//         vectorised CPU erf uses.
//   tanh: an odd Taylor polynomial for |x| < 0.0625, 1 - 2 / (exp(2|x|) + 1) above, sign restored.
#pragma once

#include "engine/kernels/vector/VectorRegister.h"

namespace sonotype::engine::kernels
{
namespace
{
    using Reg = Vec::Reg;

    /** Lane i holds i: compared with a count, it selects a register's first lanes. */
    inline Reg laneIndices() noexcept
    {
        alignas (64) static constexpr float kLanes[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
        static_assert (Vec::width <= 16);
        return Vec::load (kLanes);
    }

    inline Reg vexp (Reg x) noexcept
    {
        // Clamp with x second, so that a NaN passes through max and min unchanged.
        const Reg clamped = Vec::min (Vec::set1 (88.3762626647949f), Vec::max (Vec::set1 (-88.3762626647949f), x));
        Reg n = Vec::roundToNearest (Vec::mul (clamped, Vec::set1 (1.44269504088896341f)));
        n = Vec::min (Vec::set1 (127.0f), n);
        Reg r = Vec::fma (n, Vec::set1 (-0.693359375f), clamped);
        r = Vec::fma (n, Vec::set1 (2.12194440e-4f), r);
        Reg p = Vec::set1 (1.9875691500e-4f);
        p = Vec::fma (p, r, Vec::set1 (1.3981999507e-3f));
        p = Vec::fma (p, r, Vec::set1 (8.3334519073e-3f));
        p = Vec::fma (p, r, Vec::set1 (4.1665795894e-2f));
        p = Vec::fma (p, r, Vec::set1 (1.6666665459e-1f));
        p = Vec::fma (p, r, Vec::set1 (5.0000001201e-1f));
        p = Vec::add (Vec::fma (p, Vec::mul (r, r), r), Vec::set1 (1.0f));
        const Reg result = Vec::mul (p, Vec::pow2 (n));
        return Vec::selectLess (x, Vec::set1 (-87.3365447504f), Vec::zero(), result);
    }

    inline Reg verf (Reg x) noexcept
    {
        const Reg a = Vec::abs (x);
        const Reg t = Vec::div (Vec::set1 (1.0f), Vec::fma (Vec::set1 (0.3275911f), a, Vec::set1 (1.0f)));
        Reg p = Vec::set1 (1.061405429f);
        p = Vec::fma (p, t, Vec::set1 (-1.453152027f));
        p = Vec::fma (p, t, Vec::set1 (1.421413741f));
        p = Vec::fma (p, t, Vec::set1 (-0.284496736f));
        p = Vec::fma (p, t, Vec::set1 (0.254829592f));
        p = Vec::mul (p, t);
        const Reg e = vexp (Vec::sub (Vec::zero(), Vec::mul (a, a)));
        const Reg y = Vec::sub (Vec::set1 (1.0f), Vec::mul (p, e));
        return Vec::copySign (y, x);
    }

    inline Reg vtanh (Reg x) noexcept
    {
        const Reg a = Vec::abs (x);
        const Reg e = vexp (Vec::mul (Vec::set1 (2.0f), Vec::min (Vec::set1 (20.0f), a)));
        const Reg large = Vec::sub (Vec::set1 (1.0f), Vec::div (Vec::set1 (2.0f), Vec::add (e, Vec::set1 (1.0f))));
        // x - x^3/3 + 2x^5/15 - 17x^7/315 (error below 1e-12 for |x| < 0.0625).
        const Reg x2 = Vec::mul (a, a);
        Reg p = Vec::set1 (-17.0f / 315.0f);
        p = Vec::fma (p, x2, Vec::set1 (2.0f / 15.0f));
        p = Vec::fma (p, x2, Vec::set1 (-1.0f / 3.0f));
        const Reg small = Vec::fma (Vec::mul (p, x2), a, a);
        return Vec::copySign (Vec::selectLess (a, Vec::set1 (0.0625f), small, large), x);
    }

    /** y[i] = f(x[i]) for a register function f, the tail through a padded register. */
    template <typename F>
    inline void mapRegisters (const float* x, float* y, int64_t count, F f) noexcept
    {
        constexpr int W = Vec::width;
        int64_t i = 0;
        for (; i + W <= count; i += W)
            Vec::store (y + i, f (Vec::load (x + i)));
        if (i < count)
        {
            float tail[W] = {};
            for (int64_t j = i; j < count; ++j)
                tail[j - i] = x[j];
            Vec::store (tail, f (Vec::load (tail)));
            for (int64_t j = i; j < count; ++j)
                y[j] = tail[j - i];
        }
    }
} // namespace
} // namespace sonotype::engine::kernels
