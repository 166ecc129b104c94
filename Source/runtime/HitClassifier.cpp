#include "runtime/HitClassifier.h"

#include "engine/file/Json.h"
#include "engine/file/ModelFileKeys.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sonotype::runtime
{
namespace
{
    constexpr double kLevelSeconds = 0.05; // a hit's level: its peak over this much after the onset

    struct Lengths
    {
        int64_t clip, preRoll, level;
    };

    /** The clip (cut to what the analyzer uses of it: samples after those change nothing), the
        pre-roll and the level's span, in input samples. */
    Lengths lengthsOf (const HitSettings& settings, double rate, std::size_t clipSamplesUsed)
    {
        return { std::min (static_cast<int64_t> (std::ceil (settings.clipSeconds * rate)), static_cast<int64_t> (clipSamplesUsed)),
                 static_cast<int64_t> (std::lround (settings.preRollSeconds * rate)), static_cast<int64_t> (std::ceil (kLevelSeconds * rate)) };
    }

    int64_t latencyOf (const Lengths& lengths, int64_t detectorLatency)
    {
        // An onset o (o >= preRoll) is decided at o + detectorLatency, and its clip and level are
        // complete at o - preRoll + max (clip, preRoll + level).
        return std::max ({ detectorLatency, lengths.clip - lengths.preRoll, lengths.level });
    }
} // namespace

double hitClipSeconds (const engine::Model& model, double fallback)
{
    const auto& metadata = model.info().metadata;
    const auto taught = metadata.find (engine::keys::taught);
    if (taught == metadata.end())
        return fallback;
    try
    {
        // A model taught from hits classifies them from the clip it learned them from.
        const auto json = engine::parseJson (taught->second);
        if (const auto* window = json.find (engine::keys::taughtOnsetWindow); window != nullptr && window->isNumber())
            return std::clamp (window->asNumber(), 0.01, 60.0);
    }
    catch (const engine::JsonError&)
    {
    }
    return fallback;
}

HitSettings hitSettingsFor (const engine::Model& model, const dsp::OnsetSettings& onsets)
{
    HitSettings settings;
    settings.onsets = onsets;
    settings.clipSeconds = hitClipSeconds (model);
    return settings;
}

void HitClassifier::checkSettings (const HitSettings& settings)
{
    if (! (settings.clipSeconds >= 0.01 && settings.clipSeconds <= 60.0))
        throw std::invalid_argument ("the clip of a hit must be between 0.01 and 60 seconds");
    if (! (settings.preRollSeconds >= 0.0 && settings.preRollSeconds <= 1.0))
        throw std::invalid_argument ("the pre-roll of a hit must be between 0 and 1 second");
}

HitClassifier::HitClassifier (std::shared_ptr<const engine::Model> model, double inputRate, const HitSettings& settings)
    : analyzer_ ((checkSettings (settings), std::move (model)), inputRate, 1.0), detector_ (inputRate, settings.onsets), settings_ (settings),
      rate_ (inputRate)
{
    const auto lengths = lengthsOf (settings, inputRate, analyzer_.clipSamplesUsed());
    clipSamples_ = lengths.clip;
    preRoll_ = lengths.preRoll;
    levelSamples_ = lengths.level;
    latency_ = latencyOf (lengths, detector_.latencySamples());
}

int64_t HitClassifier::latencySamples (const engine::Model& model, double inputRate, const HitSettings& settings)
{
    checkSettings (settings);
    dsp::OnsetDetector::checkSettings (settings.onsets);
    if (! (inputRate >= 1000.0 && inputRate <= 768000.0))
        throw std::invalid_argument ("onsets: the sample rate must be between 1 kHz and 768 kHz");
    return latencyOf (lengthsOf (settings, inputRate, WindowAnalyzer::clipSamplesUsed (frontendOf (model), inputRate)),
                      dsp::OnsetDetector::latencySamples (inputRate));
}

void HitClassifier::push (const float* samples, std::size_t numSamples, const Listener& onHit)
{
    const auto first = buffer_.size();
    buffer_.insert (buffer_.end(), samples, samples + numSamples);
    for (auto it = buffer_.begin() + static_cast<std::ptrdiff_t> (first); it != buffer_.end(); ++it)
        if (! std::isfinite (*it))
        {
            *it = 0.0f;
            ++numNonFinite_;
        }
    numRead_ += static_cast<int64_t> (numSamples);
    detector_.push (buffer_.data() + first, numSamples, found_);
    settle (false, onHit);
}

void HitClassifier::finish (const Listener& onHit)
{
    detector_.finish (found_);
    // An onset the detector places a little past the end (the stream ends in the middle of an attack) is the end.
    for (auto& onset : found_)
        onset = std::min (onset, std::max<int64_t> (numRead_ - 1, 0));
    settle (true, onHit);
}

void HitClassifier::classify (int64_t onset, const Listener& onHit)
{
    const auto from = std::max (bufferStart_, onset - preRoll_); // (never before: settle() keeps what an onset can need)
    const auto to = std::min (numRead_, from + clipSamples_);
    clip_.assign (buffer_.begin() + (from - bufferStart_), buffer_.begin() + (to - bufferStart_));
    analyzer_.analyzeClip (clip_.data(), clip_.size(), hit_.result);
    float peak = 0.0f;
    for (int64_t i = onset; i < std::min (numRead_, onset + levelSamples_); ++i)
        peak = std::max (peak, std::abs (buffer_[static_cast<std::size_t> (i - bufferStart_)]));
    hit_.onset = onset;
    hit_.levelDb = peak > 0.0f ? 20.0f * std::log10 (peak) : -200.0f;
    hit_.embedding = analyzer_.embedding();
    if (onHit)
        onHit (hit_);
}

void HitClassifier::settle (bool end, const Listener& onHit)
{
    // Classifies the pending hits whose clip has arrived (all of them at the end), then drops the
    // samples nothing needs any more.
    for (const auto onset : found_)
        pending_.push_back (onset);
    found_.clear();
    while (! pending_.empty()
           && (end || numRead_ >= std::max<int64_t> (0, pending_.front() - preRoll_) + std::max (clipSamples_, preRoll_ + levelSamples_)))
    {
        const auto onset = pending_.front();
        pending_.pop_front();
        classify (onset, onHit);
    }
    // Kept: from the earliest pending clip, or what an onset not yet reported may need.
    const auto keepFrom = pending_.empty() ? numRead_ - detector_.latencySamples() - preRoll_ - 2 * detector_.hopSize() : pending_.front() - preRoll_;
    const auto drop = std::clamp<int64_t> (keepFrom - bufferStart_, 0, static_cast<int64_t> (buffer_.size()));
    buffer_.erase (buffer_.begin(), buffer_.begin() + drop);
    bufferStart_ += drop;
}

} // namespace sonotype::runtime
