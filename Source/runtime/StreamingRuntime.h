// Live classification: the audio thread pushes blocks, a worker thread analyses the newest window
// every hop, readers get results and statistics lock-free. The model and the analysis settings can
// be replaced while audio runs (the worker swaps them between windows). See docs/RUNTIME.md.
//
// The facade over two parts, split by the thread that owns them:
// - AudioInlet (the audio thread's): push, downmix, FIFO, gaps;
// - AnalysisWorker (the worker thread's): generations, analyzer, results, statistics, and its
//   HitStream (the per-hit analysis of the same samples);
// and the worker thread itself (WorkerThread), which this class starts and stops.
//
// Threading contract
// - Audio thread: push(), waitUntilAnalyzed() (and setNonRealtime()/isNonRealtime()). Never
//   blocks, allocates, locks or makes a system call; in non-real-time mode only, it sleeps in
//   short steps waiting for the worker (push() for room in the FIFO, waitUntilAnalyzed()).
// - Control threads (the message thread; a device thread preparing): the constructor, prepare(),
//   stop(), reconfigure(), setResultListener(). They take turns on controlMutex_, which neither
//   the audio thread nor the worker ever touches. prepare() and stop() must not run concurrently
//   with push() (hosts never call prepareToPlay during processBlock). They may block: prepare()
//   and stop() join the worker.
// - Worker thread: workerLoop(), i.e. processPending(); the result listener runs on it.
// - Readers, any thread but the audio thread: latest(), history(), stats(), info(), isStale(),
//   labels(), windowSeconds(). They never block the worker or the audio thread.
// Shared by all: prepared_ (control -> audio thread), running_ (control <-> worker -> audio
// thread: the worker clears it when it stops, so nobody waits for it), nonRealtime_ (any thread);
// all atomics. The audio travels audio thread -> worker through the inlet's lock-free rings.
#pragma once

#include "runtime/AnalysisInfo.h"
#include "runtime/AnalysisWorker.h"
#include "runtime/AudioInlet.h"
#include "runtime/RuntimeOptions.h"
#include "runtime/RuntimeStats.h"
#include "runtime/WorkerThread.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace sonotype::runtime
{

class StreamingRuntime
{
public:
    /** Throws for a model without usable front-end settings or bad options. */
    StreamingRuntime (std::shared_ptr<const engine::Model> model, RuntimeOptions options = {},
                      std::unique_ptr<WorkerThread> worker = std::make_unique<StdWorkerThread>());
    ~StreamingRuntime();

    /** Off the audio thread: (re)starts for a host sample rate, dropping any buffered audio.
        prepare(), stop(), reconfigure() and setResultListener() may be called from different
        control threads (a device thread preparing while the message thread swaps models): they
        take turns. */
    void prepare (double hostSampleRate);
    /** Stops the worker (also done by the destructor). */
    void stop();

    /** Control thread, any time (also while audio runs): replaces the model (null keeps the
        current one) and the hop and smoothing. Validates first and throws (engine::ModelError,
        dsp::FrontendError, std::invalid_argument) without changing anything; otherwise the worker
        swaps between two windows, the audio thread never notices, and the new generation's first
        result comes one window of audio later. */
    void reconfigure (std::shared_ptr<const engine::Model> model, double hopSeconds, double smoothingSeconds);

    /** Control thread, while the worker is stopped (before prepare()): called on the worker after
        each result is published, e.g. to turn detections into MIDI or OSC. */
    void setResultListener (std::function<void (const WindowResult&, const AnalysisInfo&)> listener);
    /** Control thread, while the worker is stopped: asked on the worker before each window which of
        the generation's classes are in play (WindowAnalyzer::setClassesInPlay: the others get 0,
        the answer is renormalised over these). */
    void setClassSelector (AnalysisWorker::ClassSelector selector);

    /** Control thread, while the worker is stopped: called on the worker for each hit of the
        per-hit analysis (setHitAnalysis()) as soon as it is classified. */
    void setHitListener (AnalysisWorker::HitListener listener);
    /** Control thread, any time: the per-hit analysis on, with these onset settings (the clip is
        the running model's, as classify --onsets takes it: hitSettingsFor()), alongside the
        windows; or off (nullopt). Throws std::invalid_argument for onset settings out of range,
        without changing anything. In non-real-time mode, waitUntilAnalyzed() also waits for the
        hits: every hit whose onset lies latencySamples() before the end of the audio pushed so
        far has been heard by the listener. */
    void setHitAnalysis (std::optional<dsp::OnsetSettings> onsets);

    /** Audio thread: copies a block (any channel count, any length) in. Never blocks, allocates or
        makes a system call; O(numChannels * numSamples). Before prepare(), does nothing.
        In non-real-time mode (below) it waits for room in the FIFO instead of dropping samples. */
    void push (const float* const* channels, int numChannels, int numSamples) noexcept;

    /** Any thread: non-real-time mode (a host rendering offline, faster than real time). The
        worker analyses every window instead of skipping to the newest, and the audio thread may
        wait for it (push(), waitUntilAnalyzed()). Real time (the default) never waits. */
    void setNonRealtime (bool nonRealtime) noexcept { nonRealtime_.store (nonRealtime, std::memory_order_release); }
    bool isNonRealtime() const noexcept { return nonRealtime_.load (std::memory_order_acquire); }

    /** Audio thread, non-real-time mode: waits until the worker has taken everything pushed so far
        and analyzed every window complete in it (its listener has run for each), so every result
        whose readySample lies before the end of the audio pushed so far is out. Returns false
        (without waiting further) when the worker is not running or `timeoutSeconds` pass without
        progress. Never allocates or locks; it sleeps in short steps. */
    bool waitUntilAnalyzed (double timeoutSeconds = 10.0) noexcept;

    /** The worker's step: applies a pending reconfigure(), takes the audio pushed so far and
        analyses the newest complete window, if any (skipping older ones). Returns whether it did
        anything. Called by the worker thread's loop; a host that supplies a WorkerThread which
        runs nothing calls it itself. */
    bool processPending() { return worker_.processPending(); }

    /** Readers, from any thread (never the audio thread). Result times are seconds of the whole
        stream since prepare(), across model swaps. */
    bool latest (WindowResult& out) const { return worker_.latest (out); }
    std::vector<WindowResult> history (std::size_t maxCount) const { return worker_.history (maxCount); }
    RuntimeStats stats() const;
    std::shared_ptr<const AnalysisInfo> info() const { return worker_.info(); }
    /** A result is stale when more than two hops of audio have been pushed since its window ended
        (a slow machine or a huge model): show it as such rather than as live. */
    bool isStale (const WindowResult& result) const;

    // The current generation's labels and window (convenience for info()).
    std::vector<std::string> labels() const { return info()->labels; }
    double windowSeconds() const { return info()->windowSeconds; }
    const RuntimeOptions& options() const noexcept { return options_; }

private:
    void workerLoop();
    void stopWorker();

    const RuntimeOptions options_;
    std::atomic<bool> prepared_ { false };
    std::atomic<bool> running_ { false };
    std::atomic<bool> nonRealtime_ { false };
    AudioInlet inlet_ { nonRealtime_, running_ };
    AnalysisWorker worker_;

    std::unique_ptr<WorkerThread> thread_;
    std::mutex controlMutex_;    // prepare/stop/reconfigure/setResultListener take turns; never the audio thread or the worker
    bool workerStarted_ = false; // guarded by controlMutex_
};

} // namespace sonotype::runtime
