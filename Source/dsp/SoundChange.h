// How much the sound changes at each moment of a stream: the novelty curve that puts a timeline's
// segment edges where the sound changes rather than on the analysis windows' grid.
//
// Every 10 ms, a frame of at least 32 ms (Hann window, FFT) gives the log energy of 24 bands spaced
// evenly in log frequency from 40 Hz up (to 16 kHz or the Nyquist frequency), floored at -100 dB.
// The novelty at frame t is the distance (Euclidean, dB) between the mean band levels of the
// half-second before t and the half-second after it (the frames that straddle t left out): the curve peaks where one recording, voice or
// instrument gives way to another (a new spectrum, a level step), and stays low inside one, where
// the half-second means average the hits and syllables out. Frame t is centred on sample
// t x hop; near the stream's ends the sides are shorter (at least 5 frames each, else 0).
// Streaming, any block sizes (the same curve for any split); memory: a second of running sums of the
// band levels, and the curve (4 bytes per 10 ms, about 1.4 MB per hour). One thread.
#pragma once

#include "dsp/RealFft.h"

#include <cstdint>
#include <vector>

namespace sonotype::dsp
{

class SoundChange
{
public:
    static constexpr double kFrameSeconds = 0.01;
    static constexpr int kSideFrames = 50; // the half-second on each side of a frame
    static constexpr int kNumBands = 24;

    /** Throws std::invalid_argument for a rate outside 1 kHz - 768 kHz. */
    explicit SoundChange (double sampleRate);

    /** Feeds samples (NaN and infinity count as 0). */
    void push (const float* samples, std::size_t numSamples);
    /** Ends the stream: the frames up to its last sample, and their novelty. */
    void finish();
    /** Starts a new stream at the same rate (keeps the buffers). */
    void restart();

    /** The novelty of each frame decided so far: frame t at t x kFrameSeconds seconds. */
    const std::vector<float>& novelty() const noexcept { return novelty_; }
    std::vector<float> takeNovelty() noexcept { return std::move (novelty_); }

private:
    void analyzeFrame();
    void decide (bool final);

    int hop_;
    RealFft fft_;
    std::vector<double> window_;
    std::vector<int> bandEdges_; // kNumBands + 1 FFT bins
    std::vector<float> samples_; // the stream's samples from samplesStart_ on (zeros before the stream)
    int64_t samplesStart_ = 0;   // stream position of samples_.front() (negative: the zeros before it)
    int64_t samplesIn_ = 0;      // samples pushed
    int64_t frames_ = 0;         // frames analysed
    int64_t straddle_;           // frames centred within half a frame of t: on neither side of it
    int64_t ringFrames_;         // frames of running sums kept: both sides of a frame, and more
    std::vector<double> sums_;   // ring: for frame f, each band's level summed over frames [0, f)
    std::vector<float> novelty_;
};

} // namespace sonotype::dsp
