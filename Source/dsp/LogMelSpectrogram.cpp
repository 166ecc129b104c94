#include "dsp/LogMelSpectrogram.h"

#include "engine/CpuDispatch.h"
#include "engine/kernels/vector/KernelTable.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sonotype::dsp
{

LogMelSpectrogram::LogMelSpectrogram (const engine::FrontendSettings& settings)
    : settings_ (settings), filterbank_ (settings), kernels_ (*engine::activeKernelPath().table), fft_ (std::make_unique<RealFft> (settings.nFft))
{
    // torch.hann_window(win_length, periodic=True), zero-padded to n_fft with the window centred.
    window_.assign (static_cast<std::size_t> (settings.nFft), 0.0);
    const int offset = (settings.nFft - settings.winLength) / 2;
    for (int i = 0; i < settings.winLength; ++i)
        window_[static_cast<std::size_t> (offset + i)] = settings.window.empty()
                                                             ? 0.5 - 0.5 * std::cos (2.0 * 3.14159265358979323846 * i / settings.winLength)
                                                             : static_cast<double> (settings.window[static_cast<std::size_t> (i)]);
    spectrum_.resize (static_cast<std::size_t> (settings.numFreqs()));
    frameMel_.resize (static_cast<std::size_t> (settings.nMels));
    frame_.resize (static_cast<std::size_t> (settings.nMels));
    const auto maxFrames = static_cast<std::size_t> (settings.framesPerWindow());
    logMel_.resize (static_cast<std::size_t> (settings.nMels) * maxFrames);
    const std::size_t cacheSlots = maxFrames + 8;
    cacheKeys_.assign (cacheSlots, std::numeric_limits<int64_t>::min());
    cacheLogMel_.resize (cacheSlots * static_cast<std::size_t> (settings.nMels));
    cacheMax_.resize (cacheSlots);
}

LogMelSpectrogram::~LogMelSpectrogram() = default;

void LogMelSpectrogram::forgetStream() noexcept
{
    std::fill (cacheKeys_.begin(), cacheKeys_.end(), std::numeric_limits<int64_t>::min());
}

float LogMelSpectrogram::logMelFrame (const float* samples, int numSamples, int64_t frameStart, float* logMel)
{
    // Sample frameStart + k of the (virtually) padded clip, for k in [0, n_fft).
    const int nFft = settings_.nFft;
    if (frameStart >= 0 && frameStart + nFft <= numSamples) // an interior frame: no padding to look up
        for (int k = 0; k < nFft; ++k)
            fft_->input()[k] = static_cast<double> (samples[frameStart + k]) * window_[static_cast<std::size_t> (k)];
    else
        for (int k = 0; k < nFft; ++k)
        {
            int64_t index = frameStart + k;
            double value = 0.0;
            if (index >= 0 && index < numSamples)
                value = samples[index];
            else if (settings_.padMode == engine::FrontendSettings::PadMode::reflect)
            {
                index = index < 0 ? -index : 2 * static_cast<int64_t> (numSamples) - 2 - index;
                if (index >= 0 && index < numSamples)
                    value = samples[index];
            }
            fft_->input()[k] = value * window_[static_cast<std::size_t> (k)];
        }
    fft_->transform();
    ++framesComputed_;
    const int numFreqs = settings_.numFreqs();
    const double power = settings_.power;
    if (power == 2.0)
        for (int f = 0; f < numFreqs; ++f)
            spectrum_[static_cast<std::size_t> (f)] = fft_->power (f);
    else
        for (int f = 0; f < numFreqs; ++f)
        {
            const double re = fft_->re (f), im = fft_->im (f);
            const double magnitude = std::sqrt (re * re + im * im);
            spectrum_[static_cast<std::size_t> (f)] = power == 1.0 ? magnitude : std::pow (magnitude, power);
        }
    filterbank_.apply (spectrum_.data(), frameMel_.data());
    // As torchaudio: the mel spectrogram kept in float32, its log taken in float32 (on the engine's
    // vector kernels, as PyTorch takes it on its own).
    const auto nMels = static_cast<int64_t> (frameMel_.size());
    const float dbMultiplier = static_cast<float> (settings_.dbMultiplier), logOffset = static_cast<float> (settings_.logOffset);
    float largest = -std::numeric_limits<float>::infinity();
    switch (settings_.logType)
    {
        case engine::FrontendSettings::LogType::db:
            for (int64_t m = 0; m < nMels; ++m)
                logMel[m] = std::max (static_cast<float> (frameMel_[static_cast<std::size_t> (m)]), 1e-10f);
            kernels_.log10 (logMel, logMel, nMels);
            for (int64_t m = 0; m < nMels; ++m)
                logMel[m] *= dbMultiplier;
            if (topDbFloor())
                for (int64_t m = 0; m < nMels; ++m)
                    largest = std::max (largest, logMel[m]);
            break;
        case engine::FrontendSettings::LogType::log:
            for (int64_t m = 0; m < nMels; ++m)
                logMel[m] = static_cast<float> (frameMel_[static_cast<std::size_t> (m)]) + logOffset;
            kernels_.log (logMel, logMel, nMels);
            break;
        case engine::FrontendSettings::LogType::none:
            for (int64_t m = 0; m < nMels; ++m)
                logMel[m] = static_cast<float> (frameMel_[static_cast<std::size_t> (m)]);
            break;
    }
    return largest;
}

void LogMelSpectrogram::compute (const float* samples, int numSamples, float* features)
{
    computeFrames (samples, numSamples, 0, false, features);
}

void LogMelSpectrogram::computeWindow (const float* samples, int numSamples, int64_t absoluteStart, float* features)
{
    computeFrames (samples, numSamples, absoluteStart, true, features);
}

void LogMelSpectrogram::computeFrames (const float* samples, int numSamples, int64_t absoluteStart, bool useCache, float* features)
{
    const int numFrames = settings_.numFrames (numSamples);
    const int nMels = settings_.nMels;
    if (logMel_.size() < static_cast<std::size_t> (numFrames) * static_cast<std::size_t> (nMels))
        logMel_.resize (static_cast<std::size_t> (numFrames) * static_cast<std::size_t> (nMels)); // compute() of a clip longer than a window
    const int pad = settings_.center ? settings_.nFft / 2 : 0;
    const auto numSlots = static_cast<int64_t> (cacheKeys_.size());
    float windowMax = -std::numeric_limits<float>::infinity();
    for (int t = 0; t < numFrames; ++t)
    {
        const int64_t start = static_cast<int64_t> (t) * settings_.hopLength - pad;
        const bool interior = start >= 0 && start + settings_.nFft <= numSamples;
        const float* logMel = frame_.data();
        float frameMax;
        if (useCache && interior)
        {
            const int64_t key = absoluteStart + start;
            const auto slot = static_cast<std::size_t> (((key / settings_.hopLength) % numSlots + numSlots) % numSlots);
            float* cached = cacheLogMel_.data() + slot * static_cast<std::size_t> (nMels);
            if (cacheKeys_[slot] != key)
            {
                cacheMax_[slot] = logMelFrame (samples, numSamples, start, cached);
                cacheKeys_[slot] = key;
            }
            logMel = cached;
            frameMax = cacheMax_[slot];
        }
        else
            frameMax = logMelFrame (samples, numSamples, start, frame_.data());
        windowMax = std::max (windowMax, frameMax);
        for (int m = 0; m < nMels; ++m)
            logMel_[static_cast<std::size_t> (m) * static_cast<std::size_t> (numFrames) + static_cast<std::size_t> (t)] = logMel[m];
    }
    finish (numFrames, windowMax, features);
}

void LogMelSpectrogram::finish (int numFrames, float windowMax, float* features) const
{
    const int nMels = settings_.nMels;
    // AmplitudeToDB's top_db: nothing below the window's maximum less top_db (no floor: -inf).
    float floor = -std::numeric_limits<float>::infinity();
    if (topDbFloor() && numFrames > 0)
        floor = windowMax - static_cast<float> (*settings_.topDb);
    const bool perBandMean = settings_.mean.size() > 1, perBandStd = settings_.std.size() > 1;
    for (int m = 0; m < nMels; ++m)
    {
        const float mean = settings_.mean[perBandMean ? static_cast<std::size_t> (m) : 0];
        const float std = settings_.std[perBandStd ? static_cast<std::size_t> (m) : 0];
        const std::size_t row = static_cast<std::size_t> (m) * static_cast<std::size_t> (numFrames);
        for (std::size_t i = row; i < row + static_cast<std::size_t> (numFrames); ++i)
            features[i] = (std::max (logMel_[i], floor) - mean) / std;
    }
}

} // namespace sonotype::dsp
