#include "runtime/WindowAnalyzer.h"

#include "engine/file/ModelError.h"
#include "engine/file/Text.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sonotype::runtime
{
namespace
{
    /** to[i] = from[i], NaN and infinite samples as silence; returns how many there were. Written
        without branches, so it vectorises. */
    int64_t copyFinite (const float* from, std::size_t count, float* to) noexcept
    {
        int64_t numNonFinite = 0;
        for (std::size_t i = 0; i < count; ++i)
        {
            const float sample = from[i];
            const bool finite = std::abs (sample) <= std::numeric_limits<float>::max();
            to[i] = finite ? sample : 0.0f;
            numNonFinite += finite ? 0 : 1;
        }
        return numNonFinite;
    }
} // namespace

std::vector<std::string> classLabels (const engine::Model& model)
{
    auto labels = model.info().labels;
    const auto& output = model.info().outputShapes.front();
    if (labels.empty())
        for (int64_t i = 0, n = output.rank() > 0 ? output[output.rank() - 1] : 1; i < n; ++i)
            labels.push_back ("class" + std::to_string (i));
    return labels;
}

std::vector<bool> classesInPlay (const std::vector<std::string>& labels, const std::vector<std::string>& inPlay)
{
    std::vector<bool> mask (labels.size(), inPlay.empty());
    for (const auto& wanted : inPlay)
    {
        const auto found = std::find (labels.begin(), labels.end(), wanted);
        if (found == labels.end())
        {
            std::string known;
            for (const auto& label : labels)
                known += (known.empty() ? "" : ", ") + label;
            throw std::invalid_argument (engine::quote (wanted) + " is not a class of this model (its classes: " + engine::printable (known) + ")");
        }
        mask[static_cast<std::size_t> (found - labels.begin())] = true;
    }
    return mask;
}

const engine::FrontendSettings& frontendOf (const engine::Model& model)
{
    if (! model.info().frontend.has_value())
        throw dsp::FrontendError ("the model has no front-end settings, which classify and the plugin need to feed it audio: export it with "
                                  "export_model(..., frontend=...)");
    return *model.info().frontend;
}

WindowAnalyzer::WindowAnalyzer (std::shared_ptr<const engine::Model> model, double inputRate, double hopSeconds, double smoothingSeconds)
    : model_ (std::move (model)), session_ (model_), settings_ (frontendOf (*model_)),
      resampler_ (std::in_place, inputRate, settings_.sampleRate), labels_ (classLabels (*model_)), hopSeconds_ (hopSeconds),
      smoothingSeconds_ (smoothingSeconds)
{
    checkSettings (hopSeconds, smoothingSeconds);
    if (settings_.windowSamples <= 0)
        throw dsp::FrontendError ("the model's analysis window length is unknown");
    if (! settings_.isWaveform())
        logMel_.emplace (settings_);
    const auto& output = model_->info().outputShapes.front();
    numClasses_ = output.rank() > 0 ? static_cast<int> (output[output.rank() - 1]) : 1;
    scores_ = model_->info().scores;
    // Room for a window and what arrives before the next one (more is allocated if a hop is long).
    const double hopSamples = std::min (2.0 * hopSeconds * settings_.sampleRate, 4.0 * settings_.windowSamples);
    samples_.reserve (static_cast<std::size_t> (settings_.windowSamples + hopSamples) + 65536);
    smoothed_.assign (static_cast<std::size_t> (numClasses_), 0.0f);
}

void WindowAnalyzer::checkSettings (double hopSeconds, double smoothingSeconds)
{
    if (! (hopSeconds > 0.0 && hopSeconds <= 3600.0))
        throw dsp::FrontendError ("the hop must be between 0 and 3600 seconds");
    if (! (smoothingSeconds >= 0.0 && std::isfinite (smoothingSeconds)))
        throw dsp::FrontendError ("the smoothing time constant must not be negative");
}

void WindowAnalyzer::setHop (double hopSeconds)
{
    checkSettings (hopSeconds, smoothingSeconds_);
    // Window nextWindow_ keeps its start (its samples are still here); the grid continues from it.
    originSample_ = windowStart (nextWindow_);
    originSeconds_ = windowStartSeconds (nextWindow_);
    originWindow_ = nextWindow_;
    hopSeconds_ = hopSeconds;
}

void WindowAnalyzer::setClassesInPlay (const std::vector<bool>& inPlay)
{
    if (! inPlay.empty() && inPlay.size() != static_cast<std::size_t> (numClasses_))
        throw std::invalid_argument ("classes in play: " + std::to_string (inPlay.size()) + " flags for a model of " + std::to_string (numClasses_)
                                     + " classes");
    const bool all = std::all_of (inPlay.begin(), inPlay.end(), [] (bool b) { return b; });
    const bool none = std::none_of (inPlay.begin(), inPlay.end(), [] (bool b) { return b; });
    if (all || none)
        inPlay_.clear();
    else
        inPlay_ = inPlay;
}

std::span<const float> WindowAnalyzer::embedding() const noexcept
{
    const auto& index = model_->info().embeddingOutput;
    return index.has_value() ? session_.output (static_cast<std::size_t> (*index)) : std::span<const float>();
}

std::span<const float> WindowAnalyzer::output (std::size_t index) const noexcept
{
    return index < model_->info().outputShapes.size() ? session_.output (index) : std::span<const float>();
}

void WindowAnalyzer::setSmoothing (double smoothingSeconds)
{
    checkSettings (hopSeconds_, smoothingSeconds);
    smoothingSeconds_ = smoothingSeconds;
}

void WindowAnalyzer::push (const float* samples, std::size_t numSamples)
{
    scratch_.resize (numSamples);
    numNonFinite_ += copyFinite (samples, numSamples, scratch_.data()); // NaN and infinite samples become silence, counted
    numInput_ += static_cast<int64_t> (numSamples);
    resampler_->process (scratch_.data(), scratch_.size(), samples_);
}

void WindowAnalyzer::finish()
{
    resampler_->flush (samples_);
}

void WindowAnalyzer::restart (double inputRate)
{
    if (inputRate == resampler_->inputRate())
        resampler_->restart();
    else
        resampler_.emplace (inputRate, settings_.sampleRate);
    if (logMel_.has_value())
        logMel_->forgetStream();
    originWindow_ = originSample_ = 0;
    originSeconds_ = 0.0;
    samples_.clear();
    bufferStart_ = 0;
    nextWindow_ = 0;
    numNonFinite_ = numInput_ = 0;
    std::fill (smoothed_.begin(), smoothed_.end(), 0.0f);
    lastWindow_ = -1;
    lastStartSeconds_ = 0.0;
}

int64_t WindowAnalyzer::skip (int64_t numInputSamples)
{
    if (numInputSamples <= 0)
        return 0;
    numInput_ += numInputSamples;
    resampler_->restart();
    // What the resampler still held back is lost with the gap; its first output sample after the
    // restart is the input's first sample after it.
    samples_.clear();
    bufferStart_ = std::llround (static_cast<double> (numInput_) * settings_.sampleRate / resampler_->inputRate());
    const int64_t before = nextWindow_;
    auto k = originWindow_ + static_cast<int64_t> (std::ceil (static_cast<double> (bufferStart_ - originSample_) / (hopSeconds_ * settings_.sampleRate)));
    while (k > nextWindow_ && windowStart (k - 1) >= bufferStart_)
        --k;
    while (windowStart (k) < bufferStart_)
        ++k;
    nextWindow_ = std::max (nextWindow_, k);
    return nextWindow_ - before;
}

int64_t WindowAnalyzer::windowStart (int64_t k) const noexcept
{
    return originSample_ + std::llround (static_cast<double> (k - originWindow_) * hopSeconds_ * settings_.sampleRate);
}

double WindowAnalyzer::windowStartSeconds (int64_t k) const noexcept
{
    return originSeconds_ + static_cast<double> (k - originWindow_) * hopSeconds_;
}

int64_t WindowAnalyzer::newestCompleteWindow() const noexcept
{
    const int64_t end = bufferStart_ + static_cast<int64_t> (samples_.size()); // samples received so far
    if (end < settings_.windowSamples)
        return -1;
    auto k = originWindow_
             + static_cast<int64_t> (std::floor (static_cast<double> (end - settings_.windowSamples - originSample_) / (hopSeconds_ * settings_.sampleRate)));
    while (k >= 0 && windowStart (k) + settings_.windowSamples > end)
        --k;
    while (windowStart (k + 1) + settings_.windowSamples <= end)
        ++k;
    return k;
}

double WindowAnalyzer::secondsUntilComplete (int64_t k) const noexcept
{
    const int64_t end = bufferStart_ + static_cast<int64_t> (samples_.size());
    const int64_t missing = windowStart (k) + settings_.windowSamples - end;
    return missing > 0 ? static_cast<double> (missing) / settings_.sampleRate : 0.0;
}

void WindowAnalyzer::analyze (int64_t k, WindowResult& result)
{
    const int64_t start = windowStart (k);
    run (k, samples_.data() + (start - bufferStart_), result);
    nextWindow_ = k + 1;
    // Samples before the next window's start are no longer needed.
    const int64_t keepFrom = std::min (windowStart (nextWindow_), bufferStart_ + static_cast<int64_t> (samples_.size()));
    samples_.erase (samples_.begin(), samples_.begin() + static_cast<std::ptrdiff_t> (keepFrom - bufferStart_));
    bufferStart_ = keepFrom;
}

bool WindowAnalyzer::analyzePaddedFirstWindow (WindowResult& result)
{
    if (nextWindow_ > 0 || samples_.empty() || bufferStart_ != 0 || static_cast<int64_t> (samples_.size()) >= settings_.windowSamples)
        return false;
    std::vector<float> padded (samples_);
    padded.resize (static_cast<std::size_t> (settings_.windowSamples), 0.0f);
    run (0, padded.data(), result);
    nextWindow_ = 1;
    return true;
}

void WindowAnalyzer::run (int64_t k, const float* samples, WindowResult& result)
{
    const auto started = std::chrono::steady_clock::now();
    auto input = session_.input();
    if (logMel_.has_value())
        logMel_->computeWindow (samples, settings_.windowSamples, windowStart (k), input.data());
    else
        std::copy (samples, samples + settings_.windowSamples, input.begin());
    session_.run();
    probabilitiesFromOutput (result);
    smoothAndRank (k, windowStartSeconds (k), result);
    result.windowIndex = k;
    result.startSeconds = windowStartSeconds (k);
    result.endSeconds = result.startSeconds + windowSeconds();
    result.inferenceMs = std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now() - started).count();
}

