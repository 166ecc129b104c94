#include "runtime/StreamingRuntime.h"

#include <chrono>
#include <stdexcept>
#include <thread>

namespace sonotype::runtime
{
namespace
{
    /** The options, if a runtime can be made with them (checked before the worker is made). */
    const RuntimeOptions& checked (const engine::Model* model, const RuntimeOptions& options)
    {
        if (model == nullptr)
            throw std::invalid_argument ("no model");
        if (! (options.fifoSeconds > 0.0))
            throw std::invalid_argument ("the FIFO must hold some audio");
        return options;
    }
} // namespace

StreamingRuntime::StreamingRuntime (std::shared_ptr<const engine::Model> model, RuntimeOptions options, std::unique_ptr<WorkerThread> worker)
    : options_ (checked (model.get(), options)),
      worker_ (std::move (model), options_, inlet_, nonRealtime_),
      thread_ (std::move (worker))
{
}

StreamingRuntime::~StreamingRuntime()
{
    stop();
}

// ----- control threads --------------------------------------------------------------------------

void StreamingRuntime::stop()
{
    const std::lock_guard<std::mutex> lock (controlMutex_);
    stopWorker();
}

void StreamingRuntime::stopWorker()
{
    prepared_.store (false, std::memory_order_release);
    running_.store (false, std::memory_order_release);
    if (workerStarted_)
    {
        thread_->join();
        workerStarted_ = false;
    }
}

void StreamingRuntime::prepare (double hostSampleRate)
{
    const std::lock_guard<std::mutex> control (controlMutex_);
    stopWorker();
    worker_.prepare (hostSampleRate); // throws for a rate the analysis cannot work at: stays stopped
    inlet_.prepare (static_cast<std::size_t> (options_.fifoSeconds * hostSampleRate) + 16384);
    running_.store (true, std::memory_order_release);
    thread_->start ([this] { workerLoop(); });
    workerStarted_ = true;
    prepared_.store (true, std::memory_order_release);
}

void StreamingRuntime::reconfigure (std::shared_ptr<const engine::Model> model, double hopSeconds, double smoothingSeconds)
{
    WindowAnalyzer::checkSettings (hopSeconds, smoothingSeconds); // throws
    if (model != nullptr)
        frontendOf (*model); // a new model: it must have a front end (validated when it loaded; throws)
    const std::lock_guard<std::mutex> control (controlMutex_);
    worker_.request (std::move (model), hopSeconds, smoothingSeconds);
    if (! workerStarted_)
        worker_.applyPending(); // nobody else runs: swap now
}

void StreamingRuntime::setResultListener (std::function<void (const WindowResult&, const AnalysisInfo&)> listener)
{
    const std::lock_guard<std::mutex> control (controlMutex_);
    if (workerStarted_)
        throw std::logic_error ("setResultListener() while the worker runs");
    worker_.setListener (std::move (listener));
}

void StreamingRuntime::setClassSelector (AnalysisWorker::ClassSelector selector)
{
    const std::lock_guard<std::mutex> control (controlMutex_);
    if (workerStarted_)
        throw std::logic_error ("setClassSelector() while the worker runs");
    worker_.setClassSelector (std::move (selector));
}

void StreamingRuntime::setHitListener (AnalysisWorker::HitListener listener)
{
    const std::lock_guard<std::mutex> control (controlMutex_);
    if (workerStarted_)
        throw std::logic_error ("setHitListener() while the worker runs");
    worker_.setHitListener (std::move (listener));
}

void StreamingRuntime::setHitAnalysis (std::optional<dsp::OnsetSettings> onsets)
{
    if (onsets.has_value())
        dsp::OnsetDetector::checkSettings (*onsets); // throws for settings out of range
    const std::lock_guard<std::mutex> control (controlMutex_);
    worker_.requestHits (onsets);
}

// ----- audio thread -----------------------------------------------------------------------------

void StreamingRuntime::push (const float* const* channels, int numChannels, int numSamples) noexcept
{
    if (! prepared_.load (std::memory_order_acquire))
        return;
    inlet_.push (channels, numChannels, numSamples);
}

bool StreamingRuntime::waitUntilAnalyzed (double timeoutSeconds) noexcept
{
    if (! prepared_.load (std::memory_order_acquire))
        return false;
    auto lastProgress = std::chrono::steady_clock::now();
    auto seen = worker_.analyzedThrough();
    while (seen < inlet_.written())
    {
        if (! running_.load (std::memory_order_acquire))
            return false;
        std::this_thread::sleep_for (std::chrono::microseconds (20));
        const auto now = std::chrono::steady_clock::now();
        const auto through = worker_.analyzedThrough();
        if (through != seen)
            lastProgress = now;
        else if (std::chrono::duration<double> (now - lastProgress).count() > timeoutSeconds)
            return false;
        seen = through;
    }
    return true;
}

// ----- worker thread ----------------------------------------------------------------------------

void StreamingRuntime::workerLoop()
{
    try
    {
        while (running_.load (std::memory_order_acquire))
            if (! worker_.processPending())
            {
                // Idle. Offline the audio thread waits for us: look again soon. Live: about when
                // the next window is complete.
                if (nonRealtime_.load (std::memory_order_acquire))
                    std::this_thread::sleep_for (std::chrono::microseconds (50));
                else
                    std::this_thread::sleep_for (std::chrono::duration<double> (worker_.idleSeconds()));
            }
    }
    catch (const std::exception& e)
    {
        worker_.setError ("", e.what());
    }
    catch (...)
    {
        worker_.setError ("", "unknown error");
    }
    // The worker has stopped: nobody may wait for it (an offline host's audio thread).
    running_.store (false, std::memory_order_release);
}

// ----- readers ----------------------------------------------------------------------------------

bool StreamingRuntime::isStale (const WindowResult& result) const
{
    const double rate = worker_.hostSampleRate();
    if (rate <= 0.0)
        return false;
    const double pushed = static_cast<double> (inlet_.pushedSamples()) / rate;
    return pushed - result.endSeconds > 2.0 * worker_.info()->hopSeconds;
}

RuntimeStats StreamingRuntime::stats() const
{
    RuntimeStats stats;
    // The pushed count before the worker's position: analyzedSamples == pushedSamples then means
    // every result those samples can give is out.
    stats.fifoOverruns = inlet_.overruns();
    stats.pushedSamples = inlet_.pushedSamples();
    worker_.readStats (stats);
    const double rate = worker_.hostSampleRate();
    stats.pushedSeconds = rate > 0.0 ? static_cast<double> (stats.pushedSamples) / rate : 0.0;
    return stats;
}

} // namespace sonotype::runtime
