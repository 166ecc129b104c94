// A double-precision complex FFT of any size: mixed radix (4, 2, 3, 5 butterflies, a generic one for
// other prime factors), planned once at load (factors and twiddles, immutable, shared by every
// session), run with caller-provided scratch, no allocation.
#pragma once

#include "engine/file/Work.h"

#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sonotype::engine::kernels
{

class FftPlan
{
public:
    /** The largest transform size a plan accepts. */
    static constexpr int64_t kMaxSize = int64_t { 1 } << 20;

    /** Plans a forward transform of n points; throws ModelError unless 1 <= n <= kMaxSize. */
    explicit FftPlan (int64_t n);

    int64_t size() const noexcept { return n_; }

    /** Complex values of scratch run() needs beyond its input and output (the generic butterfly's). */
    std::size_t scratchComplex() const noexcept { return maxRadix_; }

    /** The steps of one transform: n times each stage's radix, in the radix-2 to 5 butterflies or
        the generic one (engine/file/Work.h weighs the two differently). */
    Work work() const noexcept;

    /** out[k] = sum_j in[j] * exp(-2 pi i j k / n), k = 0..n-1. `in` and `out` must not overlap;
        `scratch` holds scratchComplex() values. */
    void run (const std::complex<double>* in, std::complex<double>* out, std::complex<double>* scratch) const noexcept;

private:
    void work (std::complex<double>* out, const std::complex<double>* in, int64_t stride, std::size_t stage,
               std::complex<double>* scratch) const noexcept;
    void butterfly2 (std::complex<double>* out, int64_t stride, int64_t m) const noexcept;
    void butterfly3 (std::complex<double>* out, int64_t stride, int64_t m) const noexcept;
    void butterfly4 (std::complex<double>* out, int64_t stride, int64_t m) const noexcept;
    void butterfly5 (std::complex<double>* out, int64_t stride, int64_t m) const noexcept;
    void butterflyGeneric (std::complex<double>* out, int64_t stride, int64_t m, int64_t p, std::complex<double>* scratch) const noexcept;

    int64_t n_ = 0;
    std::size_t maxRadix_ = 0;
    std::vector<int64_t> radices_;               // p of each stage, first stage first
    std::vector<int64_t> spans_;                 // m of each stage: n / (p_0 ... p_stage)
    std::vector<std::complex<double>> twiddles_; // exp(-2 pi i k / n), k = 0..n-1
};

/** The spectrum of n real values, bins 0..n/2: for even n, one complex transform of n/2 points
    (even samples as real parts, odd ones as imaginary parts) and a split step; for odd n, a complex
    transform of n points. Planned at load, immutable. */
class RealFftPlan
{
public:
    /** Throws ModelError unless 1 <= n <= FftPlan::kMaxSize. */
    explicit RealFftPlan (int64_t n);

    int64_t size() const noexcept { return n_; }
    int64_t numBins() const noexcept { return n_ / 2 + 1; }
    /** Complex values of scratch run() needs. */
    std::size_t scratchComplex() const noexcept;
    Work work() const noexcept;

    /** out[k] = sum_j in[j] * exp(-2 pi i j k / n), k = 0..n/2. */
    void run (const double* in, std::complex<double>* out, std::complex<double>* scratch) const noexcept;

private:
    static int64_t innerSize (int64_t n);

    int64_t n_ = 0;
    bool packed_ = false; // even n: the half-size complex transform
    FftPlan inner_;
    std::vector<std::complex<double>> split_; // exp(-2 pi i k / n), k = 0..n/2, for even n
};

} // namespace sonotype::engine::kernels
