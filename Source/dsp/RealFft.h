// A real-input FFT of one size (FFTW, double precision, out of place), the one place the front end,
// the onset detector and the sound-change novelty plan their transforms: FFTW's planner is not
// thread-safe (executing a plan is), so every plan is made and destroyed under one mutex.
// An instance belongs to one thread; planning allocates, transform() does not.
#pragma once

#include <complex>
#include <cstddef>

namespace sonotype::dsp
{

class RealFft
{
public:
    /** Throws dsp::FrontendError if FFTW cannot plan a transform of `size` (> 0) points. */
    explicit RealFft (int size);
    ~RealFft();
    RealFft (const RealFft&) = delete;
    RealFft& operator= (const RealFft&) = delete;

    int size() const noexcept { return size_; }
    /** The size() samples to transform. */
    double* input() noexcept { return input_; }
    /** Transforms input() into output(): size() / 2 + 1 bins (input() is kept). */
    void transform() noexcept;
    /** Bin f of the last transform, 0 <= f <= size() / 2. */
    double re (int f) const noexcept { return output_[2 * f]; }
    double im (int f) const noexcept { return output_[2 * f + 1]; }
    double power (int f) const noexcept { return re (f) * re (f) + im (f) * im (f); }

private:
    int size_;
    double* input_ = nullptr;
    double* output_ = nullptr; // interleaved re, im (fftw_complex)
    void* plan_ = nullptr;     // fftw_plan
};

} // namespace sonotype::dsp
