// Onsets with a few milliseconds of latency, found on the audio thread: the per-hit mode's live path
// (dsp::OnsetDetector, with its 23 ms frames and 10 ms of look-ahead, reports about 22 ms late).
//
// The method works in the time domain, in bands (second-order filters). Short frames cannot do it:
// a frame of 5 ms holds a fraction of a kick's period, so its low bins swing with the sine's phase
// and every swing looks like an attack. Each band's peak amplitude is kept for every half millisecond; an attack is where
// a band's peak over the last 2 ms rises above its peak over the 40 ms before them by a ratio (6 dB
// at the default threshold 1.2: 5 dB per unit of `threshold`). A steady tone, room noise or a
// decaying tail never does: over 40 ms their peaks are at least as high as over any 2 ms after.
// The bands: low-pass 200 Hz, band-pass 150 Hz (a kick's start, over the lower tail of the one
// before), the signal as it is, high-pass 3, 7 and 12 kHz (a hat over a plucked note's noise). A hat under a loud kick's tail rises in
// the high bands, a kick after a hat in the low ones. A kick over a kick still sounding barely
// raises the low band's peak; it is found by prediction instead: the low band, one sample per
// block, is predicted from its 4 samples before by the least-squares predictor fitted over the
// 10 ms before the recent window, which follows decaying and gliding sines (a kick's, a tom's, a
// bass note's tail) to a small error; a new note leaves it, and its error over the recent window
// rises over the fit's own by 19 dB at the default threshold (16 dB per unit). A soft hit in the
// band of a louder one still sounding, at the same pitch, stays lost in it. A band's rise counts
// only where the band's peak is within 36 dB of the whole signal's peak over the last 42 ms. An attack also needs the
// signal louder than `silenceDb` (its RMS over those 2 ms) and at least `minGapSeconds` after the
// previous onset.
//
// Once an attack is seen, 1 ms more is read and the onset is searched for backwards in the raw
// samples: the first sample where the signal (or its first difference, which a hat's noise fills and
// a kick's tail does not: the one whose attack rises more over its level just before) reaches a
// tenth of its peak since, and three times the level before: the attack's first sample, where a
// producer would place the hit. The onset reported is never earlier than the report less
// latencySamples(), so the latency is a promise, not an average.
//
// Threading: one thread (the audio thread). The constructor allocates everything (its rings);
// push() and reset() allocate nothing, lock nothing and do bounded work per sample.
#pragma once

#include "dsp/OnsetDetector.h"

#include <array>
#include <cstdint>
#include <vector>

namespace sonotype::dsp
{

class QuickOnsetDetector
{
public:
    /** Throws std::invalid_argument for a rate outside 1 kHz - 768 kHz or settings out of range
        (OnsetDetector::checkSettings). Allocates everything it will ever need. */
    QuickOnsetDetector (double sampleRate, OnsetSettings settings = {});
    ~QuickOnsetDetector();
    QuickOnsetDetector (const QuickOnsetDetector&) = delete;
    QuickOnsetDetector& operator= (const QuickOnsetDetector&) = delete;

    /** Audio thread: no allocation, no locks, bounded work. Feeds samples; writes the onsets decided
        now (input sample positions since construction or reset(), ascending) into out[0..capacity)
        and returns how many. capacity >= maxOnsets (numSamples) never drops one. */
    std::size_t push (const float* samples, std::size_t numSamples, int64_t* out, std::size_t capacity) noexcept;
    /** The most onsets one push of numSamples can report (from the minimum gap). */
    std::size_t maxOnsets (std::size_t numSamples) const noexcept;
    /** A new stream: position 0, all state cleared. No allocation. */
    void reset() noexcept;
    /** An onset is always reported by the push() that brings the input to onset + latencySamples(). */
    int64_t latencySamples() const noexcept;
    /** The same for a detector at `sampleRate` (it depends on nothing else). */
    static int64_t latencySamples (double sampleRate) noexcept;

private:
    /** A second-order section (the RBJ cookbook's low- and high-pass, Q = 1/sqrt 2). */
    struct Biquad
    {
        double b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0, z1 = 0.0, z2 = 0.0;
        static Biquad lowPass (double hz, double sampleRate) noexcept;
        static Biquad bandPass (double hz, double q, double sampleRate) noexcept;
        static Biquad highPass (double hz, double sampleRate) noexcept;
        double process (double x) noexcept;
    };
    static constexpr std::size_t kBands = 6, kWholeBand = 2; // the band of the signal as it is

    /** After each block of hop_ samples: whether an attack begins in a band (and a report is due). */
    bool attackSeen() noexcept;
    /** How far the low band's recent samples leave its prediction from the samples before (power ratio). */
    double lowResidualRise() const noexcept;
    double bandPeak (std::size_t band, int64_t firstBlock, int64_t endBlock) const noexcept;
    /** The attack's first sample, searched for in the raw samples from `earliest` up to now. */
    int64_t attackStart (int64_t earliest, int64_t fallback) const noexcept;
    double sample (int64_t position) const noexcept;

    OnsetSettings settings_;
    int hop_;                // samples per block
    int window_, reference_; // blocks: the recent window, and the one before it it is compared with
    int64_t confirm_;        // samples read after an attack is seen before its onset is reported
    int64_t latency_;
    int64_t preSamples_;  // the backward search's span of the level before an attack
    int64_t gap_;         // settings_.minGapSeconds in samples
    int64_t spacing_;     // the least number of samples between two reports
    double riseRatio_;    // how far a band's recent peak must rise over its reference
    double residualRise_; // how far the low band's prediction error must rise over the fit's
    double silence_;      // settings_.silenceDb as an RMS
    std::array<Biquad, kBands> filters_;
    std::vector<float> history_;                   // the newest samples (a ring of a power of two, the stream preceded by zeros)
    std::array<std::vector<float>, kBands> peaks_; // each band's peak |amplitude| per block (rings)
    std::vector<double> energy_;                   // the raw signal's energy per block (a ring)
    int fit_;                                      // blocks the low band's predictor is fitted over
    std::vector<double> lowSamples_;               // the low band's last sample of each block (a ring)
    double lowNow_ = 0.0;
    std::array<double, kBands> blockPeak_ {}; // the block being filled
    double blockEnergy_ = 0.0;
    int64_t position_ = 0;   // samples pushed
    int64_t blocks_ = 0;     // blocks completed
    int filled_ = 0;         // samples in the block being filled
    int64_t seenAt_ = -1;    // where the attack waiting for its report was seen, or -1
    int64_t lastOnset_ = -1; // the last onset reported (onsets are strictly ascending)
};

} // namespace sonotype::dsp
