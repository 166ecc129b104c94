#include "dsp/HitSignature.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sonotype::dsp
{
namespace
{
    constexpr double kLowestHz = 40.0, kHighestHz = 7000.0, kTaperSeconds = 0.0005;

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
    // Band b spans [lowest x r^b, lowest x r^(b+1)) Hz in bins, each at least one bin (the low
    // bands of a short span share little: a 7 ms attack resolves about 140 Hz).
    const int size = fft_.size();
    const double top = std::min (kHighestHz, 0.45 * sampleRate), ratio = std::pow (top / kLowestHz, 1.0 / kBands);
    for (int b = 0; b <= kBands; ++b)
    {
        const auto bin = static_cast<int> (std::lround (kLowestHz * std::pow (ratio, b) * size / sampleRate));
        const int previous = b == 0 ? 0 : bandEdges_[static_cast<std::size_t> (b - 1)] + 1;
        bandEdges_[static_cast<std::size_t> (b)] = std::clamp (std::max (bin, previous), 0, size / 2 + 1);
    }
}

void HitSignature::bandPowers (const float* samples, int count, std::array<double, kBands>& bands) noexcept
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
    for (int b = 0; b < kBands; ++b)
    {
        double sum = 0.0;
        for (int f = bandEdges_[static_cast<std::size_t> (b)]; f < bandEdges_[static_cast<std::size_t> (b + 1)]; ++f)
            sum += fft_.power (f);
        bands[static_cast<std::size_t> (b)] = sum / count; // per sample: the two spans differ in length
    }
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
    for (int b = 0; b < kBands; ++b)
    {
        auto& band = attack_[static_cast<std::size_t> (b)];
        band = std::max (band - backgroundPower_[static_cast<std::size_t> (b)], 1e-3 * band);
        total += band;
    }
    const double totalDb = decibels (total);
    for (int b = 0; b < kBands; ++b)
        out[static_cast<std::size_t> (b)] = static_cast<float> (std::max (decibels (attack_[static_cast<std::size_t> (b)]) - totalDb, kFloorDb));

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
        parts[static_cast<std::size_t> (s)] = std::max (power - backgroundPower, 1e-3 * power);
        partsMean += parts[static_cast<std::size_t> (s)] / kSegments;
    }
    for (int s = 0; s < kSegments; ++s)
        out[static_cast<std::size_t> (kBands + s)] =
            static_cast<float> (std::max (decibels (parts[static_cast<std::size_t> (s)]) - decibels (partsMean), kSegmentFloorDb));

    // The level: the new energy per sample over the attack (Parseval: the bins' power over the
    // FFT's size), in dB of full-scale power.
    const double level = total * 2.0 / fft_.size();
    out[kSize - 1] = static_cast<float> (std::max (decibels (level), kSilentDb));
}

} // namespace sonotype::dsp