void WindowAnalyzer::smoothAndRank (int64_t k, double startSeconds, WindowResult& result)
{
    if (smoothingSeconds_ > 0.0)
    {
        // Exponential moving average with time constant smoothingSeconds, over the time since the
        // last analyzed window (windows skipped by a late worker count as elapsed time).
        const double elapsed = lastWindow_ < 0 ? 0.0 : startSeconds - lastStartSeconds_;
        const auto keep = lastWindow_ < 0 ? 0.0f : static_cast<float> (std::exp (-elapsed / smoothingSeconds_));
        for (std::size_t c = 0; c < smoothed_.size(); ++c)
            result.probabilities[c] = smoothed_[c] = keep * smoothed_[c] + (1.0f - keep) * result.probabilities[c];
    }
    else
        std::copy (result.probabilities.begin(), result.probabilities.end(), smoothed_.begin()); // smoothing switched on later goes on from here
    lastWindow_ = k;
    lastStartSeconds_ = startSeconds;
    result.topClass = topClassInPlay (result.probabilities);
    result.confidence = result.probabilities[static_cast<std::size_t> (result.topClass)];
}

void WindowAnalyzer::analyzeTail (const float* lastSamples, std::size_t numSamples, WindowResult& result)
{
    analyzeClip (lastSamples, numSamples, result);
    // The stream's end in seconds, as a file's duration is counted: its samples over its rate.
    const double end = static_cast<double> (numInput_) / resampler_->inputRate();
    const int64_t k = nextWindow_;
    result.startSeconds = std::max (0.0, end - windowSeconds());
    result.endSeconds = end;
    smoothAndRank (k, result.startSeconds, result);
    result.windowIndex = k;
    nextWindow_ = k + 1;
}

