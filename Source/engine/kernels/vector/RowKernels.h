// Softmax, LayerNorm and activations over rows, in float registers with vector accumulators
// (see VectorRegister.h for why an anonymous namespace).
#pragma once

#include "engine/kernels/vector/VectorMath.h"

namespace sonotype::engine::kernels
{
namespace
{
    constexpr float kMinusInfinity = -__builtin_inff();

    /** x = exp(x - max(x)) in place; returns the sum (0, with x all zeros, when max(x) is -inf). */
    inline float expShiftedRow (float* x, int64_t length) noexcept
    {
        constexpr int W = Vec::width;
        Reg maxima = Vec::set1 (kMinusInfinity);
        int64_t i = 0;
        for (; i + W <= length; i += W)
            maxima = Vec::max (maxima, Vec::load (x + i));
        float maximum = Vec::maximum (maxima);
        for (int64_t j = i; j < length; ++j)
            maximum = x[j] > maximum ? x[j] : maximum;
        if (maximum == kMinusInfinity)
        {
            for (int64_t j = 0; j < length; ++j)
                x[j] = 0.0f;
            return 0.0f;
        }
        const Reg m = Vec::set1 (maximum);
        Reg sums = Vec::zero();
        for (i = 0; i + W <= length; i += W)
        {
            const Reg e = vexp (Vec::sub (Vec::load (x + i), m));
            Vec::store (x + i, e);
            sums = Vec::add (sums, e);
        }
        if (i < length)
        {
            float tail[W];
            for (int j = 0; j < W; ++j)
                tail[j] = i + j < length ? x[i + j] : kMinusInfinity;
            const Reg e = vexp (Vec::sub (Vec::load (tail), m));
            Vec::store (tail, e);
            sums = Vec::add (sums, e);
            for (int64_t j = i; j < length; ++j)
                x[j] = tail[j - i];
        }
        return Vec::sum (sums);
    }

    inline void softmaxRowsImpl (float* rows, int64_t numRows, int64_t length, int64_t stride) noexcept
    {
        constexpr int W = Vec::width;
        for (int64_t r = 0; r < numRows; ++r)
        {
            float* x = rows + r * stride;
            const float sum = expShiftedRow (x, length);
            if (sum == 0.0f)
                continue; // wholly masked: zeros
            const float inverse = 1.0f / sum;
            int64_t i = 0;
            for (; i + W <= length; i += W)
                Vec::store (x + i, Vec::mul (Vec::load (x + i), Vec::set1 (inverse)));
            for (; i < length; ++i)
                x[i] *= inverse;
        }
    }

    /** sums[r] = sum over i < size of f(x[r][i] - shift[r]) for G rows, f the identity or the
        square: two accumulators per row, then the rest one by one. The G rows' chains run side by
        side (one row's alone waits on each add's latency); each row's sum is the same as alone. */
    template <int G, bool Squares>
    inline void rowSums (const float* const* x, int64_t size, const float* shift, float* sums) noexcept
    {
        constexpr int W = Vec::width;
        Reg s0[G], s1[G], c[G];
        for (int r = 0; r < G; ++r)
        {
            s0[r] = s1[r] = Vec::zero();
            c[r] = Vec::set1 (shift[r]);
        }
        int64_t i = 0;
        for (; i + 2 * W <= size; i += 2 * W)
#pragma GCC unroll 4
            for (int r = 0; r < G; ++r)
            {
                const Reg d0 = Vec::sub (Vec::load (x[r] + i), c[r]), d1 = Vec::sub (Vec::load (x[r] + i + W), c[r]);
                s0[r] = Squares ? Vec::fma (d0, d0, s0[r]) : Vec::add (s0[r], d0);
                s1[r] = Squares ? Vec::fma (d1, d1, s1[r]) : Vec::add (s1[r], d1);
            }
        for (int r = 0; r < G; ++r)
        {
            float sum = Vec::sum (Vec::add (s0[r], s1[r]));
            for (int64_t j = i; j < size; ++j)
            {
                const float d = x[r][j] - shift[r];
                sum += Squares ? d * d : d;
            }
            sums[r] = sum;
        }
    }

