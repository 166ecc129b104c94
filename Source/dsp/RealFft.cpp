#include "dsp/RealFft.h"

#include "dsp/FrontendError.h"

#include <fftw3.h>

#include <mutex>
#include <string>

namespace sonotype::dsp
{
namespace
{
    std::mutex plannerMutex; // FFTW's planner is not thread-safe (executing a plan is)
} // namespace

RealFft::RealFft (int size) : size_ (size)
{
    if (size <= 0)
        throw FrontendError ("an FFT needs a positive size, not " + std::to_string (size));
    const std::lock_guard<std::mutex> lock (plannerMutex);
    input_ = fftw_alloc_real (static_cast<std::size_t> (size));
    auto* output = fftw_alloc_complex (static_cast<std::size_t> (size / 2 + 1));
    output_ = reinterpret_cast<double*> (output);
    if (input_ != nullptr && output != nullptr)
        plan_ = fftw_plan_dft_r2c_1d (size, input_, output, FFTW_ESTIMATE);
    if (plan_ == nullptr)
    {
        fftw_free (input_);
        fftw_free (output);
        throw FrontendError ("FFTW could not plan an FFT of size " + std::to_string (size));
    }
    std::fill (input_, input_ + size, 0.0);
}

RealFft::~RealFft()
{
    const std::lock_guard<std::mutex> lock (plannerMutex);
    fftw_destroy_plan (static_cast<fftw_plan> (plan_));
    fftw_free (input_);
    fftw_free (output_);
}

void RealFft::transform() noexcept
{
    fftw_execute (static_cast<fftw_plan> (plan_));
}

} // namespace sonotype::dsp
