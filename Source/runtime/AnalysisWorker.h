// The streaming runtime's analysis worker: takes the audio the inlet buffered, runs the
// WindowAnalyzer over the newest complete window (every window, in non-real-time mode), publishes
// results for readers and keeps the statistics. It also owns the model generations: a
// reconfigure() is a request that the worker applies between two windows. Its HitStream runs the
// per-hit analysis (requestHits()) over every chunk of samples the worker takes.
//
// Threading contract
// - Worker thread (StreamingRuntime's loop, or whoever calls StreamingRuntime::processPending()):
//   processPending(), idleSeconds(), setError(). It alone touches the analyzer, its generation,
//   the FIFO's read side, the chunk, the result being built and the HitStream's worker side; the
//   result listener and the hit listener run on it.
// - Control thread (StreamingRuntime's prepare/stop/reconfigure/setResultListener, which take
//   turns on the facade's control mutex): prepare(), setListener(), setClassSelector() and
//   setHitListener() only while the worker thread is stopped; request() and requestHits() any
//   time; applyPending() only while the worker thread is stopped.
// - Readers, any thread but the audio thread: latest(), history(), info(), readStats(),
//   hostSampleRate().
// - Audio thread: analyzedThrough() only (an atomic; StreamingRuntime::waitUntilAnalyzed()).
// Shared: the current generation and a pending request, behind generationMutex_ (worker on a swap,
// control thread, readers; never the audio thread; held only to copy a pointer); results through
// each generation's ResultBoard (seqlocked, readers never block the worker); a per-hit request
// inside the HitStream (its own mutex, control thread and worker, held only to copy it);
// statistics in atomics; the last error behind errorMutex_ (worker and readers only). Nothing
// here ever waits for the audio thread; the audio thread reads only analyzedThrough() here (in
// non-real-time mode it sleeps until that advances). What may block: the worker's analysis (a
// window's inference, a hit's clip) and, briefly, the three mutexes between worker, control
// thread and readers.
#pragma once

