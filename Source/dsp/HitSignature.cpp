#include "dsp/HitSignature.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace sonotype::dsp
{
namespace
{
    constexpr double kLowestHz = 40.0, kHighestHz = 7000.0, kAirHz = 16000.0, kTaperSeconds = 0.0005;
    constexpr double kOverSubtraction = 2.0; // the background taken off twice over: a 5 ms estimate of a noisy tail wavers

    int samplesOf (double seconds, double sampleRate) { return std::max (1, static_cast<int> (std::lround (seconds * sampleRate))); }

    double decibels (double power) noexcept { return 10.0 * std::log10 (std::max (power, 1e-30)); }

    int fftSizeFor (double sampleRate, double afterSeconds)
    {
        if (! (sampleRate >= 1000.0 && sampleRate <= 768000.0))
            throw std::invalid_argument ("hit signature: the sample rate must be 1 kHz - 768 kHz, not " + std::to_string (sampleRate));
        if (! (afterSeconds > 0.001 && afterSeconds <= 0.1))
            throw std::invalid_argument ("hit signature: the span after the onset must be over 1 ms and at most 0.1 s, not "
                                         + std::to_string (afterSeconds));
        // Twice the longer of the two spans, zero-padded: bands of a few tens of Hz still get bins.
        const int longest = std::max (samplesOf (HitSignature::kPreSeconds + afterSeconds, sampleRate),
                                      samplesOf (HitSignature::kBackgroundSeconds, sampleRate));
        int size = 64;
        while (size < 2 * longest)
            size *= 2;
        return size;
    }
} // namespace

HitSignature::HitSignature (double sampleRate, double afterSeconds)
    : afterSeconds_ (afterSeconds), background_ (0), pre_ (0), after_ (0), taper_ (0), fft_ (fftSizeFor (sampleRate, afterSeconds))
{
    background_ = samplesOf (kBackgroundSeconds, sampleRate);
    pre_ = samplesOf (kPreSeconds, sampleRate);
    after_ = samplesOf (afterSeconds, sampleRate);
    taper_ = samplesOf (kTaperSeconds, sampleRate);
    // Band b spans [lowest x r^b, lowest x r^(b+1)) Hz; bin f spans (f -+ 1/2) x the bin width.
    const int size = fft_.size();
    const double binHz = sampleRate / size;
    const double top = std::min (kHighestHz, 0.45 * sampleRate), ratio = std::pow (top / kLowestHz, 1.0 / kBands);
    hasAir_ = 0.45 * sampleRate >= kAirHz;
    for (int b = 0; b < (hasAir_ ? kBands + 1 : kBands); ++b)
    {
        const double low = b == kAir ? kHighestHz : kLowestHz * std::pow (ratio, b), high = b == kAir ? kAirHz : low * ratio;
        for (int f = std::max (0, static_cast<int> (std::floor (low / binHz - 0.5))); f <= size / 2 && (f - 0.5) * binHz < high; ++f)
        {
            const double overlap = std::min (high, (f + 0.5) * binHz) - std::max (low, (f - 0.5) * binHz);
            if (overlap > 0.0)
                bandBins_.push_back ({ b, f, overlap / binHz });
        }
    }
}

void HitSignature::bandPowers (const float* samples, int count, std::array<double, kBands + 1>& bands) noexcept
{
    const int size = fft_.size();
    double* input = fft_.input();
    const int taper = std::min (taper_, count / 2);
    for (int i = 0; i < count; ++i)
    {
        double gain = 1.0;
        if (i < taper)
            gain = 0.5 - 0.5 * std::cos (M_PI * (i + 0.5) / taper);
        else if (i >= count - taper)
            gain = 0.5 - 0.5 * std::cos (M_PI * (count - i - 0.5) / taper);
        input[i] = gain * samples[i];
    }
    std::fill (input + count, input + size, 0.0);
    fft_.transform();
    bands.fill (0.0);
    for (const auto& entry : bandBins_)
        bands[static_cast<std::size_t> (entry.band)] += entry.weight * fft_.power (entry.bin);
    for (auto& band : bands)
        band /= count; // per sample: the two spans differ in length
}

void HitSignature::compute (const float* samples, Values& out) noexcept
{
    const float* attack = samples + background_;
    const int attackCount = pre_ + after_;
    bandPowers (samples, background_, backgroundPower_);
    bandPowers (attack, attackCount, attack_);

    // The new energy in each band: the attack's less the background's (never below a thousandth of
    // the attack's, so that a hit on a louder tail still has a shape).
    double total = 0.0;
    for (int b = 0; b <= kBands; ++b)
    {
        auto& band = attack_[static_cast<std::size_t> (b)];
        band = std::max (band - kOverSubtraction * backgroundPower_[static_cast<std::size_t> (b)], 1e-3 * band);
        total += b < kBands ? band : 0.0;
    }
    const double totalDb = decibels (total);
    for (int b = 0; b < kBands; ++b)
        out[static_cast<std::size_t> (b)] = static_cast<float> (std::max (decibels (attack_[static_cast<std::size_t> (b)]) - totalDb, kFloorDb));
    out[kAir] = hasAir_ ? static_cast<float> (std::max (decibels (attack_[kAir]) - totalDb, kFloorDb)) : std::numeric_limits<float>::quiet_NaN();

    // The new energy over the parts of the span after the onset, in the time domain.
    double backgroundPower = 0.0;
    for (int i = 0; i < background_; ++i)
        backgroundPower += static_cast<double> (samples[i]) * samples[i];
    backgroundPower /= background_;
    std::array<double, kSegments> parts {};
    double partsMean = 0.0;
    for (int s = 0; s < kSegments; ++s)
    {
        const int from = pre_ + after_ * s / kSegments, to = pre_ + after_ * (s + 1) / kSegments;
        double sum = 0.0;
        for (int i = from; i < to; ++i)
            sum += static_cast<double> (attack[i]) * attack[i];
        const double power = sum / std::max (1, to - from);
        parts[static_cast<std::size_t> (s)] = std::max (power - kOverSubtraction * backgroundPower, 1e-3 * power);
        partsMean += parts[static_cast<std::size_t> (s)] / kSegments;
    }
    for (int s = 0; s < kSegments; ++s)
        out[static_cast<std::size_t> (kSegments0 + s)] =
            static_cast<float> (std::max (decibels (parts[static_cast<std::size_t> (s)]) - decibels (partsMean), kSegmentFloorDb));

    // The level: the new energy per sample over the attack (Parseval: the bins' power over the
    // FFT's size), in dB of full-scale power.
    const double level = total * 2.0 / fft_.size();
    out[kSize - 1] = static_cast<float> (std::max (decibels (level), kSilentDb));
}

} // namespace sonotype::dsp
