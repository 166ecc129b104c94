// Streaming sample-rate conversion of a mono stream, from any host or file rate to the model's.
//
// Library: libsoxr (The SoX Resampler). Chosen over libsamplerate for its quality (the "very high"
// recipe is 28-bit precise with a linear-phase, aliasing-free band edge at 95% of Nyquist) at a
// fraction of libsamplerate's best-sinc cost, and for its streaming API whose output does not depend
// on how the input is split into blocks — which the live and offline paths rely on to agree.
#pragma once

#include <cstddef>
#include <vector>

struct soxr;

namespace sonotype::dsp
{

class Resampler
{
public:
    /** Throws FrontendError for rates outside 1 kHz ... 768 kHz. Equal rates pass samples through. */
    Resampler (double inputRate, double outputRate);
    ~Resampler();
    Resampler (const Resampler&) = delete;
    Resampler& operator= (const Resampler&) = delete;

    double inputRate() const noexcept { return inputRate_; }
    double outputRate() const noexcept { return outputRate_; }

    /** Converts `numSamples` more input samples; appends the output produced so far to `output`. */
    void process (const float* input, std::size_t numSamples, std::vector<float>& output);
    /** Ends the stream: appends the remaining output (the resampler's delay line). */
    void flush (std::vector<float>& output);
    /** Ready for a new stream, as a new resampler of the same rates, keeping the filter it designed
        (designing libsoxr's very-high-quality filter takes longer than resampling a second of audio). */
    void restart();

private:
    void drain (const float* input, std::size_t numSamples, std::vector<float>& output);

    double inputRate_, outputRate_;
    soxr* soxr_ = nullptr;
    std::vector<float> block_;
};

} // namespace sonotype::dsp
