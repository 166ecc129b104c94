// What a hit sounds like in its first milliseconds, for the live per-hit mode: a few numbers from
// the hit's attack that tell the pieces of a kit apart (a kick's energy lies low, a hat's high, a
// snare's across the spectrum), computed as soon as the attack has arrived so that a note can go
// out about 10 ms after its hit. The 1 s model needs a clip of at least 0.1 s to do this (the
// exact per-hit mode); a drummer playing through the plugin cannot wait that long.
//
// From the samples around an onset, at any rate (every span is in seconds and every band in Hz, so
// that a kit taught at 44.1 kHz classifies at 48 kHz):
// - the attack: [onset - kPreSeconds, onset + afterSeconds), with a 0.5 ms taper at each end;
// - the background: the kBackgroundSeconds before the attack (the tail of the previous hit, or the
//   room), whose power per sample is taken off the attack's twice over, band by band (a 5 ms
//   estimate of a noisy tail wavers; once over, a hat on a snare's tail kept the tail's middle and
//   was taken for a snare 11 times in 69, twice over 2), so that a hat on a kick's ringing tail looks like a hat, and a one-shot taught in silence like the same piece in a
//   loop.
// The signature (kSize values, in dB):
// - [0, kBands): the shape of the attack's new energy over kBands log-spaced bands from 40 Hz to
//   7 kHz, each band relative to the total, floored at -60 dB. Each band integrates the spectrum over its frequencies (a bin counts by
//   the share of its span inside the band), so that the FFT's bins, which differ with the rate, do
//   not move the bands. 7 kHz, not higher: the plugin keeps
//   taught sounds at the model's rate (16 kHz for the built-in model), and a kit taught there must
//   classify the same hits at 48 kHz (a hat's noise still fills the top bands);
// - [kAir]: the new energy from 7 to 16 kHz (a hat's, a cymbal's air), relative to the total under
//   7 kHz, floored at -60 dB; NaN where the rate cannot hold 16 kHz (under 35.6 kHz: the plugin's
//   taught sounds at 16 kHz, whose kit then does without it);
// - [kSegments0, kSegments0 + kSegments): how the new energy moves over kSegments equal parts of
//   [onset, onset + afterSeconds) (a click dies in a millisecond, a snare's noise does not), each
//   part relative to their mean, floored at -30 dB;
// - the last: the attack's new energy per sample (its level, dBFS of a sine's power x 2).
// compute() allocates nothing and takes no lock (two FFTs of a plan made by the constructor): the
// plugin runs it on the audio thread. An instance belongs to one thread.
#pragma once

#include "dsp/RealFft.h"

#include <array>
#include <cstdint>
#include <vector>

namespace sonotype::dsp
{

class HitSignature
{
public:
    static constexpr int kBands = 20, kAir = kBands, kSegments0 = kAir + 1, kSegments = 3, kSize = kSegments0 + kSegments + 1;
    static constexpr double kPreSeconds = 0.001, kBackgroundSeconds = 0.005;
    static constexpr double kDefaultAfterSeconds = 0.006; // of the hit after its onset (the live mode's: see docs/TEACH.md)
    static constexpr double kFloorDb = -60.0, kSegmentFloorDb = -30.0, kSilentDb = -150.0;
    using Values = std::array<float, kSize>;

    /** Throws std::invalid_argument for a rate outside 1 kHz - 768 kHz or afterSeconds outside
        (0.001, 0.1]. Allocates all it needs. */
    HitSignature (double sampleRate, double afterSeconds = kDefaultAfterSeconds);

    /** Samples before the onset compute() reads (the background and the pre-roll). */
    int samplesBefore() const noexcept { return background_ + pre_; }
    /** Samples from the onset on that compute() reads. */
    int samplesAfter() const noexcept { return after_; }
    double afterSeconds() const noexcept { return afterSeconds_; }

    /** The signature of the hit whose onset is at samples[samplesBefore()]: `samples` holds
        samplesBefore() + samplesAfter() samples (finite). No allocation, no lock. */
    void compute (const float* samples, Values& out) noexcept;

private:
    /** The power per sample in each band of samples[0, count) with the taper; into `bands`. */
    void bandPowers (const float* samples, int count, std::array<double, kBands + 1>& bands) noexcept;

    double afterSeconds_;
    int background_, pre_, after_, taper_;
    RealFft fft_;
    struct BinWeight
    {
        int band = 0, bin = 0;
        double weight = 0.0; // the share of the bin's span of frequencies inside the band
    };
    std::vector<BinWeight> bandBins_;                               // each band, the bins its frequencies overlap
    std::array<double, kBands + 1> attack_ {}, backgroundPower_ {}; // the bands, then the air band
    bool hasAir_ = false;
};

} // namespace sonotype::dsp
