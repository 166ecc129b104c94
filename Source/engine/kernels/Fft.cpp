// Mixed-radix decimation-in-time FFT (see Fft.h). Each stage splits the transform into p
// interleaved sub-transforms of m = n / p points, computes them recursively into consecutive
// blocks of the output, then combines them with a radix-p butterfly.
#include "engine/kernels/Fft.h"
#include "engine/file/ModelError.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

namespace sonotype::engine::kernels
{
namespace
{
    using Complex = std::complex<double>;

    inline Complex mulMinusI (Complex z) noexcept { return { z.imag(), -z.real() }; }

    /** a * b without the C library's NaN/infinity recovery (__muldc3) std::complex's operator*
        calls: the inputs are finite sums of finite samples and unit twiddles. */
    inline Complex mul (Complex a, Complex b) noexcept
    {
        return { a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real() };
    }
} // namespace

FftPlan::FftPlan (int64_t n) : n_ (n)
{
    if (n < 1 || n > kMaxSize)
        throw ModelError ("FFT size " + std::to_string (n) + " is outside 1.." + std::to_string (kMaxSize));
    // Radix 4 first while it divides, then 2, 3, 5, then the remaining prime factors.
    int64_t rest = n;
    while (rest % 4 == 0)
    {
        radices_.push_back (4);
        rest /= 4;
    }
    for (int64_t p = 2; rest > 1;)
    {
        if (p * p > rest)
            p = rest;
        if (rest % p == 0)
        {
            radices_.push_back (p);
            rest /= p;
        }
        else
            p = p == 2 ? 3 : p + 2;
    }
    // A factor 2 left over from the 4s goes first: its butterfly then runs once over n / 2 points
    // instead of as n / 2 single-butterfly leaves.
    if (const auto two = std::find (radices_.begin(), radices_.end(), 2); two != radices_.end() && two != radices_.begin())
    {
        radices_.erase (two);
        radices_.insert (radices_.begin(), 2);
    }
    int64_t span = n;
    maxRadix_ = 1;
    for (auto p : radices_)
    {
        span /= p;
        spans_.push_back (span);
        maxRadix_ = std::max (maxRadix_, static_cast<std::size_t> (p));
    }
    twiddles_.resize (static_cast<std::size_t> (n));
    for (int64_t k = 0; k < n; ++k)
    {
        // Reduced angle for accuracy: exp(-2 pi i k / n).
        const double angle = -2.0 * std::numbers::pi * static_cast<double> (k) / static_cast<double> (n);
        twiddles_[static_cast<std::size_t> (k)] = { std::cos (angle), std::sin (angle) };
    }
}

Work FftPlan::work() const noexcept
{
    Work work;
    for (auto p : radices_)
        (p <= 5 ? work.fftSteps : work.genericFftSteps) += static_cast<double> (n_) * static_cast<double> (p);
    work.fftSteps = std::max (work.fftSteps, static_cast<double> (n_));
    // The recursion's calls: as many leaves as n over the last radix.
    work.calls = radices_.empty() ? 1.0 : static_cast<double> (n_) / static_cast<double> (radices_.back());
    return work;
}

void FftPlan::run (const Complex* in, Complex* out, Complex* scratch) const noexcept
{
    if (n_ == 1)
    {
        out[0] = in[0];
        return;
    }
    work (out, in, 1, 0, scratch);
}

void FftPlan::work (Complex* out, const Complex* in, int64_t stride, std::size_t stage, Complex* scratch) const noexcept
{
    const int64_t p = radices_[stage], m = spans_[stage];
    if (m == 1 && p == 4) // leaves of radix 4 and 2: the DFT of their inputs directly (no twiddles)
    {
        const Complex a0 = in[0], a1 = in[stride], a2 = in[2 * stride], a3 = in[3 * stride];
        const Complex s02 = a0 + a2, d02 = a0 - a2, s13 = a1 + a3, d13 = mulMinusI (a1 - a3);
        out[0] = s02 + s13;
        out[1] = d02 + d13;
        out[2] = s02 - s13;
        out[3] = d02 - d13;
        return;
    }
    if (m == 1 && p == 2)
    {
        out[0] = in[0] + in[stride];
        out[1] = in[0] - in[stride];
        return;
    }
    if (m == 1)
    {
        for (int64_t q = 0; q < p; ++q)
            out[q] = in[q * stride];
    }
    else
    {
        for (int64_t q = 0; q < p; ++q)
            work (out + q * m, in + q * stride, stride * p, stage + 1, scratch);
    }
    // Twiddle step for sub-transform length m inside a transform of length p * m: exp(-2 pi i / (p m))
    // is twiddles_[stride] since n = stride * p * m.
    switch (p)
    {
        case 2: butterfly2 (out, stride, m); break;
        case 3: butterfly3 (out, stride, m); break;
        case 4: butterfly4 (out, stride, m); break;
        case 5: butterfly5 (out, stride, m); break;
        default: butterflyGeneric (out, stride, m, p, scratch); break;
    }
}

void FftPlan::butterfly2 (Complex* out, int64_t stride, int64_t m) const noexcept
{
    for (int64_t k = 0; k < m; ++k)
    {
        const Complex t = mul (out[k + m], twiddles_[static_cast<std::size_t> (k * stride)]);
        out[k + m] = out[k] - t;
        out[k] += t;
    }
}

void FftPlan::butterfly3 (Complex* out, int64_t stride, int64_t m) const noexcept
{
    const double s = -std::sqrt (3.0) / 2.0; // imaginary part of exp(-2 pi i / 3)
    for (int64_t k = 0; k < m; ++k)
    {
        const Complex a0 = out[k];
        const Complex a1 = mul (out[k + m], twiddles_[static_cast<std::size_t> (k * stride)]);
        const Complex a2 = mul (out[k + 2 * m], twiddles_[static_cast<std::size_t> (2 * k * stride)]);
        const Complex sum = a1 + a2, diff = a1 - a2;
        const Complex middle = a0 - 0.5 * sum;
        const Complex rotated { -s * diff.imag(), s * diff.real() }; // i * s * diff
        out[k] = a0 + sum;
        out[k + m] = middle + rotated;
        out[k + 2 * m] = middle - rotated;
    }
}

void FftPlan::butterfly4 (Complex* out, int64_t stride, int64_t m) const noexcept
{
    for (int64_t k = 0; k < m; ++k)
    {
        const Complex a0 = out[k];
        const Complex a1 = mul (out[k + m], twiddles_[static_cast<std::size_t> (k * stride)]);
        const Complex a2 = mul (out[k + 2 * m], twiddles_[static_cast<std::size_t> (2 * k * stride)]);
        const Complex a3 = mul (out[k + 3 * m], twiddles_[static_cast<std::size_t> (3 * k * stride)]);
        const Complex s02 = a0 + a2, d02 = a0 - a2, s13 = a1 + a3, d13 = mulMinusI (a1 - a3);
        out[k] = s02 + s13;
        out[k + m] = d02 + d13;
        out[k + 2 * m] = s02 - s13;
        out[k + 3 * m] = d02 - d13;
    }
}

void FftPlan::butterfly5 (Complex* out, int64_t stride, int64_t m) const noexcept
{
    const double c1 = std::cos (2.0 * std::numbers::pi / 5.0), c2 = std::cos (4.0 * std::numbers::pi / 5.0);
    const double s1 = std::sin (2.0 * std::numbers::pi / 5.0), s2 = std::sin (4.0 * std::numbers::pi / 5.0);
    for (int64_t k = 0; k < m; ++k)
    {
        const Complex a0 = out[k];
        const Complex a1 = mul (out[k + m], twiddles_[static_cast<std::size_t> (k * stride)]);
        const Complex a2 = mul (out[k + 2 * m], twiddles_[static_cast<std::size_t> (2 * k * stride)]);
        const Complex a3 = mul (out[k + 3 * m], twiddles_[static_cast<std::size_t> (3 * k * stride)]);
        const Complex a4 = mul (out[k + 4 * m], twiddles_[static_cast<std::size_t> (4 * k * stride)]);
        const Complex sum14 = a1 + a4, diff14 = a1 - a4, sum23 = a2 + a3, diff23 = a2 - a3;
        const Complex real1 = a0 + c1 * sum14 + c2 * sum23;
        const Complex real2 = a0 + c2 * sum14 + c1 * sum23;
        const Complex imag1 = s1 * diff14 + s2 * diff23; // y1 = real1 - i imag1, y4 = real1 + i imag1
        const Complex imag2 = s2 * diff14 - s1 * diff23; // y2 = real2 - i imag2, y3 = real2 + i imag2
        out[k] = a0 + sum14 + sum23;
        out[k + m] = real1 + mulMinusI (imag1);
        out[k + 4 * m] = real1 - mulMinusI (imag1);
        out[k + 2 * m] = real2 + mulMinusI (imag2);
        out[k + 3 * m] = real2 - mulMinusI (imag2);
    }
}

void FftPlan::butterflyGeneric (Complex* out, int64_t stride, int64_t m, int64_t p, Complex* scratch) const noexcept
{
    for (int64_t k = 0; k < m; ++k)
    {
        for (int64_t u = 0; u < p; ++u)
            scratch[u] = out[k + u * m];
        for (int64_t q = 0; q < p; ++q)
        {
            // y[k + q m] = sum_u a_u exp(-2 pi i u (k + q m) / (p m)); index into twiddles_ (of n = stride p m).
            const int64_t step = ((k + q * m) * stride) % n_;
            Complex sum = scratch[0];
            int64_t index = 0;
            for (int64_t u = 1; u < p; ++u)
            {
                index += step;
                if (index >= n_)
                    index -= n_;
                sum += mul (scratch[u], twiddles_[static_cast<std::size_t> (index)]);
            }
            out[k + q * m] = sum;
        }
    }
}

int64_t RealFftPlan::innerSize (int64_t n)
{
    if (n < 1 || n > FftPlan::kMaxSize)
        throw ModelError ("FFT size " + std::to_string (n) + " is outside 1.." + std::to_string (FftPlan::kMaxSize));
    return n % 2 == 0 ? n / 2 : n;
}

RealFftPlan::RealFftPlan (int64_t n) : n_ (n), packed_ (innerSize (n) != n), inner_ (innerSize (n))
{
    if (packed_)
    {
        split_.resize (static_cast<std::size_t> (n / 2 + 1));
        for (int64_t k = 0; k <= n / 2; ++k)
        {
            const double angle = -2.0 * std::numbers::pi * static_cast<double> (k) / static_cast<double> (n);
            split_[static_cast<std::size_t> (k)] = { std::cos (angle), std::sin (angle) };
        }
    }
}

std::size_t RealFftPlan::scratchComplex() const noexcept
{
    // The transform's input and output, and its own scratch.
    return 2 * static_cast<std::size_t> (inner_.size()) + inner_.scratchComplex();
}

Work RealFftPlan::work() const noexcept
{
    auto work = inner_.work();
    work.fftSteps += static_cast<double> (n_); // the split step of an even size
    return work;
}

void RealFftPlan::run (const double* in, Complex* out, Complex* scratch) const noexcept
{
    const int64_t m = inner_.size();
    Complex* z = scratch;
    Complex* spectrum = scratch + m;
    Complex* innerScratch = spectrum + m;
    if (! packed_)
    {
        for (int64_t j = 0; j < m; ++j)
            z[j] = { in[j], 0.0 };
        inner_.run (z, spectrum, innerScratch);
        for (int64_t k = 0; k <= n_ / 2; ++k)
            out[k] = spectrum[k];
        return;
    }
    for (int64_t j = 0; j < m; ++j)
        z[j] = { in[2 * j], in[2 * j + 1] };
    inner_.run (z, spectrum, innerScratch);
    // Even samples' spectrum E[k] = (Z[k] + conj Z[m-k]) / 2, odd ones' O[k] = (Z[k] - conj Z[m-k]) / 2i,
    // X[k] = E[k] + exp(-2 pi i k / n) O[k], indices of Z modulo m.
    for (int64_t k = 0; k <= m; ++k)
    {
        const Complex a = spectrum[k == m ? 0 : k];
        const Complex b = std::conj (spectrum[k == 0 ? 0 : m - k]);
        const Complex even = 0.5 * (a + b);
        const Complex diff = 0.5 * (a - b);
        const Complex odd { diff.imag(), -diff.real() }; // diff / i
        out[k] = even + mul (split_[static_cast<std::size_t> (k)], odd);
    }
}

} // namespace sonotype::engine::kernels
