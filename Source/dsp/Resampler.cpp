#include "dsp/Resampler.h"

#include "dsp/FrontendError.h"

#include <soxr.h>

#include <string>

namespace sonotype::dsp
{

Resampler::Resampler (double inputRate, double outputRate) : inputRate_ (inputRate), outputRate_ (outputRate)
{
    for (double rate : { inputRate, outputRate })
        if (! (rate >= 1000.0 && rate <= 768000.0))
            throw FrontendError ("sample rate " + std::to_string (rate) + " Hz is outside 1 kHz ... 768 kHz");
    if (inputRate == outputRate)
        return;
    const auto io = soxr_io_spec (SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    const auto quality = soxr_quality_spec (SOXR_VHQ, 0);
    const auto runtime = soxr_runtime_spec (1); // one thread: the caller's
    soxr_error_t error = nullptr;
    soxr_ = soxr_create (inputRate, outputRate, 1, &error, &io, &quality, &runtime);
    if (error != nullptr || soxr_ == nullptr)
        throw FrontendError (std::string ("libsoxr: ") + (error != nullptr ? error : "cannot create a resampler"));
    block_.resize (4096);
}

Resampler::~Resampler()
{
    if (soxr_ != nullptr)
        soxr_delete (soxr_);
}

void Resampler::drain (const float* input, std::size_t numSamples, std::vector<float>& output)
{
    // soxr consumes input as output space allows; loop until all input is taken (and, when
    // flushing, until no more output comes).
    std::size_t offset = 0;
    for (;;)
    {
        std::size_t used = 0, produced = 0;
        const float* in = input != nullptr ? input + offset : nullptr;
        const auto error = soxr_process (soxr_, in, input != nullptr ? numSamples - offset : 0, &used, block_.data(), block_.size(), &produced);
        if (error != nullptr)
            throw FrontendError (std::string ("libsoxr: ") + error);
        output.insert (output.end(), block_.begin(), block_.begin() + static_cast<std::ptrdiff_t> (produced));
        offset += used;
        if (input != nullptr ? (offset >= numSamples && produced < block_.size()) : produced == 0)
            return;
    }
}

void Resampler::process (const float* input, std::size_t numSamples, std::vector<float>& output)
{
    if (soxr_ == nullptr)
    {
        output.insert (output.end(), input, input + numSamples);
        return;
    }
    if (numSamples > 0)
        drain (input, numSamples, output);
}

void Resampler::flush (std::vector<float>& output)
{
    if (soxr_ != nullptr)
        drain (nullptr, 0, output);
}

void Resampler::restart()
{
    if (soxr_ == nullptr)
        return;
    if (const auto error = soxr_clear (soxr_); error != nullptr)
        throw FrontendError (std::string ("libsoxr: ") + error);
}

} // namespace sonotype::dsp
