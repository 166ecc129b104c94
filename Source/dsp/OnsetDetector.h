// Onsets (the starts of hits and notes) in a mono stream, for the per-hit mode: one classification
// per hit instead of one per hop.
//
// The method is the spectral flux of log-compressed magnitudes with an adaptive threshold and peak
// picking, as in Böck, Krebs & Schedl, "Evaluating the online capabilities of onset detection
// methods" (ISMIR 2012), the online variant: frames of about 23 ms every 5 ms (FFTW, Hann window),
// log(1 + 100 |X|) per bin, the flux of frame t the mean of the increases over frame t - 2 (a lag of
// two frames sees an attack that spans them). Two detection functions come from each frame: the flux
// of the whole spectrum and the flux of the low band alone (DC to 300 Hz). A sine kick, a tom or a bass
// note fills a handful of the low bins, so in the whole spectrum's flux it weighs a few hundredths of a
// hat and falls under a threshold the hats and snares set; in the low band's own flux it stands out.
// Frame t is an onset when, for either function, its value is
// - the largest within 30 ms before and 10 ms after it (10 ms of look-ahead: the latency),
// - above the function's mean over the 100 ms before it by a threshold times the function's
//   long-term level (its mean over about 2 s, so a quiet recording and a loud one need the same
//   setting): `threshold` for the whole spectrum, twice that for the low band, whose flux is spikier
//   (pitch glides and beating tails move its energy between bins), and for the low band at least 0.7
//   (its mean log magnitude about doubled), which a decaying tail's wobble does not reach,
// and, for both,
// - at least `minGapSeconds` after the previous onset, and
// - louder than `silenceDb` (the RMS of the frames up to the look-ahead), as aubio's silence gate.
// Onset times are given in input samples, corrected for where in the frame an attack peaks the
// flux (measured on clicks, drum hits and sine kicks: the detector's tests hold it within 5 ms).
// Streaming, any block sizes (the same onsets for any split); its buffers are allocated by the
// constructor (rings), nothing after. One thread.
#pragma once

#include "dsp/RealFft.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace sonotype::dsp
{

struct OnsetSettings
{
    double threshold = 1.2;      // how far above the local mean flux, in units of its long-term level
    double minGapSeconds = 0.05; // two onsets closer than this are one (a snare sample's own second transient, 45 ms on)
    double silenceDb = -50.0;    // a frame quieter than this (RMS, dBFS) starts no onset (room noise, dither, a fade)
    bool operator== (const OnsetSettings&) const = default;
};

class OnsetDetector
{
public:
    /** Throws std::invalid_argument for a rate outside 1 kHz - 768 kHz or settings out of range. */
    OnsetDetector (double sampleRate, OnsetSettings settings = {});
    /** Throws std::invalid_argument (naming the setting) for settings the constructor refuses. */
    static void checkSettings (const OnsetSettings& settings);
    ~OnsetDetector();
    OnsetDetector (const OnsetDetector&) = delete;
    OnsetDetector& operator= (const OnsetDetector&) = delete;

    /** Feeds samples; appends the onsets now known (input sample positions, ascending) to `onsets`. */
    void push (const float* samples, std::size_t numSamples, std::vector<int64_t>& onsets);
    /** Ends the stream: the last frames are decided. */
    void finish (std::vector<int64_t>& onsets);

    /** Input samples after an onset before it is reported (the look-ahead and half a frame): the
        onset is reported by the push() that brings the input to onset + latencySamples(). */
    int64_t latencySamples() const noexcept;
    /** The same for a detector at `sampleRate` (it depends on nothing else). */
    static int64_t latencySamples (double sampleRate) noexcept;
    int frameSize() const noexcept { return frameSize_; }
    int hopSize() const noexcept { return hop_; }

private:
    /** One detection function: its values for the frames not yet decided and the ones the threshold
        looks back on, and the sum of the last longTerm_ (rings, allocated by the constructor). */
    struct Band
    {
        std::vector<double> recent;
        std::vector<double> longTerm;
        double longTermSum = 0.0;
        void reset (std::size_t recentFrames, std::size_t longTermFrames);
        void add (int64_t frame, double flux);
        double at (int64_t frame) const noexcept;
        /** The mean of the last longTerm_ frames' values, or of all `frames` while fewer. */
        double level (int64_t frames) const noexcept;
    };
    int64_t lookBack() const noexcept;
    void analyzeFrame();
    void decide (std::vector<int64_t>& onsets, bool final);
    /** Whether frame t (decided with the frames up to `last`) is a peak of `band` above its threshold. */
    bool isOnset (const Band& band, double level, int64_t t, int64_t last, double threshold, double minimum) const;

    OnsetSettings settings_;
    int frameSize_, hop_;
    int preMax_, postMax_, preAverage_, longTerm_, minGap_;
    double silence_; // settings_.silenceDb as an RMS
    std::unique_ptr<RealFft> fft_;
    std::vector<double> window_;
    std::vector<float> buffer_;               // the newest frameSize_ samples (the first frame is padded with zeros before the stream)
    std::size_t filled_ = 0;                  // samples since the last frame
    int64_t frames_ = 0;                      // frames analysed
    std::vector<std::vector<float>> spectra_; // the last 3 frames' log magnitudes (lag 2)
    int lowBins_ = 1;                         // the bins of the low band (DC up to 300 Hz)
    Band broadband_;                          // the flux of the whole spectrum
    Band low_;                                // the flux of the low band
    std::vector<double> rms_;                 // the RMS of the frames the bands hold (a ring, as theirs)
    int64_t decided_ = 0;                     // frames decided
    int64_t lastOnsetFrame_ = -1000000;
};

} // namespace sonotype::dsp
