// The analysis worker's per-hit analysis: while it is on (request()), a HitClassifier runs over every
// sample the worker takes from the inlet, beside the windows, and the listener hears each hit as
// soon as it is classified, with its onset in samples of the whole stream. The worker owns one and
// tells it where the stream stands: it pushes each chunk it takes, and restarts the hits when a new
// stream, a new model or a gap begins (what a gap dropped is no hit's clip).
//
// Threading contract
// - Worker side (the AnalysisWorker's: the worker thread, or the control thread while the worker
//   thread is stopped, as AnalysisWorker::prepare() and applyPending() run): takeRequest(),
//   restart(), stop(), push(), isOn(). It alone touches the analyzer, the settings in use and the
//   stream position; the listener and the error reporter run on it.
// - Control thread (StreamingRuntime's, on the facade's control mutex): setListener() only while
//   the worker thread is stopped; request() any time.
// Shared: the request, control thread -> worker side, behind requestMutex_ (held only to copy it;
// never by the audio thread, which never comes here) with an atomic flag, so that the worker looks
// at the mutex only when there is something new. Nothing here waits for anything but that mutex.
#pragma once

#include "dsp/OnsetDetector.h"
#include "runtime/AnalysisInfo.h"
#include "runtime/HitClassifier.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace sonotype::runtime
{

class HitStream
{
public:
    /** A hit: `onsetSample` is its onset in host-rate samples of the whole stream since the
        worker's prepare() (as WindowResult::readySample counts); `info` the generation it was
        classified with. */
    using Listener = std::function<void (const HitResult& hit, int64_t onsetSample, const AnalysisInfo& info)>;
    /** Where a failure is reported (the worker's error): a prefix and the exception's message. */
    using ErrorReporter = std::function<void (const char* prefix, const char* what)>;

    explicit HitStream (ErrorReporter reportError) : reportError_ (std::move (reportError)) {}

    // ----- control thread ------------------------------------------------------------------------
    /** While the worker thread is stopped. */
    void setListener (Listener listener) { listener_ = std::move (listener); }
    /** Any time: the per-hit analysis on with these onset settings (the clip is the running
        model's: hitSettingsFor()), or off (nullopt). The worker side takes it before the next
        samples it pushes. The caller has validated the settings (an analyzer that cannot be made
        is reported as the error). */
    void request (std::optional<dsp::OnsetSettings> onsets);

    // ----- worker side ---------------------------------------------------------------------------
    /** Takes a pending request, if any. Returns whether the hits must start afresh (restart()):
        the request changes the settings, or no analyzer runs; the same settings again let the hits
        pending go on. False when nothing was requested. */
    bool takeRequest();
    /** A new analyzer for `model` at `hostSampleRate`, its hits counted from `streamSample` (the
        stream position where it starts); none while the analysis is off. A failure is reported,
        and the hits stay off until the next restart. */
    void restart (const std::shared_ptr<const engine::Model>& model, double hostSampleRate, int64_t streamSample);
    /** No analyzer (there is no stream to analyse yet); the settings stay for the next restart(). */
    void stop() noexcept { analyzer_.reset(); }
    /** Whether an analyzer runs (the per-hit analysis is on and could be made). */
    bool isOn() const noexcept { return analyzer_ != nullptr; }
    /** Feeds the worker's next chunk to the analyzer, with the classes `classesInPlay` (if set)
        gives for `info`; the listener hears each hit classified now. Returns how many there were.
        A failure stops the hits until the next request, model or rate, and is reported. */
    int64_t push (const float* samples, std::size_t count, const AnalysisInfo& info, const ClassSelector& classesInPlay);

private:
    ErrorReporter reportError_;
    Listener listener_; // set while the worker thread is stopped, run on the worker side

    std::mutex requestMutex_;                   // control thread and worker side; never the audio thread
    std::optional<dsp::OnsetSettings> request_; // guarded by requestMutex_
    std::atomic<bool> hasRequest_ { false };

    // The worker side's own.
    std::optional<dsp::OnsetSettings> onsets_; // the per-hit analysis on, with these
    std::unique_ptr<HitClassifier> analyzer_;  // null: off, no stream yet, or it could not be made
    int64_t startSample_ = 0;                  // stream position where analyzer_ started
};

} // namespace sonotype::runtime