    /** LayerNorm of G rows at once (see rowSums). */
    template <int G>
    inline void layerNormGroup (const float* input, float* output, int64_t size, const float* weight, const float* bias, float eps) noexcept
    {
        constexpr int W = Vec::width;
        const auto n = static_cast<float> (size);
        const float* x[G];
        float first[G], mean[G], rstd[G], sums[G];
        for (int r = 0; r < G; ++r)
        {
            x[r] = input + r * size;
            first[r] = x[r][0];
        }
        // Summing x - x[0] keeps the mean accurate for rows far from zero.
        rowSums<G, false> (x, size, first, sums);
        for (int r = 0; r < G; ++r)
            mean[r] = first[r] + sums[r] / n;
        rowSums<G, true> (x, size, mean, sums);
        for (int r = 0; r < G; ++r)
            rstd[r] = 1.0f / __builtin_sqrtf (sums[r] / n + eps);
        for (int r = 0; r < G; ++r)
        {
            float* y = output + r * size;
            const Reg m = Vec::set1 (mean[r]), s = Vec::set1 (rstd[r]);
            int64_t i = 0;
            for (; i + W <= size; i += W)
            {
                Reg v = Vec::mul (Vec::sub (Vec::load (x[r] + i), m), s);
                if (weight != nullptr)
                    v = Vec::mul (v, Vec::load (weight + i));
                if (bias != nullptr)
                    v = Vec::add (v, Vec::load (bias + i));
                Vec::store (y + i, v);
            }
            for (; i < size; ++i)
            {
                float v = (x[r][i] - mean[r]) * rstd[r];
                if (weight != nullptr)
                    v *= weight[i];
                if (bias != nullptr)
                    v += bias[i];
                y[i] = v;
            }
        }
    }

    inline void layerNormRowsImpl (const float* input, float* output, int64_t rows, int64_t size, const float* weight, const float* bias,
                                   float eps) noexcept
    {
        constexpr int G = 4;
        int64_t r = 0;
        for (; r + G <= rows; r += G)
            layerNormGroup<G> (input + r * size, output + r * size, size, weight, bias, eps);
        for (; r < rows; ++r)
            layerNormGroup<1> (input + r * size, output + r * size, size, weight, bias, eps);
    }

    inline void copyImpl (const float* from, float* to, int64_t count, bool relu) noexcept // in place too
    {
        constexpr int W = Vec::width;
        int64_t i = 0;
        if (relu) // NaN and -0 pass, as the relu op and torch.relu
            for (; i + W <= count; i += W)
                Vec::store (to + i, Vec::relu (Vec::load (from + i)));
        else
            for (; i + W <= count; i += W)
                Vec::store (to + i, Vec::load (from + i));
        for (; i < count; ++i)
            to[i] = relu && from[i] < 0.0f ? 0.0f : from[i];
    }

    /** row[i] = combine(row[i], tap[i * stride]) for i < count, `combine` a register op and
        `scalar` the same on floats: the pooling kernels' pass of one tap over a row of outputs. */
    template <typename Combine, typename Scalar>
    inline void combineInto (const float* __restrict tap, int64_t stride, float* __restrict row, int64_t count, Combine combine, Scalar scalar) noexcept
    {
        constexpr int W = Vec::width;
        int64_t i = 0;
        if (stride == 1)
            for (; i + W <= count; i += W)
                Vec::store (row + i, combine (Vec::load (row + i), Vec::load (tap + i)));
        else if (stride == 2) // the even floats of two registers; a last register is read only as far as needed
            for (; i < count; i += W)
            {
                const int64_t rest = count - i;
                if (rest > W)
                {
                    Vec::store (row + i, combine (Vec::load (row + i), Vec::evenLanes (Vec::load (tap + 2 * i), Vec::load (tap + 2 * i + W))));
                    continue;
                }
                const int64_t span = 2 * rest - 1; // floats from tap[2 i] to tap[2 (count - 1)]
                const Reg low = span >= W ? Vec::load (tap + 2 * i) : Vec::loadFirst (tap + 2 * i, static_cast<int> (span));
                const Reg high = span > W ? Vec::loadFirst (tap + 2 * i + W, static_cast<int> (span - W)) : Vec::zero();
                const Reg taps = Vec::evenLanes (low, high);
                if (rest == W)
                    Vec::store (row + i, combine (Vec::load (row + i), taps));
                else
                    Vec::storeFirst (row + i, combine (Vec::loadFirst (row + i, static_cast<int> (rest)), taps), static_cast<int> (rest));
                i = count;
                break;
            }
        for (; i < count; ++i)
            row[i] = scalar (row[i], tap[i * stride]);
    }

