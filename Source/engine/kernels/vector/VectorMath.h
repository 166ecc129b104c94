// exp, log, log10, erf and tanh on whole registers (see VectorRegister.h for why an anonymous namespace).
//   exp:  Cephes' expf: range reduction by ln 2 in two parts and a degree-6 polynomial (about 1 ulp);
//         inputs below ln(FLT_MIN) give 0, NaN stays NaN.
//   log, log10: Cephes' logf and log10f: x = 2^e (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)), a
//         degree-8 polynomial in f, e's share added with the constant split in two parts (about
//         1 ulp). Subnormal inputs are scaled into the normal range first; 0 gives -inf, negative
//         numbers NaN, +inf +inf, NaN NaN (as C's log).
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

    /** log's reduction of x (positive, finite): x = 2^e (1 + f); y = log(1 + f) - f less the
        e * (ln 2's low part) that vlog adds back (Cephes' logf, before its last two steps). */
    inline void logReduce (Reg x, Reg& f, Reg& y, Reg& e) noexcept
    {
        const Reg smallest = Vec::set1 (1.17549435e-38f); // FLT_MIN; below it, subnormal: scaled by 2^23
        const Reg scaled = Vec::selectLess (x, smallest, Vec::mul (x, Vec::set1 (8388608.0f)), x);
        e = Vec::sub (Vec::exponent (scaled), Vec::selectLess (x, smallest, Vec::set1 (23.0f), Vec::zero()));
        const Reg m = Vec::mantissa (scaled); // [1, 2)
        const Reg root2 = Vec::set1 (1.41421356237f);
        f = Vec::selectLess (m, root2, Vec::sub (m, Vec::set1 (1.0f)), Vec::sub (Vec::mul (m, Vec::set1 (0.5f)), Vec::set1 (1.0f)));
        e = Vec::selectLess (m, root2, e, Vec::add (e, Vec::set1 (1.0f)));
        const Reg z = Vec::mul (f, f);
        Reg p = Vec::set1 (7.0376836292e-2f);
        p = Vec::fma (p, f, Vec::set1 (-1.1514610310e-1f));
        p = Vec::fma (p, f, Vec::set1 (1.1676998740e-1f));
        p = Vec::fma (p, f, Vec::set1 (-1.2420140846e-1f));
        p = Vec::fma (p, f, Vec::set1 (1.4249322787e-1f));
        p = Vec::fma (p, f, Vec::set1 (-1.6668057665e-1f));
        p = Vec::fma (p, f, Vec::set1 (2.0000714765e-1f));
        p = Vec::fma (p, f, Vec::set1 (-2.4999993993e-1f));
        p = Vec::fma (p, f, Vec::set1 (3.3333331174e-1f));
        y = Vec::fma (Vec::set1 (-0.5f), z, Vec::mul (Vec::mul (f, z), p));
    }

    /** The special cases of log and log10 over `r`, the value for positive finite x. */
    inline Reg logSpecials (Reg x, Reg r) noexcept
    {
        r = Vec::add (r, Vec::sub (x, x)); // NaN for NaN and the infinities
        r = Vec::selectLess (Vec::set1 (3.40282347e+38f), x, Vec::set1 (__builtin_inff()), r);
        r = Vec::selectLess (x, Vec::set1 (1.40129846e-45f), Vec::set1 (-__builtin_inff()), r); // 0, -0 (and below)
        return Vec::selectLess (x, Vec::zero(), Vec::set1 (__builtin_nanf ("")), r);
    }

    inline Reg vlog (Reg x) noexcept
    {
        Reg f, y, e;
        logReduce (x, f, y, e);
        y = Vec::fma (e, Vec::set1 (-2.12194440e-4f), y);
        const Reg r = Vec::fma (e, Vec::set1 (0.693359375f), Vec::add (f, y));
        return logSpecials (x, r);
    }

    inline Reg vlog10 (Reg x) noexcept
    {
        Reg f, y, e;
        logReduce (x, f, y, e);
        // log10(e) and log10(2), each in a part of few bits and the rest.
        const Reg log10eHigh = Vec::set1 (4.3359375e-1f), log10eLow = Vec::set1 (7.00731903251827651129e-4f);
        Reg r = Vec::mul (Vec::add (f, y), log10eLow);
        r = Vec::fma (y, log10eHigh, r);
        r = Vec::fma (f, log10eHigh, r);
        r = Vec::fma (e, Vec::set1 (2.48745663981195213739e-4f), r);
        r = Vec::fma (e, Vec::set1 (3.0078125e-1f), r);
        return logSpecials (x, r);
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
