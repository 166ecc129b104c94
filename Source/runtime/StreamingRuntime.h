// Live classification: the audio thread pushes blocks, a worker thread analyses the newest window
// every hop, readers get results and statistics lock-free. See docs/RUNTIME.md for who owns what.
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
    std::size_t historySize = 512; // results kept for readers
};

struct RuntimeStats
{
    double lastInferenceMs = 0.0, meanInferenceMs = 0.0, maxInferenceMs = 0.0;
    int64_t windowsRun = 0, windowsSkipped = 0;
    int64_t fifoOverruns = 0;      // samples the audio thread had to drop
    int64_t nonFiniteSamples = 0;  // NaN/Inf samples replaced by 0
    int64_t inputSamples = 0;      // host-rate samples the worker has taken from the FIFO
    double streamSeconds = 0.0;    // the same, in seconds
    std::string error;             // set if the worker stopped on an error
};

class StreamingRuntime
{
public:
    /** Throws for a model without usable front-end settings. */
    StreamingRuntime (std::shared_ptr<const engine::Model> model, RuntimeOptions options = {},
                      std::unique_ptr<WorkerThread> worker = std::make_unique<StdWorkerThread>());
    ~StreamingRuntime();

    /** Off the audio thread: (re)starts for a host sample rate, dropping any buffered audio. */
    void prepare (double hostSampleRate);
    /** Stops the worker (also done by the destructor). */
    void stop();

    /** Audio thread: copies a block (any channel count, any length) in. Never blocks, allocates or
        makes a system call; O(numChannels * numSamples). Before prepare(), does nothing. */
    void push (const float* const* channels, int numChannels, int numSamples) noexcept;

    /** The worker's step: takes the audio pushed so far and analyses the newest complete window, if
        any (skipping older ones). Returns whether it did anything. Called by the worker thread's
        loop; a host that supplies a WorkerThread which runs nothing calls it itself. */
    bool processPending();

    /** Readers, from any thread. */
    bool latest (WindowResult& out) const;
    std::vector<WindowResult> history (std::size_t maxCount) const;
    RuntimeStats stats() const;
    const std::vector<std::string>& labels() const noexcept { return labels_; }
    double windowSeconds() const noexcept { return windowSeconds_; }
    const RuntimeOptions& options() const noexcept { return options_; }

private:
    void workerLoop();

    std::shared_ptr<const engine::Model> model_;
    RuntimeOptions options_;
    std::unique_ptr<WorkerThread> worker_;
    std::vector<std::string> labels_;
    double windowSeconds_ = 0.0;
    ResultBoard board_;

    // Rebuilt by prepare() while the worker is stopped.
    std::unique_ptr<SpscFifo> fifo_;
    std::unique_ptr<WindowAnalyzer> analyzer_;
    double hostSampleRate_ = 0.0;
    std::atomic<bool> prepared_ { false };
    std::atomic<bool> running_ { false };
    bool workerStarted_ = false;
    float downmix_[512] {};
    std::vector<float> chunk_;     // worker
    WindowResult result_;          // worker

    std::atomic<int64_t> fifoOverruns_ { 0 }, windowsRun_ { 0 }, windowsSkipped_ { 0 }, nonFinite_ { 0 }, inputSamples_ { 0 };
    std::atomic<double> lastMs_ { 0.0 }, totalMs_ { 0.0 }, maxMs_ { 0.0 };
    mutable std::mutex errorMutex_; // worker and readers only, never the audio thread
    std::string error_;
};

} // namespace sonotype::runtime
