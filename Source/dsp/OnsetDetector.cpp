#include "dsp/OnsetDetector.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sonotype::dsp
{
namespace
{

    // Where in its frame an attack peaks the flux, as a fraction of the frame before the frame's
    // end (measured on clicks and drum hits, see the detector's tests).
    constexpr double kPeakPosition = 0.5;
    constexpr double kCompression = 100.0; // log(1 + 100 |X|): quiet partials count, loud ones do not swamp
    // The low band: a sine kick, a tom or a bass note fills a handful of bins below this, so its share
    // of the whole spectrum's flux is a few hundredths of a hat's; measured on its own, it is large.
    constexpr double kLowBandHz = 300.0;
    // The low band's threshold, in units of its own long-term level, is this times the broadband one
    // (the low band's flux is spikier: pitch glides and beating tails move its energy between bins).
    constexpr double kLowThresholdScale = 2.0;
    // ... and its flux must be at least this (the mean log magnitude of the band up by 0.7, about twice
    // the magnitude): a decaying low tail wobbles by less, a new low attack rises by more.
    constexpr double kLowMinimumFlux = 0.7;

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
    fft_ = std::make_unique<RealFft> (frameSize_);
    window_.resize (static_cast<std::size_t> (frameSize_));
    double sum = 0.0;
    for (int i = 0; i < frameSize_; ++i)
        sum += window_[static_cast<std::size_t> (i)] = 0.5 - 0.5 * std::cos (2.0 * M_PI * i / frameSize_);
    for (auto& w : window_)
        w *= 2.0 / sum; // a full-scale sinusoid has magnitude 1 in its bin
    buffer_.assign (static_cast<std::size_t> (frameSize_), 0.0f);
    spectra_.assign (3, std::vector<float> (static_cast<std::size_t> (frameSize_ / 2 + 1), 0.0f));
    lowBins_ = std::min (frameSize_ / 2, static_cast<int> (std::floor (kLowBandHz * frameSize_ / sampleRate))) + 1; // DC up to 300 Hz
    // A frame is decided with the frames up to postMax_ after it and looks back lookBack() frames;
    // the newest frame may be one more ahead (analysed before the decision).
    const auto recent = static_cast<std::size_t> (lookBack() + postMax_ + 2);
    broadband_.reset (recent, static_cast<std::size_t> (longTerm_));
    low_.reset (recent, static_cast<std::size_t> (longTerm_));
    rms_.assign (recent, 0.0);
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
        fft_->input()[i] = x * window_[static_cast<std::size_t> (i)];
    }
    rms_[static_cast<std::size_t> (frames_) % rms_.size()] = std::sqrt (energy / frameSize_);
    fft_->transform();
    // spectra_ holds frames [t-3, t-2, t-1]; rotated to [t-2, t-1, (storage for t)].
    std::rotate (spectra_.begin(), spectra_.begin() + 1, spectra_.end());
    auto& current = spectra_[2];
    const auto& lagged = spectra_[0];
    double flux = 0.0, lowFlux = 0.0;
    for (std::size_t k = 0; k < current.size(); ++k)
    {
        const double magnitude = std::hypot (fft_->re (k), fft_->im (k));
        current[k] = static_cast<float> (std::log1p (kCompression * magnitude));
        const double increase = std::max (0.0, static_cast<double> (current[k]) - (frames_ >= 2 ? lagged[k] : current[k]));
        flux += increase;
        if (k < static_cast<std::size_t> (lowBins_))
            lowFlux += increase;
    }
    broadband_.add (frames_, flux / static_cast<double> (current.size()));
    low_.add (frames_, lowFlux / static_cast<double> (lowBins_));
    ++frames_;
}

void OnsetDetector::Band::reset (std::size_t recentFrames, std::size_t longTermFrames)
{
    recent.assign (recentFrames, 0.0);
    longTerm.assign (longTermFrames, 0.0);
    longTermSum = 0.0;
}

void OnsetDetector::Band::add (int64_t frame, double flux)
{
    const auto index = static_cast<std::size_t> (frame);
    recent[index % recent.size()] = flux;
    auto& slot = longTerm[index % longTerm.size()];
    longTermSum += flux - slot; // the slot holds the frame longTerm.size() before, or 0 while the window fills
    slot = flux;
}

double OnsetDetector::Band::at (int64_t frame) const noexcept
{
    return recent[static_cast<std::size_t> (frame) % recent.size()];
}

double OnsetDetector::Band::level (int64_t frames) const noexcept
{
    return longTermSum / static_cast<double> (std::clamp<int64_t> (frames, 1, static_cast<int64_t> (longTerm.size())));
}

int64_t OnsetDetector::lookBack() const noexcept
{
    return std::max (preMax_, preAverage_);
}

bool OnsetDetector::isOnset (const Band& band, double level, int64_t t, int64_t last, double threshold, double minimum) const
{
    const double value = band.at (t);
    if (! (value > minimum))
        return false;
    for (int64_t f = std::max<int64_t> (0, t - preMax_); f < t; ++f)
        if (! (value > band.at (f)))
            return false;
    for (int64_t f = t + 1; f <= last; ++f)
        if (! (value >= band.at (f)))
            return false;
    double mean = 0.0;
    int64_t count = 0;
    for (int64_t f = std::max<int64_t> (0, t - preAverage_); f < t; ++f, ++count)
        mean += band.at (f);
    mean = count > 0 ? mean / static_cast<double> (count) : 0.0;
    return value >= mean + threshold * level;
}

void OnsetDetector::decide (std::vector<int64_t>& onsets, bool final)
{
    const double broadbandLevel = broadband_.level (frames_), lowLevel = low_.level (frames_);
    while (decided_ < frames_ && (final || decided_ + postMax_ < frames_))
    {
        const int64_t t = decided_++;
        const int64_t last = std::min (frames_ - 1, t + postMax_);
        double loudest = 0.0;
        for (int64_t f = t; f <= last; ++f)
            loudest = std::max (loudest, rms_[static_cast<std::size_t> (f) % rms_.size()]);
        // A hit is a peak of the whole spectrum's flux or of the low band's, each against its own level.
        if (loudest >= silence_ && t - lastOnsetFrame_ >= std::max (minGap_, 1)
            && (isOnset (broadband_, broadbandLevel, t, last, settings_.threshold, 0.0)
                || isOnset (low_, lowLevel, t, last, kLowThresholdScale * settings_.threshold, kLowMinimumFlux)))
        {
            lastOnsetFrame_ = t;
            // Frame t ends at input sample (t + 1) * hop (the stream is preceded by zeros).
            const auto onset = (t + 1) * static_cast<int64_t> (hop_) - static_cast<int64_t> (std::lround (kPeakPosition * frameSize_));
            onsets.push_back (std::max<int64_t> (0, onset));
        }
    }
}

} // namespace sonotype::dsp
