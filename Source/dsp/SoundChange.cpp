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
    straddle_ = (size / 2 + hop_ - 1) / hop_;
    ringFrames_ = 2 * (straddle_ + kSideFrames) + 4;
    sums_.assign (static_cast<std::size_t> (ringFrames_ * kNumBands), 0.0);
    restart();
}

void SoundChange::restart()
{
    samples_.assign (static_cast<std::size_t> (fft_.size() / 2), 0.0f); // frame 0 is centred on the first sample
    samplesStart_ = -static_cast<int64_t> (fft_.size() / 2);
    samplesIn_ = 0;
    frames_ = 0;
    std::fill (sums_.begin(), sums_.begin() + kNumBands, 0.0); // frame 0: nothing summed yet
    novelty_.clear();
}

void SoundChange::push (const float* samples, std::size_t numSamples)
{
    const auto old = samples_.size();
    samples_.insert (samples_.end(), samples, samples + numSamples);
    for (auto i = old; i < samples_.size(); ++i)
        if (! std::isfinite (samples_[i]))
            samples_[i] = 0.0f;
    samplesIn_ += static_cast<int64_t> (numSamples);
    const int64_t half = fft_.size() / 2;
    while (frames_ * hop_ + half <= samplesIn_)
    {
        analyzeFrame();
        decide (false); // frame by frame: the ring of running sums holds a second of frames
    }
}

void SoundChange::finish()
{
    while (frames_ * hop_ < samplesIn_)
    {
        analyzeFrame();
        decide (false);
    }
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
    // The running sums after this frame: those before it plus its band levels (as floats: the curve is
    // the same for any split of the stream, and any rate of the same sound gives close levels).
    const double* before = sums_.data() + (frames_ % ringFrames_) * kNumBands;
    double* after = sums_.data() + ((frames_ + 1) % ringFrames_) * kNumBands;
    for (int b = 0; b < kNumBands; ++b)
    {
        double energy = 0.0;
        for (int f = bandEdges_[static_cast<std::size_t> (b)]; f < bandEdges_[static_cast<std::size_t> (b + 1)]; ++f)
            energy += fft_.power (f);
        after[b] = before[b] + static_cast<float> (std::max (kFloorDb, 10.0 * std::log10 (energy + 1e-30)));
    }
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
    const auto sumsAt = [this] (int64_t frame) { return sums_.data() + (frame % ringFrames_) * kNumBands; };
    for (auto t = static_cast<int64_t> (novelty_.size()); t < frames_ && (final || t + straddle_ + kSideFrames <= frames_); ++t)
    {
        const int64_t leftStart = std::max<int64_t> (0, t - straddle_ - kSideFrames), leftEnd = t - straddle_ + 1;
        const int64_t rightStart = t + straddle_, rightEnd = std::min<int64_t> (frames_, t + straddle_ + kSideFrames);
        const auto left = leftEnd - leftStart, right = rightEnd - rightStart;
        float value = 0.0f;
        if (left >= kMinSideFrames && right >= kMinSideFrames)
        {
            const double *a = sumsAt (leftStart), *b = sumsAt (leftEnd), *c = sumsAt (rightStart), *d = sumsAt (rightEnd);
            double distance = 0.0;
            for (int band = 0; band < kNumBands; ++band)
            {
                const double step = (d[band] - c[band]) / static_cast<double> (right) - (b[band] - a[band]) / static_cast<double> (left);
                distance += step * step;
            }
            value = static_cast<float> (std::sqrt (distance));
        }
        novelty_.push_back (value);
    }
}

} // namespace sonotype::dsp
