// The per-hit analysis of a mono stream: an onset detector (dsp::OnsetDetector) finds each hit, and
// each hit is classified once, from a clip starting just before its onset (WindowAnalyzer::
// analyzeClip: the clip's first moments, zero-padded to the model's window as a short file is),
// with the hit's level. `sonotype classify --onsets` (timeline::analyzeHits) and the plugin's live
// per-hit mode (AnalysisWorker) both run this class, so they find the same hits in the same audio
// and classify them from the same clips.
//
// Streaming, any block sizes (the same hits, classes and levels for any split). A hit is reported
// as soon as its clip and its level's 50 ms have arrived and the detector has decided on it:
// latencySamples() after its onset (for an onset at least preRollSeconds into the stream; one
// nearer the start is reported when the clip from the stream's start is complete). Memory bounded:
// only the samples a pending hit, or a hit not found yet, still needs are kept.
// Not thread-safe: one thread (the CLI's, or the runtime's worker) owns an analyzer. It allocates
// (onsets found, the clip's resampler): not for an audio thread.
#pragma once

#include "dsp/OnsetDetector.h"
#include "runtime/WindowAnalyzer.h"

#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace sonotype::runtime
{

/** The clip a hit is classified from, when neither the user nor the model says otherwise. */
inline constexpr double kDefaultHitClipSeconds = 0.25;

struct HitSettings
{
    dsp::OnsetSettings onsets;
    double clipSeconds = kDefaultHitClipSeconds; // of audio from the onset that a hit is classified from
    double preRollSeconds = 0.01;                // the clip starts this much before the onset (an onset is known to about 5 ms)
};

/** The clip a model taught from hits was taught with (its metadata's "taught" object,
    "onset_window", clamped to 0.01-60 s), or `fallback` for any other model. */
double hitClipSeconds (const engine::Model& model, double fallback = kDefaultHitClipSeconds);

/** The settings the live per-hit mode runs with: these onset settings and the model's own clip
    (hitClipSeconds()), as `classify --onsets` does without --onset-window. */
HitSettings hitSettingsFor (const engine::Model& model, const dsp::OnsetSettings& onsets);

/** One hit, as it is reported. */
struct HitResult
{
    int64_t onset = 0;                // input sample of the onset, since the analyzer started
    float levelDb = -200.0f;          // the peak in the 50 ms after the onset, dBFS
    WindowResult result;              // its clip's classification (windowIndex -1, startSeconds 0)
    std::span<const float> embedding; // the model's embedding of the clip (empty for a model without one); valid during the listener only
};

class HitClassifier
{
public:
    using Listener = std::function<void (const HitResult& hit)>;

    /** Throws std::invalid_argument for settings out of range (the message names the setting),
        and what WindowAnalyzer and OnsetDetector throw for the model and the rate. */
    HitClassifier (std::shared_ptr<const engine::Model> model, double inputRate, const HitSettings& settings);

    /** Throws std::invalid_argument for a clip or pre-roll out of range (the onset settings are
        OnsetDetector's to check). */
    static void checkSettings (const HitSettings& settings);

    /** Feeds samples (NaN and infinity become 0, counted); reports each hit classified now, in order. */
    void push (const float* samples, std::size_t numSamples, const Listener& onHit);
    /** Ends the stream: the hits still pending are decided and classified on what there is (an
        onset placed a little past the end is the end). */
    void finish (const Listener& onHit);

    /** The classes in play for the hits classified from now on (WindowAnalyzer::setClassesInPlay). */
    void setClassesInPlay (const std::vector<bool>& inPlay) { analyzer_.setClassesInPlay (inPlay); }
    const std::vector<std::string>& labels() const noexcept { return analyzer_.labels(); }
    /** The analyzer that classifies the clips: during a listener, its outputs are the hit's clip's
        (WindowAnalyzer::output: a taught model's level, for teaching). */
    const WindowAnalyzer& analyzer() const noexcept { return analyzer_; }

    int64_t numInputSamples() const noexcept { return numRead_; }
    int64_t numNonFiniteSamples() const noexcept { return numNonFinite_; }
    double inputRate() const noexcept { return rate_; }
    const HitSettings& settings() const noexcept { return settings_; }

    /** Input samples after its onset by which a hit is always reported (see above). */
    int64_t latencySamples() const noexcept { return latency_; }
    /** The same, for `model` at `inputRate`, without making an analyzer. Throws as the constructor. */
    static int64_t latencySamples (const engine::Model& model, double inputRate, const HitSettings& settings);

private:
    void classify (int64_t onset, const Listener& onHit);
    void settle (bool end, const Listener& onHit);

    WindowAnalyzer analyzer_;
    dsp::OnsetDetector detector_;
    HitSettings settings_;
    double rate_;
    int64_t clipSamples_, preRoll_, levelSamples_, latency_;

    std::vector<float> buffer_; // input samples from absolute index bufferStart_ on
    int64_t bufferStart_ = 0, numRead_ = 0, numNonFinite_ = 0;
    std::deque<int64_t> pending_; // onsets found whose clip has not all arrived
    std::vector<int64_t> found_;
    HitResult hit_;
    std::vector<float> clip_;
};

} // namespace sonotype::runtime
