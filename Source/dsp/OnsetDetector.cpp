#include "dsp/OnsetDetector.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>

namespace sonotype::dsp
{
namespace
{
    std::mutex plannerMutex; // FFTW's planner is not thread-safe

    // Where in its frame an attack peaks the flux, as a fraction of the frame before the frame's
    // end (measured on clicks and drum hits, see the detector's tests).
    constexpr double kPeakPosition = 0.5;
    constexpr double kCompression = 100.0; // log(1 + 100 |X|): quiet partials count, loud ones do not swamp

    /** The frame (a power of two of at least 20 ms), the hop (5 ms) and the look-ahead in frames (10 ms) at a rate. */
    int frameSizeAt (double sampleRate) noexcept
    {
        int size = 64;
        while (size < 0.02 * sampleRate)
            size *= 2;
        return size;
    }
    int hopAt (double sampleRate) noexcept { return std::max (1, static_cast<int> (std::lround (0.005 * sampleRate))); }
    int postMaxAt (double sampleRate) noexcept { return std::max (1, static_cast<int> (std::lround (0.010 * (sampleRate / hopAt (sampleRate))))); }
    int64_t latencyOf (int postMax, int hop, int frameSize) noexcept
    {
        return static_cast<int64_t> (postMax) * hop + static_cast<int64_t> (std::lround (kPeakPosition * frameSize));
    }
} // namespace

struct OnsetDetector::Fft
{
    explicit Fft (int size)
        : input (fftw_alloc_real (static_cast<std::size_t> (size))), output (fftw_alloc_complex (static_cast<std::size_t> (size / 2 + 1)))
    {
        const std::lock_guard<std::mutex> lock (plannerMutex);
        plan = fftw_plan_dft_r2c_1d (size, input, output, FFTW_ESTIMATE);
    }
    ~Fft()
    {
        const std::lock_guard<std::mutex> lock (plannerMutex);
        fftw_destroy_plan (plan);
        fftw_free (input);
        fftw_free (output);
    }
    double* input;
    fftw_complex* output;
    fftw_plan plan;
};

void OnsetDetector::checkSettings (const OnsetSettings& settings)
{
    if (! (settings.threshold >= 0.0 && settings.threshold <= 100.0))
        throw std::invalid_argument ("onsets: the threshold must be between 0 and 100");
    if (! (settings.minGapSeconds >= 0.0 && settings.minGapSeconds <= 10.0))
        throw std::invalid_argument ("onsets: the minimum gap must be between 0 and 10 seconds");
    if (! (settings.silenceDb >= -200.0 && settings.silenceDb <= 0.0))
        throw std::invalid_argument ("onsets: the silence level must be between -200 and 0 dBFS");
}

OnsetDetector::OnsetDetector (double sampleRate, OnsetSettings settings) : settings_ (settings)
{
    if (! (sampleRate >= 1000.0 && sampleRate <= 768000.0))
        throw std::invalid_argument ("onsets: the sample rate must be between 1 kHz and 768 kHz, not " + std::to_string (sampleRate));
    checkSettings (settings);
    frameSize_ = frameSizeAt (sampleRate);
    hop_ = hopAt (sampleRate);
    const double frameRate = sampleRate / hop_;
    preMax_ = static_cast<int> (std::lround (0.030 * frameRate));
    postMax_ = postMaxAt (sampleRate);
    preAverage_ = static_cast<int> (std::lround (0.100 * frameRate));
    longTerm_ = static_cast<int> (std::lround (2.0 * frameRate));
    minGap_ = static_cast<int> (std::ceil (settings.minGapSeconds * frameRate - 1e-9)); // at least the gap asked for (9 frames of 221 samples at 44.1 kHz are 45 ms)
    silence_ = std::pow (10.0, settings.silenceDb / 20.0);
    fft_ = std::make_unique<Fft> (frameSize_);
    window_.resize (static_cast<std::size_t> (frameSize_));
    double sum = 0.0;
    for (int i = 0; i < frameSize_; ++i)
        sum += window_[static_cast<std::size_t> (i)] = 0.5 - 0.5 * std::cos (2.0 * M_PI * i / frameSize_);
    for (auto& w : window_)
        w *= 2.0 / sum; // a full-scale sinusoid has magnitude 1 in its bin
    buffer_.assign (static_cast<std::size_t> (frameSize_), 0.0f);
    spectra_.assign (3, std::vector<float> (static_cast<std::size_t> (frameSize_ / 2 + 1), 0.0f));
}

OnsetDetector::~OnsetDetector() = default;

int64_t OnsetDetector::latencySamples() const noexcept
{
    return latencyOf (postMax_, hop_, frameSize_);
}

int64_t OnsetDetector::latencySamples (double sampleRate) noexcept
{
    return latencyOf (postMaxAt (sampleRate), hopAt (sampleRate), frameSizeAt (sampleRate));
}

void OnsetDetector::push (const float* samples, std::size_t numSamples, std::vector<int64_t>& onsets)
{
    std::size_t done = 0;
    while (done < numSamples)
    {
        // Slide the frame by what fits before the next hop.
        const auto take = std::min (numSamples - done, static_cast<std::size_t> (hop_) - filled_);
        std::move (buffer_.begin() + static_cast<std::ptrdiff_t> (take), buffer_.end(), buffer_.begin());
        for (std::size_t i = 0; i < take; ++i)
        {
            const float x = samples[done + i];
            buffer_[buffer_.size() - take + i] = std::isfinite (x) ? x : 0.0f;
        }
        done += take;
        filled_ += take;
        if (filled_ == static_cast<std::size_t> (hop_))
        {
            filled_ = 0;
            analyzeFrame();
            decide (onsets, false);
        }
    }
}

void OnsetDetector::finish (std::vector<int64_t>& onsets)
{
    // The frames the look-ahead still waits for are decided on what there is (no silence is made
    // up after the end: an abrupt end would look like an attack).
    decide (onsets, true);
}

void OnsetDetector::analyzeFrame()
{
    double energy = 0.0;
    for (int i = 0; i < frameSize_; ++i)
    {
        const double x = buffer_[static_cast<std::size_t> (i)];
        energy += x * x;
        fft_->input[i] = x * window_[static_cast<std::size_t> (i)];
    }
    rms_.push_back (std::sqrt (energy / frameSize_));
    fftw_execute (fft_->plan);
    // spectra_ holds frames [t-3, t-2, t-1]; rotated to [t-2, t-1, (storage for t)].
    std::rotate (spectra_.begin(), spectra_.begin() + 1, spectra_.end());
    auto& current = spectra_[2];
    const auto& lagged = spectra_[0];
    double flux = 0.0;
    for (std::size_t k = 0; k < current.size(); ++k)
    {
        const double magnitude = std::hypot (fft_->output[k][0], fft_->output[k][1]);
        current[k] = static_cast<float> (std::log1p (kCompression * magnitude));
        flux += std::max (0.0, static_cast<double> (current[k]) - (frames_ >= 2 ? lagged[k] : current[k]));
    }
    flux /= static_cast<double> (current.size());
    flux_.push_back (flux);
    longTermWindow_.push_back (flux);
    longTermSum_ += flux;
    if (longTermWindow_.size() > static_cast<std::size_t> (longTerm_))
    {
        longTermSum_ -= longTermWindow_.front();
        longTermWindow_.pop_front();
    }
    ++frames_;
}

void OnsetDetector::decide (std::vector<int64_t>& onsets, bool final)
{
    const int64_t lookBack = std::max (preMax_, preAverage_);
    const double level = longTermSum_ / static_cast<double> (std::max<std::size_t> (longTermWindow_.size(), 1));
    while (decided_ < frames_ && (final || decided_ + postMax_ < frames_))
    {
        const int64_t t = decided_++;
        const auto at = [&] (int64_t frame) { return flux_[static_cast<std::size_t> (frame - fluxStart_)]; };
        const double value = at (t);
        double loudest = 0.0;
        for (int64_t f = t; f <= std::min (frames_ - 1, t + postMax_); ++f)
            loudest = std::max (loudest, rms_[static_cast<std::size_t> (f - fluxStart_)]);
        bool peak = value > 0.0 && loudest >= silence_;
        for (int64_t f = std::max (fluxStart_, t - preMax_); peak && f < t; ++f)
            peak = value > at (f);
        for (int64_t f = t + 1; peak && f <= std::min (frames_ - 1, t + postMax_); ++f)
            peak = value >= at (f);
        if (peak)
        {
            double mean = 0.0;
            int64_t count = 0;
            for (int64_t f = std::max (fluxStart_, t - preAverage_); f < t; ++f, ++count)
                mean += at (f);
            mean = count > 0 ? mean / static_cast<double> (count) : 0.0;
            if (value >= mean + settings_.threshold * level && t - lastOnsetFrame_ >= std::max (minGap_, 1))
            {
                lastOnsetFrame_ = t;
                // Frame t ends at input sample (t + 1) * hop (the stream is preceded by zeros).
                const auto onset = (t + 1) * static_cast<int64_t> (hop_) - static_cast<int64_t> (std::lround (kPeakPosition * frameSize_));
                onsets.push_back (std::max<int64_t> (0, onset));
            }
        }
        while (fluxStart_ < decided_ - lookBack)
        {
            flux_.pop_front();
            rms_.pop_front();
            ++fluxStart_;
        }
    }
}

} // namespace sonotype::dsp