    inline void maxIntoImpl (const float* __restrict tap, int64_t stride, float* __restrict row, int64_t count) noexcept
    {
        combineInto (
            tap, stride, row, count, [] (Reg r, Reg t) noexcept { return Vec::maxNaN (r, t); },
            [] (float r, float t) noexcept { return (t > r || t != t) ? t : r; });
    }

    inline void addIntoImpl (const float* __restrict tap, int64_t stride, float* __restrict row, int64_t count) noexcept
    {
        combineInto (
            tap, stride, row, count, [] (Reg r, Reg t) noexcept { return Vec::add (r, t); },
            [] (float r, float t) noexcept { return r + t; });
    }

    inline void geluErfImpl (const float* x, float* y, int64_t count) noexcept
    {
        mapRegisters (x, y, count, [] (Reg v) noexcept {
            const Reg e = verf (Vec::mul (v, Vec::set1 (0.7071067811865476f)));
            return Vec::mul (Vec::mul (Vec::set1 (0.5f), v), Vec::add (Vec::set1 (1.0f), e));
        });
    }

    inline void geluTanhImpl (const float* x, float* y, int64_t count) noexcept
    {
        mapRegisters (x, y, count, [] (Reg v) noexcept {
            const Reg cube = Vec::mul (Vec::mul (v, v), v);
            const Reg inner = Vec::mul (Vec::set1 (0.7978845608028654f), Vec::fma (Vec::set1 (0.044715f), cube, v));
            return Vec::mul (Vec::mul (Vec::set1 (0.5f), v), Vec::add (Vec::set1 (1.0f), vtanh (inner)));
        });
    }

    inline void expImpl (const float* x, float* y, int64_t count) noexcept
    {
        mapRegisters (x, y, count, [] (Reg v) noexcept { return vexp (v); });
    }

    inline void logImpl (const float* x, float* y, int64_t count) noexcept
    {
        mapRegisters (x, y, count, [] (Reg v) noexcept { return vlog (v); });
    }

    inline void log10Impl (const float* x, float* y, int64_t count) noexcept
    {
        mapRegisters (x, y, count, [] (Reg v) noexcept { return vlog10 (v); });
    }

    inline Reg vsigmoid (Reg v) noexcept { return Vec::div (Vec::set1 (1.0f), Vec::add (Vec::set1 (1.0f), vexp (Vec::sub (Vec::zero(), v)))); }

    inline void sigmoidImpl (const float* x, float* y, int64_t count) noexcept
    {
        mapRegisters (x, y, count, [] (Reg v) noexcept { return vsigmoid (v); });
    }

    inline void siluImpl (const float* x, float* y, int64_t count) noexcept
    {
        mapRegisters (x, y, count, [] (Reg v) noexcept { return Vec::mul (v, vsigmoid (v)); });
    }

    inline void tanhImpl (const float* x, float* y, int64_t count) noexcept
    {
        mapRegisters (x, y, count, [] (Reg v) noexcept { return vtanh (v); });
    }
} // namespace
} // namespace sonotype::engine::kernels
