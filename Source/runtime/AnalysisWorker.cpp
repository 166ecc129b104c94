#include "runtime/AnalysisWorker.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sonotype::runtime
{
namespace
{
    /** At most how many host samples after a window's end its last samples come out of the
        resampler (libsoxr's output does not depend on how the input is split into blocks, so
        neither does this). Measured on zeros in blocks of `step`: between two measurements the
        delay grows by less than `step`. */
    int64_t resamplerDelay (double hostRate, double modelRate)
    {
        if (hostRate == modelRate)
            return 0;
        dsp::Resampler resampler (hostRate, modelRate);
        constexpr int step = 64;
        const std::vector<float> zeros (step, 0.0f);
        std::vector<float> out;
        double worst = 0.0;
        int64_t produced = 0;
        const auto total = std::max<int64_t> (static_cast<int64_t> (0.5 * hostRate), 16384); // several of soxr's output bursts
        for (int64_t pushed = step; pushed <= total; pushed += step)
        {
            out.clear(); // only the count matters
            resampler.process (zeros.data(), zeros.size(), out);
            produced += static_cast<int64_t> (out.size());
            worst = std::max (worst, static_cast<double> (pushed) - static_cast<double> (produced) * hostRate / modelRate);
        }
        return static_cast<int64_t> (std::ceil (worst)) + step + 1;
    }

    int numClassesOf (const engine::Model& model)
    {
        const auto& output = model.info().outputShapes.front();
        return output.rank() > 0 ? static_cast<int> (output[output.rank() - 1]) : 1;
    }
} // namespace

AnalysisWorker::Generation::Generation (AnalysisInfo analysisInfo, std::size_t historySize)
    : info (std::move (analysisInfo)), boardPtr (std::make_shared<ResultBoard> (numClassesOf (*info.model), historySize)), board (*boardPtr)
{
}

AnalysisWorker::Generation::Generation (AnalysisInfo analysisInfo, std::shared_ptr<ResultBoard> sharedBoard)
    : info (std::move (analysisInfo)), boardPtr (std::move (sharedBoard)), board (*boardPtr)
{
}

AnalysisWorker::AnalysisWorker (std::shared_ptr<const engine::Model> model, const RuntimeOptions& options, AudioInlet& inlet,
                                const std::atomic<bool>& nonRealtime)
    : historySize_ (options.historySize), inlet_ (inlet), nonRealtime_ (nonRealtime)
{
    if (model == nullptr)
        throw std::invalid_argument ("no model");
    const Pending settings { std::move (model), options.hopSeconds, options.smoothingSeconds };
    WindowAnalyzer::checkSettings (settings.hopSeconds, settings.smoothingSeconds);
    generation_ = makeGeneration (settings);
    generation_->info.generation = generationCount_;
    workerGeneration_ = generation_;
}

std::shared_ptr<AnalysisWorker::Generation> AnalysisWorker::makeGeneration (const Pending& settings) const
{
    const auto& frontend = frontendOf (*settings.model); // throws for a model without one
    AnalysisInfo info;
    info.model = settings.model;
    info.labels = classLabels (*settings.model);
    info.windowSeconds = frontend.windowSamples / frontend.sampleRate;
    info.hopSeconds = settings.hopSeconds;
    info.smoothingSeconds = settings.smoothingSeconds;
    info.modelSampleRate = frontend.sampleRate;
    return std::make_shared<Generation> (std::move (info), historySize_);
}

std::shared_ptr<AnalysisWorker::Generation> AnalysisWorker::current() const
{
    const std::lock_guard<std::mutex> lock (generationMutex_);
    return generation_;
}

// ----- control thread ---------------------------------------------------------------------------

void AnalysisWorker::prepare (double hostSampleRate)
{
    if (hasPending_.load (std::memory_order_acquire))
        applyPending();
    // The stream starts again: a fresh generation (same model and settings) with an empty history.
    const auto previous = current();
    const Pending settings { previous->info.model, previous->info.hopSeconds, previous->info.smoothingSeconds };
    analyzer_ = std::make_unique<WindowAnalyzer> (settings.model, hostSampleRate, settings.hopSeconds, settings.smoothingSeconds);
    auto fresh = makeGeneration (settings);
    {
        const std::lock_guard<std::mutex> lock (generationMutex_);
        fresh->info.generation = ++generationCount_;
        generation_ = fresh;
    }
    workerGeneration_ = std::move (fresh);
    hostSampleRate_.store (hostSampleRate, std::memory_order_relaxed);
    generationStartSample_ = 0;
    inputSamples_.store (0, std::memory_order_relaxed);
    analyzedSamples_.store (0, std::memory_order_relaxed);
    nonFiniteBefore_.store (0, std::memory_order_relaxed);
    fifoRead_ = 0;
    analyzedThrough_.store (0, std::memory_order_relaxed);
    readyDelay_ = resamplerDelay (hostSampleRate, analyzer_->settings().sampleRate);
    chunk_.resize (8192);
    hitsFound_.store (0, std::memory_order_relaxed);
    hits_.takeRequest(); // a pending per-hit request first; whatever it changes, a new stream
    restartHits();       // starts the hits afresh from its start
}

void AnalysisWorker::request (std::shared_ptr<const engine::Model> model, double hopSeconds, double smoothingSeconds)
{
    {
        const std::lock_guard<std::mutex> lock (generationMutex_);
        // Build on what will run next: a swap still waiting for the worker, else the running model.
        if (model == nullptr)
            model = pending_ != nullptr ? pending_->model : generation_->info.model;
        const bool modelChanged = model != generation_->info.model;
        pending_ = std::make_unique<Pending> (Pending { std::move (model), hopSeconds, smoothingSeconds, modelChanged });
    }
    hasPending_.store (true, std::memory_order_release);
}

void AnalysisWorker::applyPending()
{
    std::unique_ptr<Pending> pending;
    std::shared_ptr<Generation> running;
    {
        const std::lock_guard<std::mutex> lock (generationMutex_);
        pending = std::move (pending_);
        running = generation_;
        hasPending_.store (false, std::memory_order_release);
    }
    if (pending == nullptr)
        return;
    try
    {
        if (! pending->modelChanged && pending->model == running->info.model)
        {
            // Only the hop or the smoothing: the analyzer goes on (samples, features, smoothing
            // state), the generation and its history stay; readers see the new settings.
            if (analyzer_ != nullptr)
            {
                analyzer_->setHop (pending->hopSeconds);
                analyzer_->setSmoothing (pending->smoothingSeconds);
            }
            auto info = running->info;
            info.hopSeconds = pending->hopSeconds;
            info.smoothingSeconds = pending->smoothingSeconds;
            auto next = std::make_shared<Generation> (std::move (info), running->boardPtr);
            {
                const std::lock_guard<std::mutex> lock (generationMutex_);
                generation_ = next;
            }
            workerGeneration_ = std::move (next);
            return;
        }
        // Before the first prepare() there is no stream yet: the analyzer only describes the generation.
        const double rate = analyzer_ != nullptr ? hostSampleRate_.load (std::memory_order_relaxed) : 48000.0;
        auto analyzer = std::make_unique<WindowAnalyzer> (pending->model, rate, pending->hopSeconds, pending->smoothingSeconds);
        auto next = makeGeneration (*pending);
        if (analyzer_ != nullptr)
        {
            if (analyzer->settings().sampleRate != analyzer_->settings().sampleRate)
                readyDelay_ = resamplerDelay (rate, analyzer->settings().sampleRate);
            generationStartSample_ += analyzer_->numInputSamples();
            nonFiniteBefore_.store (nonFiniteBefore_.load (std::memory_order_relaxed) + analyzer_->numNonFiniteSamples(),
                                    std::memory_order_relaxed);
            analyzer_ = std::move (analyzer);
        }
        {
            const std::lock_guard<std::mutex> lock (generationMutex_);
            next->info.generation = ++generationCount_;
            generation_ = next;
        }
        workerGeneration_ = std::move (next);
        restartHits(); // the new model's hits (and its clip) from here on
    }
    catch (const std::exception& e)
    {
        setError ("could not switch the model: ", e.what());
    }
}

// ----- worker thread ----------------------------------------------------------------------------

bool AnalysisWorker::processPending()
{
    if (hasPending_.load (std::memory_order_acquire))
        applyPending();
    if (hits_.takeRequest())
        restartHits();
    bool didSomething = false;
    for (;;)
    {
        // The samples written so far first, then the gaps: a gap written before them is seen.
        const auto available = inlet_.available();
        AudioInlet::Gap gap;
        const bool hasGap = inlet_.peekGap (gap);
        if (hasGap && gap.at <= fifoRead_)
        {
            inlet_.takeGap();
            analyzeReady(); // the windows complete before the gap
            windowsSkipped_.fetch_add (analyzer_->skip (gap.count), std::memory_order_relaxed);
            if (hits_.isOn())
                restartHits(); // after the gap (what it dropped is no hit's clip)
            didSomething = true;
            continue;
        }
        auto want = std::min (available, chunk_.size());
        if (hasGap)
            want = std::min (want, static_cast<std::size_t> (gap.at - fifoRead_));
        if (want == 0)
            break;
        const auto count = inlet_.read (chunk_.data(), want);
        fifoRead_ += static_cast<int64_t> (count);
        analyzer_->push (chunk_.data(), count);
        hitsFound_.fetch_add (hits_.push (chunk_.data(), count, workerGeneration_->info, classSelector_), std::memory_order_relaxed);
        didSomething = true;
    }
    inputSamples_.store (generationStartSample_ + analyzer_->numInputSamples(), std::memory_order_relaxed);
    nonFinite_.store (nonFiniteBefore_.load (std::memory_order_relaxed) + analyzer_->numNonFiniteSamples(), std::memory_order_relaxed);
    const bool analyzed = analyzeReady();
    analyzedSamples_.store (generationStartSample_ + analyzer_->numInputSamples(), std::memory_order_release);
    analyzedThrough_.store (fifoRead_, std::memory_order_release);
    return analyzed || didSomething;
}

double AnalysisWorker::idleSeconds() const noexcept
{
    constexpr double shortest = 0.002, longest = 0.02;
    if (hits_.isOn() || analyzer_ == nullptr)
        return shortest;
    return std::clamp (analyzer_->secondsUntilComplete (analyzer_->nextWindow()), shortest, longest);
}

bool AnalysisWorker::analyzeReady()
{
    const auto newest = analyzer_->newestCompleteWindow();
    if (newest < analyzer_->nextWindow())
        return false;
    if (nonRealtime_.load (std::memory_order_acquire))
    {
        // Offline: every window, in order (the audio thread waits for us).
        for (auto k = analyzer_->nextWindow(); k <= newest; ++k)
            analyzeWindow (k);
        return true;
    }
    // Behind? Skip to the newest window rather than fall further behind.
    windowsSkipped_.fetch_add (newest - analyzer_->nextWindow(), std::memory_order_relaxed);
    analyzeWindow (newest);
    return true;
}

void AnalysisWorker::analyzeWindow (int64_t k)
{
    if (classSelector_)
        analyzer_->setClassesInPlay (classSelector_ (workerGeneration_->info)); // (no allocation once the mask has its size)
    analyzer_->analyze (k, result_);
    const double offset = static_cast<double> (generationStartSample_) / hostSampleRate_.load (std::memory_order_relaxed);
    result_.startSeconds += offset;
    result_.endSeconds += offset;
    result_.generation = workerGeneration_->info.generation;
    const double rate = hostSampleRate_.load (std::memory_order_relaxed);
    result_.readySample = static_cast<int64_t> (std::ceil (result_.endSeconds * rate - 1e-6)) + 1 + readyDelay_;
    workerGeneration_->board.publish (result_);
    const auto run = windowsRun_.fetch_add (1, std::memory_order_relaxed) + 1;
    lastMs_.store (result_.inferenceMs, std::memory_order_relaxed);
    totalMs_.store (totalMs_.load (std::memory_order_relaxed) + result_.inferenceMs, std::memory_order_relaxed);
    if (result_.inferenceMs > maxMs_.load (std::memory_order_relaxed) || run == 1)
        maxMs_.store (result_.inferenceMs, std::memory_order_relaxed);
    if (listener_)
        listener_ (result_, workerGeneration_->info);
}

void AnalysisWorker::restartHits()
{
    if (analyzer_ == nullptr)
        hits_.stop(); // no stream yet: prepare() starts them
    else
        hits_.restart (workerGeneration_->info.model, hostSampleRate_.load (std::memory_order_relaxed),
                       generationStartSample_ + analyzer_->numInputSamples());
}

void AnalysisWorker::setError (const char* prefix, const char* what) noexcept
{
    try
    {
        const std::lock_guard<std::mutex> lock (errorMutex_);
        error_ = std::string (prefix) + what;
    }
    catch (...)
    {
        // No memory even for the message (std::bad_alloc): keep the previous one rather than
        // let an exception out of the worker thread, which would end the host.
    }
}

// ----- readers ----------------------------------------------------------------------------------

bool AnalysisWorker::latest (WindowResult& out) const
{
    const auto generation = current();
    if (! generation->board.latest (out))
        return false;
    out.generation = generation->info.generation;
    return true;
}

std::vector<WindowResult> AnalysisWorker::history (std::size_t maxCount) const
{
    const auto generation = current();
    auto results = generation->board.history (maxCount);
    for (auto& result : results)
        result.generation = generation->info.generation;
    return results;
}

std::shared_ptr<const AnalysisInfo> AnalysisWorker::info() const
{
    const auto generation = current();
    return { generation, &generation->info };
}

void AnalysisWorker::readStats (RuntimeStats& stats) const
{
    const auto generation = current();
    stats.generation = generation->info.generation;
    stats.windowsRun = windowsRun_.load (std::memory_order_relaxed);
    stats.windowsSkipped = windowsSkipped_.load (std::memory_order_relaxed);
    stats.hits = hitsFound_.load (std::memory_order_relaxed);
    stats.nonFiniteSamples = nonFinite_.load (std::memory_order_relaxed);
    stats.lastInferenceMs = lastMs_.load (std::memory_order_relaxed);
    stats.maxInferenceMs = maxMs_.load (std::memory_order_relaxed);
    stats.meanInferenceMs = stats.windowsRun > 0 ? totalMs_.load (std::memory_order_relaxed) / static_cast<double> (stats.windowsRun) : 0.0;
    stats.workerLoad = stats.meanInferenceMs / (1000.0 * generation->info.hopSeconds);
    stats.inputSamples = inputSamples_.load (std::memory_order_relaxed);
    stats.analyzedSamples = analyzedSamples_.load (std::memory_order_acquire);
    const double rate = hostSampleRate_.load (std::memory_order_relaxed);
    stats.streamSeconds = rate > 0.0 ? static_cast<double> (stats.inputSamples) / rate : 0.0;
    const std::lock_guard<std::mutex> lock (errorMutex_);
    stats.error = error_;
}

} // namespace sonotype::runtime
