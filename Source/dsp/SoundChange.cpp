#include "dsp/SoundChange.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sonotype::dsp
{
namespace
{
    constexpr double kLowestHz = 40.0, kHighestHz = 16000.0, kFloorDb = -100.0;
    constexpr int kMinSideFrames = 5;

    /** The frame: a power of two of at least 32 ms. Throws for a rate out of range. */
    int frameSizeAt (double sampleRate)
    {
        if (! (sampleRate >= 1000.0 && sampleRate <= 768000.0))
            throw std::invalid_argument ("sound change: the sample rate must be 1 kHz - 768 kHz, not " + std::to_string (sampleRate));
        int size = 64;
        while (size < 0.032 * sampleRate)
            size *= 2;
        return size;
    }
} // namespace

SoundChange::SoundChange (double sampleRate)
    : hop_ (std::max (1, static_cast<int> (std::lround (kFrameSeconds * sampleRate)))),
      fft_ (frameSizeAt (sampleRate))
{
    const int size = fft_.size();
    window_.resize (static_cast<std::size_t> (size));
    for (int i = 0; i < size; ++i)
        window_[static_cast<std::size_t> (i)] = 0.5 - 0.5 * std::cos (2.0 * M_PI * i / size);
    // Band b spans [lowest x r^b, lowest x r^(b+1)) Hz, in FFT bins; every band at least one bin.
    const double top = std::min (kHighestHz, sampleRate / 2.0), ratio = std::pow (top / kLowestHz, 1.0 / kNumBands);
    bandEdges_.resize (kNumBands + 1);
    for (int b = 0; b <= kNumBands; ++b)
    {
        const auto bin = static_cast<int> (std::lround (kLowestHz * std::pow (ratio, b) * size / sampleRate));
        bandEdges_[static_cast<std::size_t> (b)] = std::clamp (std::max (bin, b == 0 ? 1 : bandEdges_[static_cast<std::size_t> (b - 1)] + 1), 1, size / 2 + 1);
    }
    restart();
}

void SoundChange::restart()
{
    samples_.assign (static_cast<std::size_t> (fft_.size() / 2), 0.0f); // frame 0 is centred on the first sample
    samplesStart_ = -static_cast<int64_t> (fft_.size() / 2);
    samplesIn_ = 0;
    frames_ = 0;
    levels_.clear();
    levelsStart_ = 0;
    novelty_.clear();
}

void SoundChange::push (const float* samples, std::size_t numSamples)
{
    for (std::size_t i = 0; i < numSamples; ++i)
        samples_.push_back (std::isfinite (samples[i]) ? samples[i] : 0.0f);
    samplesIn_ += static_cast<int64_t> (numSamples);
    const int64_t half = fft_.size() / 2;
    while (frames_ * hop_ + half <= samplesIn_)
        analyzeFrame();
    decide (false);
}

void SoundChange::finish()
{
    while (frames_ * hop_ < samplesIn_)
        analyzeFrame();
    decide (true);
}

void SoundChange::analyzeFrame()
{
    // Frame frames_ covers stream samples [frames_ x hop - size / 2, + size): zeros past the end.
    const int size = fft_.size();
    const int64_t first = frames_ * hop_ - size / 2;
    double* input = fft_.input();
    for (int i = 0; i < size; ++i)
    {
        const int64_t at = first + i - samplesStart_;
        const bool inside = at >= 0 && at < static_cast<int64_t> (samples_.size());
        input[i] = (inside ? static_cast<double> (samples_[static_cast<std::size_t> (at)]) : 0.0) * window_[static_cast<std::size_t> (i)];
    }
    fft_.transform();
    std::vector<float> levels (kNumBands);
    for (int b = 0; b < kNumBands; ++b)
    {
        double energy = 0.0;
        for (int f = bandEdges_[static_cast<std::size_t> (b)]; f < bandEdges_[static_cast<std::size_t> (b + 1)]; ++f)
            energy += fft_.power (f);
        levels[static_cast<std::size_t> (b)] = static_cast<float> (std::max (kFloorDb, 10.0 * std::log10 (energy + 1e-30)));
    }
    levels_.push_back (std::move (levels));
    ++frames_;
    // The next frame starts hop samples later: samples before it are no longer needed.
    const int64_t drop = std::min<int64_t> (frames_ * hop_ - size / 2 - samplesStart_, static_cast<int64_t> (samples_.size()));
    if (drop > 4 * size)
    {
        samples_.erase (samples_.begin(), samples_.begin() + static_cast<std::ptrdiff_t> (drop));
        samplesStart_ += drop;
    }
}

void SoundChange::decide (bool final)
{
    // Frame t is decided once the half-second after it is in (or the stream has ended). The frames
    // that straddle t (centred less than half a frame from it) belong to neither side: in a log
    // spectrum a frame holding a little of a broadband sound looks like that sound, which would pull
    // the peak half a frame towards the quieter side.
    const int64_t straddle = (fft_.size() / 2 + hop_ - 1) / hop_;
    for (auto t = static_cast<int64_t> (novelty_.size()); t < frames_ && (final || t + straddle + kSideFrames <= frames_); ++t)
    {
        const int64_t leftStart = std::max<int64_t> (0, t - straddle - kSideFrames), leftEnd = t - straddle + 1;
        const int64_t rightStart = t + straddle, rightEnd = std::min<int64_t> (frames_, t + straddle + kSideFrames);
        const auto left = leftEnd - leftStart, right = rightEnd - rightStart;
        float value = 0.0f;
        if (left >= kMinSideFrames && right >= kMinSideFrames)
        {
            double distance = 0.0;
            for (int b = 0; b < kNumBands; ++b)
            {
                double before = 0.0, after = 0.0;
                for (auto f = leftStart; f < leftEnd; ++f)
                    before += levels_[static_cast<std::size_t> (f - levelsStart_)][static_cast<std::size_t> (b)];
                for (auto f = rightStart; f < rightEnd; ++f)
                    after += levels_[static_cast<std::size_t> (f - levelsStart_)][static_cast<std::size_t> (b)];
                const double step = after / static_cast<double> (right) - before / static_cast<double> (left);
                distance += step * step;
            }
            value = static_cast<float> (std::sqrt (distance));
        }
        novelty_.push_back (value);
        // Levels older than the next frame's left side are no longer needed.
        while (levelsStart_ < t + 1 - straddle - kSideFrames)
        {
            levels_.pop_front();
            ++levelsStart_;
        }
    }
}

} // namespace sonotype::dsp