void WindowAnalyzer::analyzeClip (const float* samples, std::size_t numSamples, WindowResult& result)
{
    const auto started = std::chrono::steady_clock::now();
    // Only what one window needs (and the resampler's margin) is resampled: the rest would be cut.
    const double inputRate = resampler_->inputRate();
    scratch_.resize (std::min (numSamples, clipSamplesUsed()));
    copyFinite (samples, scratch_.size(), scratch_.data());
    clip_.clear();
    // The clip alone, from its first sample: a resampler of its own, restarted as a new one (its
    // filter kept: designing it costs about half of what the model does for the clip).
    if (clipResampler_.has_value() && clipResampler_->inputRate() == inputRate)
        clipResampler_->restart();
    else
        clipResampler_.emplace (inputRate, settings_.sampleRate);
    clipResampler_->process (scratch_.data(), scratch_.size(), clip_);
    clipResampler_->flush (clip_);
    clip_.resize (static_cast<std::size_t> (settings_.windowSamples), 0.0f); // cut to one window, or zero-padded as a short file is
    auto input = session_.input();
    if (logMel_.has_value())
        logMel_->compute (clip_.data(), settings_.windowSamples, input.data());
    else
        std::copy (clip_.begin(), clip_.end(), input.begin());
    session_.run();
    probabilitiesFromOutput (result);
    result.topClass = topClassInPlay (result.probabilities);
    result.confidence = result.probabilities[static_cast<std::size_t> (result.topClass)];
    result.windowIndex = -1;
    result.startSeconds = 0.0;
    result.endSeconds = static_cast<double> (numSamples) / inputRate;
    result.inferenceMs = std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now() - started).count();
}

