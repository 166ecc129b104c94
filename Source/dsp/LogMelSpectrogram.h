// Log-mel features of one analysis window, exactly as torchaudio computes them on that window's
// samples (MelSpectrogram, then AmplitudeToDB or log, then (x - mean) / std).
//
// FFT: FFTW (libfftw3), double precision, planned once per instance — the reference for accuracy
// and among the fastest real FFTs; JUCE's dsp::FFT would tie this layer to JUCE and Eigen's FFT
// (kissfft) is slower and less accurate. Window, FFT and mel projection run in double, so the
// features are closer to the exact values than torchaudio's own float32 ones (whose rounding
// reaches 2e-3 dB in quiet bins); the log runs in float32 on the float32 mel power, as torchaudio's,
// on the engine's vector kernels (within 2 ulp, as PyTorch's own vectorised log).
//
// Streaming: computeWindow() caches the log-mel values of frames that lie wholly inside a window by
// their absolute position in the stream, so overlapping windows reuse them; only the frames that
// touch the window's edges (padding) are computed again. A frame's log is taken as it is computed,
// and its largest value kept with it; what depends on the whole window (top_db's floor, below the
// largest of its frames') and the normalisation are applied per window. What the buffers take is
// what engine::FrontendSettings::cost() declares at load.
#pragma once

#include "dsp/FrontendError.h"
#include "dsp/MelFilterbank.h"
#include "dsp/RealFft.h"
#include "engine/file/FrontendSettings.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace sonotype::engine::kernels
{
struct KernelTable;
}

namespace sonotype::dsp
{

class LogMelSpectrogram
{
public:
    explicit LogMelSpectrogram (const engine::FrontendSettings& settings);
    ~LogMelSpectrogram();
    LogMelSpectrogram (const LogMelSpectrogram&) = delete;
    LogMelSpectrogram& operator= (const LogMelSpectrogram&) = delete;

    const engine::FrontendSettings& settings() const noexcept { return settings_; }

    /** Features [nMels x numFrames(numSamples)], row-major, of samples taken as one clip. */
    void compute (const float* samples, int numSamples, float* features);

    /** The same, for a window whose first sample is sample `absoluteStart` of a stream: frames
        wholly inside the window are reused from earlier windows when they were computed before. */
    void computeWindow (const float* samples, int numSamples, int64_t absoluteStart, float* features);

    /** A new stream starts (its sample 0 is a new absolute start 0): the cached frames are forgotten. */
    void forgetStream() noexcept;
    /** Frames computed by FFT so far (frames reused from the cache are not counted). */
    int64_t numFramesComputed() const noexcept { return framesComputed_; }

private:
    void computeFrames (const float* samples, int numSamples, int64_t absoluteStart, bool useCache, float* features);
    /** The log-mel values (before top_db and the normalisation) of the frame starting at sample
        frameStart of the virtually padded clip; returns the largest where top_db needs it (else -inf). */
    float logMelFrame (const float* samples, int numSamples, int64_t frameStart, float* logMel);
    /** top_db's floor below the window's maximum, applied by finish(). */
    bool topDbFloor() const noexcept { return settings_.logType == engine::FrontendSettings::LogType::db && settings_.topDb.has_value(); }
    void finish (int numFrames, float windowMax, float* features) const;

    engine::FrontendSettings settings_;
    MelFilterbank filterbank_;
    const engine::kernels::KernelTable& kernels_; // the active path's: its vector log and log10
    std::vector<double> window_;                  // n_fft long: the Hann window centred as torch.stft pads it
    std::unique_ptr<RealFft> fft_;
    std::vector<double> spectrum_; // n_fft / 2 + 1
    std::vector<double> frameMel_; // nMels: one frame's mel spectrum, summed in double
    std::vector<float> frame_;     // its log-mel values, for a frame not cached
    std::vector<float> logMel_;    // nMels x frames of the current window (before top_db and the normalisation)
    // Cache of interior frames: slot = (absolute frame start / hop) mod size, a window's frames and
    // a few more (consecutive frames take consecutive slots, so a window's never collide).
    std::vector<int64_t> cacheKeys_;
    std::vector<float> cacheLogMel_;
    std::vector<float> cacheMax_; // each cached frame's largest value (where top_db needs it)
    int64_t framesComputed_ = 0;
};

} // namespace sonotype::dsp
