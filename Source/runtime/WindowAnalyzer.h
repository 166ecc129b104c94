// The analysis both the live runtime and the offline CLI run: mono samples at any rate in,
// one classification per analysis window out. Window k covers [k * hop, k * hop + window) seconds
// of the stream; its samples are resampled to the model's rate (libsoxr, streaming) and turned into
// log-mel features (incrementally: overlapping windows share STFT frames), then the model runs. A
// model with a waveform front end (it computes its own features) gets the window's samples as they are.
// Not thread-safe: one thread (the runtime's worker, or the CLI's) owns an analyzer.
#pragma once

#include "dsp/FrontendError.h"
#include "dsp/LogMelSpectrogram.h"
#include "dsp/Resampler.h"
#include "engine/Session.h"
#include "engine/file/FrontendSettings.h"
#include "runtime/WindowResult.h"

#include <memory>
#include <optional>
#include <vector>

namespace sonotype::runtime
{

/** The model's class labels, or class0, class1, ... for a model without labels. */
std::vector<std::string> classLabels (const engine::Model& model);

/** The model's front end (validated when it loaded), or throws dsp::FrontendError for a model
    exported without one. */
const engine::FrontendSettings& frontendOf (const engine::Model& model);

/** Which of `labels` are among `inPlay` (the classes a user says are in play, by label); empty
    inPlay: all. Throws std::invalid_argument naming a label that is not one of `labels` (and
    listing them). */
std::vector<bool> classesInPlay (const std::vector<std::string>& labels, const std::vector<std::string>& inPlay);

class WindowAnalyzer
{
public:
    /** Throws (engine::ModelError, dsp::FrontendError) for a model without usable front-end
        settings, a hop that is not positive, or an unsupported input rate. */
    WindowAnalyzer (std::shared_ptr<const engine::Model> model, double inputRate, double hopSeconds, double smoothingSeconds = 0.0);

    /** Throws dsp::FrontendError for a hop or smoothing time the analyzer would refuse. */
    static void checkSettings (double hopSeconds, double smoothingSeconds);

    /** Samples a loop over a file at `rate` reads and pushes at a time: 16384 (0.37 s at 44.1
        kHz), at most 2 s at low rates (the analyzer's memory, claimed at load, holds a few seconds
        of audio before the windows in it are analyzed). Small enough that resampling a block
        leaves the model's weights and activations in the core's cache for the windows after it
        (with blocks of 65536, classify took 2% longer, AMD EPYC). */
    static std::size_t fileBlockSamples (double rate) noexcept;

    /** Changes the hop while the stream runs, keeping everything else (samples, cached features,
        smoothing state): the next window starts where it would have started with the old hop, the
        ones after it follow every new hop. Throws (as checkSettings) without changing anything. */
    void setHop (double hopSeconds);
    /** Changes the smoothing time constant; the average goes on from the last result. */
    void setSmoothing (double smoothingSeconds);
    /** Only these classes (inPlay[c], one per class; empty or none in play: all): the others get
        probability 0 and the answer is renormalised over these, as a softmax over their logits
        alone (a model of independent probabilities, e.g. sigmoids, keeps its values). Applies
        from the next window, before smoothing. Throws std::invalid_argument for a mask of another
        length. */
    void setClassesInPlay (const std::vector<bool>& inPlay);
    const std::vector<bool>& classesInPlay() const noexcept { return inPlay_; }
    /** The model's embedding (ModelInfo::embeddingOutput) of the window or clip analysed last, as
        the model computed it in the same run; empty for a model without one. */
    std::span<const float> embedding() const noexcept;
    /** The model's output `index` for the window or clip analysed last (a taught model's level:
        teach/WindowLevel.h); empty for an index the model does not have. */
    std::span<const float> output (std::size_t index) const noexcept;

    const engine::FrontendSettings& settings() const noexcept { return settings_; }
    const std::vector<std::string>& labels() const noexcept { return labels_; }
    int numClasses() const noexcept { return numClasses_; }
    double windowSeconds() const noexcept { return settings_.windowSamples / settings_.sampleRate; }
    double hopSeconds() const noexcept { return hopSeconds_; }

    /** Feeds mono samples at the input rate; NaN and infinite samples become 0 (and are counted).
        Give at most FrontendSettings::kMaxBacklogSeconds of audio before analyzing the windows in
        it: the memory the model claimed at load assumes no more. */
    void push (const float* samples, std::size_t numSamples);
    /** Ends the stream: the resampler's last samples come out. */
    void finish();
    /** A new stream (the next file) at inputRate: as a new analyzer with the same settings (hop,
        smoothing, classes in play), keeping the session, the front end's buffers and, at the same
        rate, the resampler's filter: a new analyzer allocates and touches a few MiB and designs a
        resampling filter, which cost more than analysing a 1 s file. Throws (as the constructor)
        for a rate it refuses, and is then unusable. */
    void restart (double inputRate);
    /** A gap: numInputSamples input samples that will never arrive (dropped upstream). The stream
        goes on after them on the same window grid (times keep counting them); the resampler starts
        afresh there; windows that would need samples from the gap are passed over. Returns how
        many windows were passed over. */
    int64_t skip (int64_t numInputSamples);