#include "runtime/AnalysisInfo.h"
#include "runtime/AudioInlet.h"
#include "runtime/HitStream.h"
#include "runtime/ResultBoard.h"
#include "runtime/RuntimeOptions.h"
#include "runtime/RuntimeStats.h"
#include "runtime/WindowAnalyzer.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace sonotype::runtime
{

class AnalysisWorker
{
public:
    using Listener = std::function<void (const WindowResult&, const AnalysisInfo&)>;
    /** The classes in play for a generation, asked before each window and each chunk of the hits. */
    using ClassSelector = runtime::ClassSelector;
    /** A hit of the per-hit analysis (HitStream::Listener). */
    using HitListener = HitStream::Listener;

    /** The first generation: `model` (not null) with the options' hop and smoothing. Throws for a
        model without usable front-end settings or bad settings. Reads its audio from `inlet`;
        `nonRealtime` is the facade's flag (analyze every window rather than the newest). */
    AnalysisWorker (std::shared_ptr<const engine::Model> model, const RuntimeOptions& options, AudioInlet& inlet,
                    const std::atomic<bool>& nonRealtime);

    // ----- control thread ------------------------------------------------------------------------
    /** While the worker thread is stopped: applies a pending request, then starts a new stream at
        `hostSampleRate`: a fresh generation (same model and settings, empty history), a new
        analyzer, the worker's counts from 0. Throws (the analyzer cannot work at that rate)
        before changing anything but the pending request. */
    void prepare (double hostSampleRate);
    /** While the worker thread is stopped. */
    void setListener (Listener listener) { listener_ = std::move (listener); }
    /** While the worker thread is stopped. */
    void setClassSelector (ClassSelector selector) { classSelector_ = std::move (selector); }
    /** While the worker thread is stopped. */
    void setHitListener (HitListener listener) { hits_.setListener (std::move (listener)); }
    /** Any time: the per-hit analysis on with these onset settings (HitStream::request()), or off
        (nullopt). The worker applies it before the next samples it takes; a new model, a new rate
        (prepare()) or a gap starts the hit analysis afresh. */
    void requestHits (std::optional<dsp::OnsetSettings> onsets) { hits_.request (onsets); }
    /** Any time: leaves a new model (null: the one that will run next) and settings for the
        worker; the caller has validated them. */
    void request (std::shared_ptr<const engine::Model> model, double hopSeconds, double smoothingSeconds);
    /** The worker between two windows, or the control thread while the worker is stopped: swaps
        in what request() left, if anything. A failure is reported as the error (stats()). */
    void applyPending();

    // ----- worker thread -------------------------------------------------------------------------
    /** Applies a pending request, takes the audio pushed so far and analyses the newest complete
        window, if any (skipping older ones). Returns whether it did anything. */
    bool processPending();
    /** Worker thread, after processPending() found nothing to do: how long it may sleep before
        looking again. Until about when the next window is complete (the audio it still needs),
        between 2 and 20 ms; 2 ms with the per-hit analysis on (a hit is classified as soon as its
        clip is in). Fewer wake-ups for a DAW full of instances, and each reads a longer chunk. */
    double idleSeconds() const noexcept;
    void setError (const char* prefix, const char* what) noexcept;

    // ----- readers (any thread but the audio thread) --------------------------------------------
    bool latest (WindowResult& out) const;
    std::vector<WindowResult> history (std::size_t maxCount) const;
    std::shared_ptr<const AnalysisInfo> info() const;
    /** Fills in the worker's part of the statistics (all but the inlet's counts). */
    void readStats (RuntimeStats& stats) const;
    /** 0 before the first prepare(). */
    double hostSampleRate() const noexcept { return hostSampleRate_.load (std::memory_order_relaxed); }

    // ----- audio thread --------------------------------------------------------------------------
    /** FIFO samples the worker has taken and fully analyzed (its listener run) since prepare(). */
    int64_t analyzedThrough() const noexcept { return analyzedThrough_.load (std::memory_order_acquire); }

private:
    struct Generation
    {
        Generation (AnalysisInfo analysisInfo, std::size_t historySize);
        Generation (AnalysisInfo analysisInfo, std::shared_ptr<ResultBoard> sharedBoard); // same history
        AnalysisInfo info;
        std::shared_ptr<ResultBoard> boardPtr;
        ResultBoard& board;
    };
    struct Pending
    {
        std::shared_ptr<const engine::Model> model;
        double hopSeconds, smoothingSeconds;
        bool modelChanged = true; // false: only hop/smoothing change, the analyzer and history stay
    };

    bool analyzeReady();
    void analyzeWindow (int64_t k);
    void restartHits(); // the hits afresh from the current stream position (none before prepare())
    std::shared_ptr<Generation> makeGeneration (const Pending& settings) const;
    std::shared_ptr<Generation> current() const;

    const std::size_t historySize_;
    AudioInlet& inlet_;
    const std::atomic<bool>& nonRealtime_;
    Listener listener_;           // set while the worker is stopped, run by the worker
    ClassSelector classSelector_; // the same

    mutable std::mutex generationMutex_; // worker (on a swap), control thread and readers; never the audio thread
    std::shared_ptr<Generation> generation_;
    std::unique_ptr<Pending> pending_;
    std::atomic<bool> hasPending_ { false };
    uint64_t generationCount_ = 1;

    // The worker's own (prepare() sets them up while the worker is stopped; the analyzer is also
    // replaced on a swap, by the worker).
    std::unique_ptr<WindowAnalyzer> analyzer_;
    std::shared_ptr<Generation> workerGeneration_; // the worker's own reference
    int64_t generationStartSample_ = 0;            // host-rate stream position where the analyzer started
    int64_t fifoRead_ = 0;                         // samples read from the FIFO since prepare()
    int64_t readyDelay_ = 0;                       // host samples the resampler may hold a window back
    std::vector<float> chunk_;
    WindowResult result_;

    // The per-hit analysis (its worker side is the worker's); its failures are the worker's error.
    HitStream hits_ { [this] (const char* prefix, const char* what) { setError (prefix, what); } };

    std::atomic<double> hostSampleRate_ { 0.0 };
    std::atomic<int64_t> analyzedThrough_ { 0 }; // FIFO samples taken and fully analyzed
    std::atomic<int64_t> windowsRun_ { 0 }, windowsSkipped_ { 0 }, nonFinite_ { 0 }, inputSamples_ { 0 }, hitsFound_ { 0 };
    std::atomic<int64_t> nonFiniteBefore_ { 0 }, analyzedSamples_ { 0 };
    std::atomic<double> lastMs_ { 0.0 }, totalMs_ { 0.0 }, maxMs_ { 0.0 };
    mutable std::mutex errorMutex_; // worker and readers only, never the audio thread
    std::string error_;
};

} // namespace sonotype::runtime
