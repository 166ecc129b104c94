#include "runtime/StreamingRuntime.h"

#include <chrono>

namespace sonotype::runtime
{
namespace
{
    int numClassesOf (const engine::Model& model)
    {
        const auto& output = model.info().outputShapes.front();
        return output.rank() > 0 ? static_cast<int> (output[output.rank() - 1]) : 1;
    }
} // namespace

StreamingRuntime::StreamingRuntime (std::shared_ptr<const engine::Model> model, RuntimeOptions options, std::unique_ptr<WorkerThread> worker)
    : model_ (std::move (model)), options_ (options), worker_ (std::move (worker)), board_ (numClassesOf (*model_), options.historySize)
{
    // Validates the model and options now, not on the worker.
    const WindowAnalyzer probe (model_, 48000.0, options_.hopSeconds, options_.smoothingSeconds);
    labels_ = probe.labels();
    windowSeconds_ = probe.windowSeconds();
}

StreamingRuntime::~StreamingRuntime()
{
    stop();
}

void StreamingRuntime::stop()
{
    prepared_.store (false, std::memory_order_release);
    running_.store (false, std::memory_order_release);
    if (workerStarted_)
    {
        worker_->join();
        workerStarted_ = false;
    }
}

void StreamingRuntime::prepare (double hostSampleRate)
{
    stop();
    hostSampleRate_ = hostSampleRate;
    analyzer_ = std::make_unique<WindowAnalyzer> (model_, hostSampleRate, options_.hopSeconds, options_.smoothingSeconds);
    fifo_ = std::make_unique<SpscFifo> (static_cast<std::size_t> (options_.fifoSeconds * hostSampleRate) + 16384);
    chunk_.resize (8192);
    running_.store (true, std::memory_order_release);
    worker_->start ([this] { workerLoop(); });
    workerStarted_ = true;
    prepared_.store (true, std::memory_order_release);
}

void StreamingRuntime::push (const float* const* channels, int numChannels, int numSamples) noexcept
{
    if (! prepared_.load (std::memory_order_acquire) || numChannels <= 0 || numSamples <= 0)
        return;
    const float scale = 1.0f / static_cast<float> (numChannels);
    for (int offset = 0; offset < numSamples; offset += static_cast<int> (std::size (downmix_)))
    {
        const int count = std::min (numSamples - offset, static_cast<int> (std::size (downmix_)));
        for (int i = 0; i < count; ++i)
        {
            float sum = 0.0f;
            for (int c = 0; c < numChannels; ++c)
                sum += channels[c] != nullptr ? channels[c][offset + i] : 0.0f;
            downmix_[i] = sum * scale;
        }
        const auto written = fifo_->write (downmix_, static_cast<std::size_t> (count));
        if (written < static_cast<std::size_t> (count))
            fifoOverruns_.fetch_add (count - static_cast<int64_t> (written), std::memory_order_relaxed);
    }
}

bool StreamingRuntime::processPending()
{
    bool gotAudio = false;
    while (const auto count = fifo_->read (chunk_.data(), chunk_.size()))
    {
        analyzer_->push (chunk_.data(), count);
        gotAudio = true;
    }
    inputSamples_.store (analyzer_->numInputSamples(), std::memory_order_relaxed);
    nonFinite_.store (analyzer_->numNonFiniteSamples(), std::memory_order_relaxed);
    const auto newest = analyzer_->newestCompleteWindow();
    if (newest < analyzer_->nextWindow())
        return gotAudio;
    // Behind? Skip to the newest window rather than fall further behind.
    windowsSkipped_.fetch_add (newest - analyzer_->nextWindow(), std::memory_order_relaxed);
    analyzer_->analyze (newest, result_);
    board_.publish (result_);
    const auto run = windowsRun_.fetch_add (1, std::memory_order_relaxed) + 1;
    lastMs_.store (result_.inferenceMs, std::memory_order_relaxed);
    totalMs_.store (totalMs_.load (std::memory_order_relaxed) + result_.inferenceMs, std::memory_order_relaxed);
    if (result_.inferenceMs > maxMs_.load (std::memory_order_relaxed) || run == 1)
        maxMs_.store (result_.inferenceMs, std::memory_order_relaxed);
    return true;
}

void StreamingRuntime::workerLoop()
{
    try
    {
        while (running_.load (std::memory_order_acquire))
            if (! processPending())
                std::this_thread::sleep_for (std::chrono::milliseconds (2));
    }
    catch (const std::exception& e)
    {
        const std::lock_guard<std::mutex> lock (errorMutex_);
        error_ = e.what();
    }
}

bool StreamingRuntime::latest (WindowResult& out) const
{
    return board_.latest (out);
}

std::vector<WindowResult> StreamingRuntime::history (std::size_t maxCount) const
{
    return board_.history (maxCount);
}

RuntimeStats StreamingRuntime::stats() const
{
    RuntimeStats stats;
    stats.windowsRun = windowsRun_.load (std::memory_order_relaxed);
    stats.windowsSkipped = windowsSkipped_.load (std::memory_order_relaxed);
    stats.fifoOverruns = fifoOverruns_.load (std::memory_order_relaxed);
    stats.nonFiniteSamples = nonFinite_.load (std::memory_order_relaxed);
    stats.lastInferenceMs = lastMs_.load (std::memory_order_relaxed);
    stats.maxInferenceMs = maxMs_.load (std::memory_order_relaxed);
    stats.meanInferenceMs = stats.windowsRun > 0 ? totalMs_.load (std::memory_order_relaxed) / static_cast<double> (stats.windowsRun) : 0.0;
    stats.inputSamples = inputSamples_.load (std::memory_order_relaxed);
    stats.streamSeconds = hostSampleRate_ > 0.0 ? static_cast<double> (stats.inputSamples) / hostSampleRate_ : 0.0;
    const std::lock_guard<std::mutex> lock (errorMutex_);
    stats.error = error_;
    return stats;
}

} // namespace sonotype::runtime