    /** The newest window whose samples have all arrived, or -1. */
    int64_t newestCompleteWindow() const noexcept;
    /** The first window not analyzed yet (windows before it can no longer be analyzed). */
    int64_t nextWindow() const noexcept { return nextWindow_; }
    /** Seconds of audio still to come before window k is complete (0 when it is). */
    double secondsUntilComplete (int64_t k) const noexcept;
    /** Analyses window k (nextWindow() <= k <= newestCompleteWindow()); drops older samples. */
    void analyze (int64_t k, WindowResult& result);
    /** A clip of input-rate samples analysed on its own, outside the stream (the per-hit mode: a
        hit's first moments): resampled from its first sample, cut to one window or zero-padded to
        it as a short file is, no smoothing, the classes in play applied. startSeconds 0, endSeconds
        the clip's length. The stream's state is untouched. */
    void analyzeClip (const float* samples, std::size_t numSamples, WindowResult& result);
    /** How many of a clip's first samples analyzeClip() uses (one window and the resampler's
        margin): samples after them change nothing. */
    std::size_t clipSamplesUsed() const noexcept { return clipSamplesUsed (settings_, resampler_->inputRate()); }
    static std::size_t clipSamplesUsed (const engine::FrontendSettings& settings, double inputRate) noexcept;
    /** After finish(), for a stream shorter than one window: window 0, zero-padded. False if the
        stream was empty or window 0 was already analyzed. */
    bool analyzePaddedFirstWindow (WindowResult& result);
    /** After finish() and the stream's windows, for a stream that ends after its last window (a
        file's tail, classified to its end): one more window, window nextWindow(), aligned to the
        stream's end, [max(0, end - window), end). It is analysed from `lastSamples` (the stream's
        last samples, a window's worth or more, or all there were) as analyzeClip() analyses a clip,
        then smoothed with the windows before it as they are with each other: an exponential average
        over the time between its start and the last window's. */
    void analyzeTail (const float* lastSamples, std::size_t numSamples, WindowResult& result);

    int64_t numNonFiniteSamples() const noexcept { return numNonFinite_; }
    /** Input samples of the stream so far, those skipped over included. */
    int64_t numInputSamples() const noexcept { return numInput_; }

private:
    int64_t windowStart (int64_t k) const noexcept;
    double windowStartSeconds (int64_t k) const noexcept;
    void run (int64_t k, const float* samples, WindowResult& result);
    /** Smoothing (if on) of a window starting at startSeconds, after the one analysed last; then its
        top class. */
    void smoothAndRank (int64_t k, double startSeconds, WindowResult& result);
    void probabilitiesFromOutput (WindowResult& result); // the session's output 0, as probabilities over the classes in play
    int topClassInPlay (const std::vector<float>& probabilities) const noexcept;

    std::shared_ptr<const engine::Model> model_;
    engine::Session session_;
    engine::FrontendSettings settings_;
    std::optional<dsp::LogMelSpectrogram> logMel_; // absent for a waveform front end
    std::optional<dsp::Resampler> resampler_;      // restarted after a gap (skip()) and for a new stream (restart())
    std::vector<std::string> labels_;
    int numClasses_ = 0;
    engine::OutputScores scores_ = engine::OutputScores::logits; // logits get a softmax
    double hopSeconds_, smoothingSeconds_;
    // The window grid: window k starts at originSample_ + round((k - originWindow_) * hop * rate)
    // (model-rate samples), i.e. at originSeconds_ + (k - originWindow_) * hop. A hop change moves the origin.
    int64_t originWindow_ = 0, originSample_ = 0;
    double originSeconds_ = 0.0;

    std::vector<float> samples_; // model-rate samples from absolute index bufferStart_ on
    int64_t bufferStart_ = 0;
    std::vector<float> scratch_;
    std::vector<float> clip_;                     // analyzeClip(): the clip at the model's rate
    std::optional<dsp::Resampler> clipResampler_; // analyzeClip()'s, restarted for each clip
    int64_t nextWindow_ = 0;
    int64_t numNonFinite_ = 0, numInput_ = 0;
    std::vector<bool> inPlay_; // empty: every class
    std::vector<float> smoothed_;
    int64_t lastWindow_ = -1;
    double lastStartSeconds_ = 0.0;
};

} // namespace sonotype::runtime
