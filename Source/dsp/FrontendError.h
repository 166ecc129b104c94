// What the audio front end throws at run time: a sample rate the resampler refuses, an FFT FFTW
// cannot plan, a hop or smoothing time the analyzer cannot take. (A model file's front-end settings
// are checked when it loads: engine::FrontendSettings, engine::ModelError.)
#pragma once

#include <stdexcept>

namespace sonotype::dsp
{

struct FrontendError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

} // namespace sonotype::dsp
