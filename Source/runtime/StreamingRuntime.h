// Live classification: the audio thread pushes blocks, a worker thread analyses the newest window
// every hop, readers get results and statistics lock-free. The model and the analysis settings can
// be replaced while audio runs (the worker swaps them between windows). See docs/RUNTIME.md.
#pragma once

#include "runtime/ResultBoard.h"
#include "runtime/SpscFifo.h"
#include "runtime/WindowAnalyzer.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace sonotype::runtime
{

/** Starts the worker's loop on a thread; the host layer may supply its own (e.g. a juce::Thread),
    or none at all and call processPending() itself (offline rendering, tests). */
class WorkerThread
{
public:
    virtual ~WorkerThread() = default;
    virtual void start (std::function<void()> loop) = 0;
    virtual void join() = 0;
};

/** The default: a std::thread. */
class StdWorkerThread final : public WorkerThread
{
public:
    void start (std::function<void()> loop) override { thread_ = std::thread (std::move (loop)); }
    void join() override
    {
        if (thread_.joinable())
            thread_.join();
    }

private:
    std::thread thread_;
};

struct RuntimeOptions
{
    double hopSeconds = 0.25;
    double smoothingSeconds = 0.0; // exponential moving average time constant; 0 = off
    double fifoSeconds = 4.0;      // audio the FIFO holds before the audio thread drops samples
    std::size_t historySize = 512; // results kept for readers (per model generation)
};

/** What readers need to interpret results: the model and the analysis settings they come from.
    Every reconfigure() makes a new generation; results carry its number. */
struct AnalysisInfo
{
    std::shared_ptr<const engine::Model> model;
    std::vector<std::string> labels;
    double windowSeconds = 0.0, hopSeconds = 0.0, smoothingSeconds = 0.0;
    double modelSampleRate = 0.0;
    uint64_t generation = 0;
};

struct RuntimeStats
{
    double lastInferenceMs = 0.0, meanInferenceMs = 0.0, maxInferenceMs = 0.0;
    double workerLoad = 0.0;       // mean inference time / hop: the share of one core the analysis takes
    int64_t windowsRun = 0, windowsSkipped = 0;
    int64_t fifoOverruns = 0;      // samples the audio thread had to drop
    int64_t nonFiniteSamples = 0;  // NaN/Inf samples replaced by 0
    int64_t pushedSamples = 0;     // host-rate samples the audio thread has pushed since prepare()
    int64_t inputSamples = 0;      // the worker's stream position: host-rate samples it has taken from
                                   // the FIFO, plus those the audio thread dropped before them
    int64_t analysedSamples = 0;   // the stream position up to which the worker has analysed (or, live,
                                   // skipped) every complete window and run its listener: when it
                                   // equals pushedSamples, every result the audio pushed so far can give is out
    double pushedSeconds = 0.0, streamSeconds = 0.0; // the same two, in seconds
    uint64_t generation = 0;       // of the model and settings in use
    std::string error;             // the worker's last error (a failed swap, an exception)
};

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

    /** Audio thread: copies a block (any channel count, any length) in. Never blocks, allocates or
        makes a system call; O(numChannels * numSamples). Before prepare(), does nothing.
        In non-real-time mode (below) it waits for room in the FIFO instead of dropping samples. */
    void push (const float* const* channels, int numChannels, int numSamples) noexcept;

    /** Any thread: non-real-time mode (a host rendering offline, faster than real time). The
        worker analyses every window instead of skipping to the newest, and the audio thread may
        wait for it (push(), waitUntilAnalysed()). Real time (the default) never waits. */
    void setNonRealtime (bool nonRealtime) noexcept { nonRealtime_.store (nonRealtime, std::memory_order_release); }
    bool isNonRealtime() const noexcept { return nonRealtime_.load (std::memory_order_acquire); }

    /** Audio thread, non-real-time mode: waits until the worker has taken everything pushed so far
        and analysed every window complete in it (its listener has run for each), so every result
        whose readySample lies before the end of the audio pushed so far is out. Returns false
        (without waiting further) when the worker is not running or `timeoutSeconds` pass without
        progress. Never allocates or locks; it sleeps in short steps. */
    bool waitUntilAnalysed (double timeoutSeconds = 10.0) noexcept;

    /** The worker's step: applies a pending reconfigure(), takes the audio pushed so far and
        analyses the newest complete window, if any (skipping older ones). Returns whether it did
        anything. Called by the worker thread's loop; a host that supplies a WorkerThread which
        runs nothing calls it itself. */
    bool processPending();

    /** Readers, from any thread (never the audio thread). Result times are seconds of the whole
        stream since prepare(), across model swaps. */
    bool latest (WindowResult& out) const;
    std::vector<WindowResult> history (std::size_t maxCount) const;
    RuntimeStats stats() const;
    std::shared_ptr<const AnalysisInfo> info() const;
    /** A result is stale when more than two hops of audio have been pushed since its window ended
        (a slow machine or a huge model): show it as such rather than as live. */
    bool isStale (const WindowResult& result) const;

    // The current generation's labels and window (convenience for info()).
    std::vector<std::string> labels() const { return info()->labels; }
    double windowSeconds() const { return info()->windowSeconds; }
    const RuntimeOptions& options() const noexcept { return options_; }

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

    struct Gap // samples the audio thread dropped, after `at` samples written to the FIFO
    {
        int64_t at = 0, count = 0;
    };

    void workerLoop();
    void setError (const char* prefix, const char* what) noexcept;
    bool analyseReady();
    void analyseWindow (int64_t k);
    std::shared_ptr<Generation> makeGeneration (const Pending& settings) const;
    void stopWorker();
    void applyPending();
    std::shared_ptr<Generation> current() const;

    RuntimeOptions options_;
    std::unique_ptr<WorkerThread> worker_;
    std::mutex controlMutex_; // prepare/stop/reconfigure/setResultListener take turns; never the audio thread or the worker
    std::function<void (const WindowResult&, const AnalysisInfo&)> listener_;

    mutable std::mutex generationMutex_; // worker (on a swap), control thread and readers; never the audio thread
    std::shared_ptr<Generation> generation_;
    std::unique_ptr<Pending> pending_;
    std::atomic<bool> hasPending_ { false };
    uint64_t generationCount_ = 1;

    // Rebuilt by prepare() while the worker is stopped; the analyzer also on a swap, by the worker.
    std::unique_ptr<SpscFifo> fifo_;
    std::unique_ptr<SpscRing<Gap>> gaps_;  // audio thread -> worker: where samples were dropped
    int64_t written_ = 0;                  // audio thread: samples written to the FIFO since prepare()
    Gap unsentGap_;                        // audio thread: a gap not handed to the worker yet
    int64_t fifoRead_ = 0;                 // worker: samples read from the FIFO since prepare()
    std::unique_ptr<WindowAnalyzer> analyzer_;
    std::shared_ptr<Generation> workerGeneration_; // the worker's own reference
    int64_t generationStartSample_ = 0;            // host-rate stream position where the analyzer started
    std::atomic<double> hostSampleRate_ { 0.0 };
    std::atomic<bool> nonRealtime_ { false };
    std::atomic<int64_t> analysedThrough_ { 0 }; // worker: FIFO samples taken and fully analysed
    int64_t readyDelay_ = 0;                      // worker: host samples the resampler may hold a window back
    std::atomic<bool> prepared_ { false };
    std::atomic<bool> running_ { false };
    bool workerStarted_ = false; // guarded by controlMutex_
    float downmix_[512] {};
    std::vector<float> chunk_;     // worker
    WindowResult result_;          // worker

    std::atomic<int64_t> fifoOverruns_ { 0 }, windowsRun_ { 0 }, windowsSkipped_ { 0 }, nonFinite_ { 0 }, inputSamples_ { 0 };
    std::atomic<int64_t> pushedSamples_ { 0 }, nonFiniteBefore_ { 0 }, analysedSamples_ { 0 };
    std::atomic<double> lastMs_ { 0.0 }, totalMs_ { 0.0 }, maxMs_ { 0.0 };
    mutable std::mutex errorMutex_; // worker and readers only, never the audio thread
    std::string error_;
};

} // namespace sonotype::runtime