std::size_t WindowAnalyzer::fileBlockSamples (double rate) noexcept
{
    return static_cast<std::size_t> (std::clamp (2.0 * rate, 1024.0, 16384.0));
}

std::size_t WindowAnalyzer::clipSamplesUsed (const engine::FrontendSettings& settings, double inputRate) noexcept
{
    return static_cast<std::size_t> (std::ceil (settings.windowSamples / settings.sampleRate * inputRate)) + 256;
}

int WindowAnalyzer::topClassInPlay (const std::vector<float>& probabilities) const noexcept
{
    // The most probable class in play (the first, when none is more probable: all 0, or NaN).
    int top = -1;
    for (int c = 0; c < numClasses_; ++c)
        if ((inPlay_.empty() || inPlay_[static_cast<std::size_t> (c)])
            && (top < 0 || probabilities[static_cast<std::size_t> (c)] > probabilities[static_cast<std::size_t> (top)]))
            top = c;
    return std::max (top, 0);
}

void WindowAnalyzer::probabilitiesFromOutput (WindowResult& result)
{
    const auto logits = session_.output();
    // Probabilities over the classes of the output's first row: as the model gives them, or a softmax of its logits.
    result.probabilities.resize (static_cast<std::size_t> (numClasses_));
    const auto inPlay = [this] (int c) { return inPlay_.empty() || inPlay_[static_cast<std::size_t> (c)]; };
    if (scores_ == engine::OutputScores::probabilities || scores_ == engine::OutputScores::independentProbabilities)
    {
        std::copy (logits.begin(), logits.begin() + numClasses_, result.probabilities.begin());
        if (! inPlay_.empty())
        {
            // Only the classes in play: the others 0, a distribution renormalised over the rest.
            double sum = 0.0;
            for (int c = 0; c < numClasses_; ++c)
                sum += inPlay (c) ? result.probabilities[static_cast<std::size_t> (c)] : (result.probabilities[static_cast<std::size_t> (c)] = 0.0f);
            if (scores_ == engine::OutputScores::probabilities && sum > 0.0)
                for (auto& p : result.probabilities)
                    p = static_cast<float> (p / sum);
        }
    }
    else
    {
        // A softmax of the logits (log-probabilities: the same), over the classes in play.
        float maximum = -std::numeric_limits<float>::infinity();
        for (int c = 0; c < numClasses_; ++c)
            if (inPlay (c))
                maximum = std::max (maximum, logits[static_cast<std::size_t> (c)]);
        double sum = 0.0;
        for (int c = 0; c < numClasses_; ++c)
            sum += result.probabilities[static_cast<std::size_t> (c)] = inPlay (c) ? std::exp (logits[static_cast<std::size_t> (c)] - maximum) : 0.0f;
        if (scores_ == engine::OutputScores::logProbabilities && inPlay_.empty())
            std::transform (logits.begin(), logits.begin() + numClasses_, result.probabilities.begin(), [] (float v) { return std::exp (v); });
        else
            for (auto& p : result.probabilities)
                p = static_cast<float> (p / sum);
    }
}

} // namespace sonotype::runtime
