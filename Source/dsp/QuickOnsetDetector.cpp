#include "dsp/QuickOnsetDetector.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sonotype::dsp
{
namespace
{
    constexpr double kLatencySeconds = 0.005; // the promise: under the 6 ms the hit classifier reads anyway
    constexpr double kBlockSeconds = 0.0005;
    constexpr double kWindowSeconds = 0.002;    // the recent peak's span
    constexpr double kReferenceSeconds = 0.040; // the span before it it is compared with (longer than a 40 Hz bass note's period)
    constexpr double kConfirmSeconds = 0.001;   // read after an attack is seen, before the search
    constexpr double kRiseDbPerThreshold = 5.0; // the rise asked for at settings.threshold 1.2: 6 dB
    constexpr double kRelevance = 0.016;        // -36 dB: a band's recent peak under the whole signal's peak of the last 42 ms
    constexpr double kLowHz = 200.0, kKickHz = 150.0, kKickQ = 1.0, kHighHz = 3000.0, kTopHz = 7000.0, kAirHz = 12000.0;
    // The backward search: the level just before an attack is measured over this long, the attack
    // rises to this many times it (in power) at least, and starts where the signal first reaches this
    // fraction of its peak (in amplitude) or this many times the level before, whichever is higher.
    constexpr double kPreSeconds = 0.002;
    // The low band's predictor (of this order: two decaying sines) is fitted over this long before the
    // recent window; a new low note raises the prediction's error over the fit's own error by this
    // much (in power; 19 dB at the default threshold 1.2: measured on the tuning loops, 15 dB let
    // real kits' kick tails through, 21 dB missed kicks over kicks).
    constexpr double kFitSeconds = 0.010;
    constexpr int kOrder = 4;
    constexpr double kResidualDbPerThreshold = 16.0;
    constexpr double kResidualFloor = 1e-4; // the fit's error counts as at least this share of the band's power (-40 dB)
    constexpr double kMinimumRise = 10.0;
    constexpr double kStartFraction = 0.1;
    constexpr double kStartOverNoise = 3.0;

    int64_t samplesOf (double seconds, double sampleRate) noexcept { return std::max<int64_t> (1, std::lround (seconds * sampleRate)); }
    int64_t latencyAt (double sampleRate) noexcept
    {
        // At least what is read after an attack is seen, and the block it was seen in.
        return std::max (samplesOf (kLatencySeconds, sampleRate), samplesOf (kConfirmSeconds, sampleRate) + samplesOf (kBlockSeconds, sampleRate));
    }
    std::size_t powerOfTwoAtLeast (std::size_t n) noexcept
    {
        std::size_t size = 1;
        while (size < n)
            size *= 2;
        return size;
    }
} // namespace

QuickOnsetDetector::Biquad QuickOnsetDetector::Biquad::lowPass (double hz, double sampleRate) noexcept
{
    const double w = 2.0 * M_PI * std::min (hz, 0.45 * sampleRate) / sampleRate, alpha = std::sin (w) / std::sqrt (2.0), c = std::cos (w);
    const double a0 = 1.0 + alpha;
    return { (1.0 - c) / 2.0 / a0, (1.0 - c) / a0, (1.0 - c) / 2.0 / a0, -2.0 * c / a0, (1.0 - alpha) / a0 };
}

QuickOnsetDetector::Biquad QuickOnsetDetector::Biquad::bandPass (double hz, double q, double sampleRate) noexcept
{
    const double w = 2.0 * M_PI * std::min (hz, 0.45 * sampleRate) / sampleRate, alpha = std::sin (w) / (2.0 * q), c = std::cos (w);
    const double a0 = 1.0 + alpha;
    return { alpha / a0, 0.0, -alpha / a0, -2.0 * c / a0, (1.0 - alpha) / a0 };
}

QuickOnsetDetector::Biquad QuickOnsetDetector::Biquad::highPass (double hz, double sampleRate) noexcept
{
    const double w = 2.0 * M_PI * std::min (hz, 0.45 * sampleRate) / sampleRate, alpha = std::sin (w) / std::sqrt (2.0), c = std::cos (w);
    const double a0 = 1.0 + alpha;
    return { (1.0 + c) / 2.0 / a0, -(1.0 + c) / a0, (1.0 + c) / 2.0 / a0, -2.0 * c / a0, (1.0 - alpha) / a0 };
}

double QuickOnsetDetector::Biquad::process (double x) noexcept
{
    // Transposed direct form II; a state that has decayed below any audible level is flushed to
    // zero (denormals would slow the audio thread down after a hit dies away).
    const double y = b0 * x + z1;
    z1 = b1 * x - a1 * y + z2;
    z2 = b2 * x - a2 * y;
    if (std::abs (z1) < 1e-30)
        z1 = 0.0;
    if (std::abs (z2) < 1e-30)
        z2 = 0.0;
    return y;
}

QuickOnsetDetector::QuickOnsetDetector (double sampleRate, OnsetSettings settings) : settings_ (settings)
{
    if (! (sampleRate >= 1000.0 && sampleRate <= 768000.0))
        throw std::invalid_argument ("onsets: the sample rate must be between 1 kHz and 768 kHz, not " + std::to_string (sampleRate));
    OnsetDetector::checkSettings (settings);
    hop_ = static_cast<int> (samplesOf (kBlockSeconds, sampleRate));
    const double blockRate = sampleRate / hop_;
    window_ = static_cast<int> (std::max<int64_t> (1, std::lround (kWindowSeconds * blockRate)));
    reference_ = static_cast<int> (std::max<int64_t> (1, std::lround (kReferenceSeconds * blockRate)));
    confirm_ = samplesOf (kConfirmSeconds, sampleRate);
    latency_ = latencyAt (sampleRate);
    preSamples_ = samplesOf (kPreSeconds, sampleRate);
    gap_ = static_cast<int64_t> (std::ceil (settings.minGapSeconds * sampleRate - 1e-9));
    // Reports are at least a gap, a block and the confirmation apart (one attack is seen at a time).
    spacing_ = std::max ({ gap_, static_cast<int64_t> (hop_), confirm_ + 1 });
    riseRatio_ = std::pow (10.0, kRiseDbPerThreshold * settings.threshold / 20.0);
    residualRise_ = std::pow (10.0, kResidualDbPerThreshold * settings.threshold / 10.0);
    silence_ = std::pow (10.0, settings.silenceDb / 20.0);
    filters_ = { Biquad::lowPass (kLowHz, sampleRate), Biquad::bandPass (kKickHz, kKickQ, sampleRate), Biquad {},
                 Biquad::highPass (kHighHz, sampleRate), Biquad::highPass (kTopHz, sampleRate), Biquad::highPass (kAirHz, sampleRate) };
    // The history holds the search's span: the latency and the level before it.
    history_.assign (powerOfTwoAtLeast (static_cast<std::size_t> (latency_ + preSamples_ + 2)), 0.0f);
    for (auto& ring : peaks_)
        ring.assign (static_cast<std::size_t> (window_ + reference_ + 1), 0.0f);
    energy_.assign (static_cast<std::size_t> (window_), 0.0);
    fit_ = static_cast<int> (std::max<int64_t> (kOrder + 1, std::lround (kFitSeconds * blockRate)));
    lowSamples_.assign (static_cast<std::size_t> (window_ + fit_ + 3), 0.0);
}

QuickOnsetDetector::~QuickOnsetDetector() = default;

int64_t QuickOnsetDetector::latencySamples() const noexcept { return latency_; }

int64_t QuickOnsetDetector::latencySamples (double sampleRate) noexcept { return latencyAt (sampleRate); }

std::size_t QuickOnsetDetector::maxOnsets (std::size_t numSamples) const noexcept
{
    return numSamples / static_cast<std::size_t> (spacing_) + 1;
}

void QuickOnsetDetector::reset() noexcept
{
    std::fill (history_.begin(), history_.end(), 0.0f);
    for (auto& ring : peaks_)
        std::fill (ring.begin(), ring.end(), 0.0f);
    std::fill (energy_.begin(), energy_.end(), 0.0);
    std::fill (lowSamples_.begin(), lowSamples_.end(), 0.0);
    lowNow_ = 0.0;
    blockPeak_ = {};
    blockEnergy_ = 0.0;
    for (auto& filter : filters_)
        filter.z1 = filter.z2 = 0.0;
    position_ = blocks_ = 0;
    filled_ = 0;
    seenAt_ = -1;
    lastOnset_ = -1;
}

double QuickOnsetDetector::sample (int64_t position) const noexcept
{
    return position < 0 ? 0.0 : history_[static_cast<std::size_t> (position) & (history_.size() - 1)];
}

std::size_t QuickOnsetDetector::push (const float* samples, std::size_t numSamples, int64_t* out, std::size_t capacity) noexcept
{
    std::size_t count = 0;
    for (std::size_t i = 0; i < numSamples; ++i)
    {
        const float x = std::isfinite (samples[i]) ? samples[i] : 0.0f;
        history_[static_cast<std::size_t> (position_) & (history_.size() - 1)] = x;
        ++position_;
        for (std::size_t b = 0; b < kBands; ++b)
        {
            const double y = filters_[b].process (x);
            blockPeak_[b] = std::max (blockPeak_[b], std::abs (y));
            if (b == 0)
                lowNow_ = y;
        }
        blockEnergy_ += static_cast<double> (x) * x;
        if (++filled_ == hop_)
        {
            filled_ = 0;
            for (std::size_t b = 0; b < kBands; ++b)
                peaks_[b][static_cast<std::size_t> (blocks_) % peaks_[b].size()] = static_cast<float> (blockPeak_[b]);
            energy_[static_cast<std::size_t> (blocks_) % energy_.size()] = blockEnergy_;
            lowSamples_[static_cast<std::size_t> (blocks_) % lowSamples_.size()] = lowNow_;
            blockPeak_ = {};
            blockEnergy_ = 0.0;
            ++blocks_;
            if (seenAt_ < 0 && attackSeen())
                seenAt_ = position_;
        }
        if (seenAt_ < 0 || position_ < seenAt_ + confirm_)
            continue;
        // The attack began in the window it was seen in (its reference did not hold it), or a little
        // before where it rose slowly; never earlier than the latency allows.
        const int64_t windowStart = seenAt_ - static_cast<int64_t> (window_) * hop_;
        const int64_t earliest = std::max ({ lastOnset_ + 1, position_ - latency_, int64_t { 0 } });
        const int64_t onset = attackStart (earliest, std::max (earliest, windowStart));
        seenAt_ = -1;
        lastOnset_ = onset;
        if (count < capacity)
            out[count++] = onset;
    }
    return count;
}

double QuickOnsetDetector::bandPeak (std::size_t band, int64_t firstBlock, int64_t endBlock) const noexcept
{
    const auto& ring = peaks_[band];
    float peak = 0.0f;
    for (int64_t b = std::max<int64_t> (0, firstBlock); b < endBlock; ++b)
        peak = std::max (peak, ring[static_cast<std::size_t> (b) % ring.size()]);
    return peak;
}

bool QuickOnsetDetector::attackSeen() noexcept
{
    // The onset of an attack seen now will be no earlier than its report less the latency: at least a
    // gap after the last one.
    if (lastOnset_ >= 0 && position_ + confirm_ - latency_ - lastOnset_ < gap_)
        return false;
    double energy = 0.0;
    for (int64_t b = std::max<int64_t> (0, blocks_ - window_); b < blocks_; ++b)
        energy += energy_[static_cast<std::size_t> (b) % energy_.size()];
    if (std::sqrt (energy / (static_cast<double> (window_) * hop_)) < silence_)
        return false;
    // A band's rise counts where the band holds a part of the sound worth a hit: a rattle in the
    // highest band 160 ms into a recorded kick rises there, 40 dB under the kick.
    const double loudest = bandPeak (kWholeBand, blocks_ - window_ - reference_, blocks_);
    for (std::size_t band = 0; band < kBands; ++band)
    {
        const double recent = bandPeak (band, blocks_ - window_, blocks_);
        const double before = bandPeak (band, blocks_ - window_ - reference_, blocks_ - window_);
        if (recent > 0.0 && recent > riseRatio_ * before && recent >= kRelevance * loudest)
            return true;
    }
    return lowResidualRise() > residualRise_;
}

double QuickOnsetDetector::lowResidualRise() const noexcept
{
    // The low band, one sample per block, predicted from its kOrder samples before by the best linear
    // predictor over the fit span before the recent window: decaying (even gliding) sines are
    // predicted to a small error, a new kick or tom over their tail is not, whatever the levels.
    const auto at = [this] (int64_t k) { return k < 0 ? 0.0 : lowSamples_[static_cast<std::size_t> (k) % lowSamples_.size()]; };
    const int64_t recentStart = blocks_ - window_, fitStart = recentStart - fit_;
    if (fitStart < kOrder)
        return 0.0;
    // The normal equations of the least-squares fit, [R | c], solved by Gaussian elimination.
    std::array<std::array<double, kOrder + 1>, kOrder> system {};
    double power = 0.0;
    for (int64_t k = fitStart; k < recentStart; ++k)
    {
        power += at (k) * at (k);
        for (int i = 0; i < kOrder; ++i)
        {
            for (int j = 0; j < kOrder; ++j)
                system[static_cast<std::size_t> (i)][static_cast<std::size_t> (j)] += at (k - 1 - i) * at (k - 1 - j);
            system[static_cast<std::size_t> (i)][kOrder] += at (k) * at (k - 1 - i);
        }
    }
    std::array<double, kOrder> a {};
    if (power > 0.0)
    {
        for (int i = 0; i < kOrder; ++i)
            system[static_cast<std::size_t> (i)][static_cast<std::size_t> (i)] += 1e-9 * power + 1e-30; // a ridge: silence and pure tones are singular
        for (std::size_t i = 0; i < kOrder; ++i)
            for (std::size_t r = i + 1; r < kOrder; ++r)
            {
                const double f = system[r][i] / system[i][i];
                for (std::size_t j = i; j <= kOrder; ++j)
                    system[r][j] -= f * system[i][j];
            }
        for (std::size_t i = kOrder; i-- > 0;)
        {
            double v = system[i][kOrder];
            for (std::size_t j = i + 1; j < kOrder; ++j)
                v -= system[i][j] * a[j];
            a[i] = v / system[i][i];
        }
    }
    const auto error = [&] (int64_t k) {
        double e = at (k);
        for (int i = 0; i < kOrder; ++i)
            e -= a[static_cast<std::size_t> (i)] * at (k - 1 - i);
        return e * e;
    };
    double fitError = 0.0, recentError = 0.0;
    for (int64_t k = fitStart; k < recentStart; ++k)
        fitError += error (k);
    for (int64_t k = recentStart; k < blocks_; ++k)
        recentError += error (k);
    fitError = std::max (fitError, kResidualFloor * power) / static_cast<double> (fit_);
    return recentError / static_cast<double> (window_) / std::max (fitError, 1e-30);
}

int64_t QuickOnsetDetector::attackStart (int64_t earliest, int64_t fallback) const noexcept
{
    // Two views of the samples: as they are (a kick, a tom, a bass note) and their first difference
    // (a hat or a snare's noise over a loud low tail). The one whose attack rises more above its level
    // just before tells where the attack starts.
    const int64_t pre = preSamples_;
    const auto view = [this] (int64_t n, int which) { return which == 0 ? sample (n) : sample (n) - sample (n - 1); };
    int best = -1;
    double bestRise = kMinimumRise, bestLevel = 0.0, bestPeak = 0.0;
    for (int which = 0; which < 2; ++which)
    {
        double before = 0.0, peak = 0.0;
        for (int64_t n = earliest - pre; n < earliest; ++n)
            before += view (n, which) * view (n, which);
        before /= static_cast<double> (pre);
        for (int64_t n = earliest; n < position_; ++n)
            peak = std::max (peak, std::abs (view (n, which)));
        const double rise = peak * peak / std::max (before, 1e-20);
        if (rise > bestRise)
        {
            best = which;
            bestRise = rise;
            bestLevel = std::sqrt (before);
            bestPeak = peak;
        }
    }
    if (best < 0)
        return fallback;
    const double start = std::max (kStartFraction * bestPeak, kStartOverNoise * bestLevel);
    for (int64_t n = earliest; n < position_; ++n)
        if (std::abs (view (n, best)) >= start)
            return n;
    return fallback;
}

} // namespace sonotype::dsp
