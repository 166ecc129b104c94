#include "plugin/HitNotes.h"

#include "plugin/PluginParameters.h"
#include "runtime/Detector.h"
#include "timeline/MidiNotes.h"

#include <algorithm>
#include <cmath>

namespace sonotype::plugin
{
namespace
{
    constexpr int kDelayChunk = 1024; // the delay line is written and read in steps of at most this

    /** A parameter's float as the number typed at the command line: rounded to `decimals`. */
    double typed (float value, int decimals) noexcept
    {
        const double scale = std::pow (10.0, decimals);
        return std::round (static_cast<double> (value) * scale) / scale;
    }
} // namespace

HitNotes::HitNotes (juce::AudioProcessorValueTreeState& parameters)
    : hitMode_ (*parameters.getRawParameterValue (ParameterIds::hitMode)), midiOut_ (*parameters.getRawParameterValue (ParameterIds::midiOut)),
      baseNote_ (*parameters.getRawParameterValue (ParameterIds::baseNote)),
      threshold_ (*parameters.getRawParameterValue (ParameterIds::onsetThreshold)),
      gap_ (*parameters.getRawParameterValue (ParameterIds::onsetGap)), silence_ (*parameters.getRawParameterValue (ParameterIds::onsetSilence)),
      response_ (*parameters.getRawParameterValue (ParameterIds::hitResponse))
{
    offAt_.fill (-1);
}

// ----- message thread ---------------------------------------------------------------------------

bool HitNotes::isOn() const noexcept
{
    return hitMode_.load (std::memory_order_relaxed) >= 0.5f;
}

HitResponse HitNotes::response() const noexcept
{
    return response_.load (std::memory_order_relaxed) >= 0.5f ? HitResponse::exact : HitResponse::live;
}

void HitNotes::setLive (std::unique_ptr<runtime::LiveHits> live, std::shared_ptr<const engine::Model> model)
{
    auto slot = std::make_unique<LiveSlot>();
    slot->hits = std::move (live);
    slot->model = std::move (model);
    liveSpan_.store (slot->hits != nullptr && slot->hits->classifier() != nullptr ? slot->hits->classifier()->kit().afterSeconds : 0.0,
                     std::memory_order_relaxed);
    slot->sequence = nextSequence_++;
    published_.store (slot.get(), std::memory_order_release);
    slots_.push_back (std::move (slot));
    // The slots published before the one the audio thread has taken are no longer its: it takes
    // only the newest, and the sequence it stores says it has let go of every older one.
    const auto taken = taken_.load (std::memory_order_acquire);
    // (The one just published has the newest sequence: never below what was taken.)
    std::erase_if (slots_, [taken] (const auto& old) { return old->sequence < taken; });
}

const runtime::LiveHits* HitNotes::live() const noexcept
{
    const auto* slot = published_.load (std::memory_order_relaxed);
    return slot != nullptr ? slot->hits.get() : nullptr;
}

void HitNotes::setClassesInPlay (const std::vector<bool>& inPlay) noexcept
{
    uint64_t mask = ~uint64_t { 0 };
    for (std::size_t c = 0; c < inPlay.size() && c < 64; ++c)
        if (! inPlay[c])
            mask &= ~(uint64_t { 1 } << c);
    inPlay_.store (mask, std::memory_order_relaxed);
}

dsp::OnsetSettings HitNotes::onsetSettings() const noexcept
{
    dsp::OnsetSettings settings;
    settings.threshold = typed (threshold_.load (std::memory_order_relaxed), 2); // steps of 0.05
    settings.minGapSeconds = typed (gap_.load (std::memory_order_relaxed), 3);   // steps of 5 ms
    settings.silenceDb = typed (silence_.load (std::memory_order_relaxed), 0);   // whole dB
    return settings;
}

void HitNotes::prepare (double sampleRate, int numChannels)
{
    const int capacity = static_cast<int> (std::ceil (kMaxLatencySeconds * sampleRate)) + kDelayChunk;
    delayLines_.assign (static_cast<std::size_t> (std::max (numChannels, 0)), std::vector<float> (static_cast<std::size_t> (capacity), 0.0f));
    capacity_.store (capacity - kDelayChunk, std::memory_order_relaxed);
    delayWrite_ = 0;
    rate_.store (sampleRate, std::memory_order_relaxed);
    noteSamples_ = std::max<int64_t> (1, std::llround (kNoteSeconds * sampleRate));
    HitEvent stale;
    while (queue_.read (&stale, 1) == 1)
    {
    }
    numHeld_ = 0;
    streamPosition_ = 0;
    closeAll_ = numSounding_ > 0;
    lastDelay_.store (-1, std::memory_order_relaxed);
    liveHits_.store (0, std::memory_order_relaxed);
    // (The audio thread is not running: the live path starts again with the stream.)
    current_ = published_.load (std::memory_order_acquire);
    if (current_ != nullptr)
    {
        if (current_->hits != nullptr)
            current_->hits->reset();
        taken_.store (current_->sequence, std::memory_order_release);
    }
    liveStart_ = 0;
}

int HitNotes::setLatency (int64_t samples) noexcept
{
    const auto room = static_cast<int64_t> (capacity_.load (std::memory_order_relaxed));
    const auto latency = std::clamp<int64_t> (samples, 0, room);
    shortfall_.store (std::max<int64_t> (0, samples - room), std::memory_order_relaxed);
    latency_.store (static_cast<int> (latency), std::memory_order_relaxed);
    return static_cast<int> (latency);
}

// ----- worker thread ----------------------------------------------------------------------------

void HitNotes::queueHit (const runtime::HitResult& hit, int64_t onsetSample, const std::vector<bool>& enabled, const runtime::AnalysisInfo& info) noexcept
{
    if (! isOn() || midiOut_.load (std::memory_order_relaxed) < 0.5f)
        return;
    const auto& probabilities = hit.result.probabilities;
    const int top = runtime::topEnabledClass (probabilities.data(), static_cast<int> (probabilities.size()), enabled);
    const int note = notes_.noteOf (info, top, juce::roundToInt (baseNote_.load (std::memory_order_relaxed)));
    if (top < 0 || note < 0 || note > 127)
        return;
    const HitEvent event { onsetSample, note, timeline::hitVelocity (hit.levelDb) };

    queue_.write (&event, 1); // (full: the audio thread is not taking them; the hit is lost)
}

// ----- audio thread -----------------------------------------------------------------------------

void HitNotes::listen (const juce::AudioBuffer<float>& buffer, int numChannels, int numSamples) noexcept
{
    auto* slot = published_.load (std::memory_order_acquire);
    if (slot != current_)
    {
        // A new live path (or none): its hits count from here.
        current_ = slot;
        liveStart_ = streamPosition_;
        liveBase_ = -1; // its notes are resolved at the first hit
        taken_.store (slot != nullptr ? slot->sequence : 0, std::memory_order_release);
    }
    auto* live = current_ != nullptr ? current_->hits.get() : nullptr;
    const int channels = std::min (numChannels, buffer.getNumChannels());
    if (live == nullptr || channels <= 0)
        return;
    for (int start = 0; start < numSamples; start += kMixChunk)
    {
        const int count = std::min (kMixChunk, numSamples - start);
        std::copy_n (buffer.getReadPointer (0, start), count, mix_.data());
        for (int c = 1; c < channels; ++c)
            juce::FloatVectorOperations::add (mix_.data(), buffer.getReadPointer (c, start), count);
        if (channels > 1)
            juce::FloatVectorOperations::multiply (mix_.data(), 1.0f / static_cast<float> (channels), count);
        const auto found = live->push (mix_.data(), static_cast<std::size_t> (count), found_.data(), found_.size());
        for (std::size_t i = 0; i < found; ++i)
            addHit (liveStart_ + found_[i].onset, found_[i].label, found_[i].levelDb);
    }
}

void HitNotes::addHit (int64_t onset, int label, float levelDb) noexcept
{
    liveHits_.fetch_add (1, std::memory_order_relaxed);
    const bool inPlay = label >= 64 || (label >= 0 && ((inPlay_.load (std::memory_order_relaxed) >> label) & 1u) != 0);
    const int base = juce::roundToInt (baseNote_.load (std::memory_order_relaxed));
    if (base != liveBase_ && current_ != nullptr && current_->model != nullptr)
    {
        // The model's notes at this base (resolveNotes neither allocates nor throws).
        const auto& info = current_->model->info();
        timeline::resolveNotes (info.labels, info.classNotes, base, liveNotes_);
        liveBase_ = base;
    }
    const int note = label < 0 ? timeline::kNoNote : label < ModelNotes::kMaxClasses && liveBase_ >= 0 ? liveNotes_[static_cast<std::size_t> (label)]
                                                                                                       : base + label;
    if (! inPlay || note < 0 || note > 127 || ! isOn() || midiOut_.load (std::memory_order_relaxed) < 0.5f || numHeld_ >= static_cast<int> (held_.size()))
        return; // (unknown, out of play, or no room: no note)
    held_[static_cast<std::size_t> (numHeld_++)] = HitEvent { onset, note, timeline::hitVelocity (levelDb) };
}

void HitNotes::delayAudio (juce::AudioBuffer<float>& buffer, int numChannels, int numSamples) noexcept
{
    const int channels = std::min ({ numChannels, buffer.getNumChannels(), static_cast<int> (delayLines_.size()) });
    if (delayLines_.empty())
        return;
    const int size = static_cast<int> (delayLines_.front().size());
    const int latency = latency_.load (std::memory_order_relaxed);
    for (int start = 0; start < numSamples; start += kDelayChunk)
    {
        // In steps of at most kDelayChunk, so that the line (latency + a step) never overwrites
        // what a step still reads.
        const int count = std::min (kDelayChunk, numSamples - start);
        const int read = (delayWrite_ - latency + size) % size;
        for (int c = 0; c < channels; ++c)
        {
            auto* line = delayLines_[static_cast<std::size_t> (c)].data();
            auto* samples = buffer.getWritePointer (c, start);
            const int first = std::min (count, size - delayWrite_);
            std::copy_n (samples, first, line + delayWrite_);
            std::copy_n (samples + first, count - first, line);
            if (latency > 0)
            {
                const int firstOut = std::min (count, size - read);
                std::copy_n (line + read, firstOut, samples);
                std::copy_n (line, count - firstOut, samples + firstOut);
            }
        }
        delayWrite_ = (delayWrite_ + count) % size;
    }
}

void HitNotes::writeBlock (juce::MidiBuffer& midi, int numSamples, bool stopEverything) noexcept
{
    const int64_t blockStart = streamPosition_, blockEnd = streamPosition_ + numSamples;
    const int last = std::max (numSamples - 1, 0);
    stopEverything = stopEverything || ! isOn() || midiOut_.load (std::memory_order_relaxed) < 0.5f;
    if (std::exchange (closeAll_, false) || stopEverything)
    {
        // Every sounding note ends at the block's start; nothing queued is played.
        for (int note = 0; note < 128 && numSounding_ > 0; ++note)
            if (offAt_[static_cast<std::size_t> (note)] >= 0)
            {
                timeline::addNoteOff (midi, note, 0);
                offAt_[static_cast<std::size_t> (note)] = -1;
                --numSounding_;
            }
    }
    HitEvent event;
    while (numHeld_ < static_cast<int> (held_.size()) && queue_.read (&event, 1) == 1)
        held_[static_cast<std::size_t> (numHeld_++)] = event;
    if (stopEverything)
        numHeld_ = 0;

    // Each note on its sample, onset + latency, or at the block's start when that has passed
    // (live, the result came later); the ones for later blocks wait.
    const int latency = latency_.load (std::memory_order_relaxed);
    int kept = 0;
    for (int i = 0; i < numHeld_; ++i)
    {
        const auto& hit = held_[static_cast<std::size_t> (i)];
        const int64_t due = hit.onset + latency;
        if (due >= blockEnd)
        {
            held_[static_cast<std::size_t> (kept++)] = hit;
            continue;
        }
        const int position = static_cast<int> (std::clamp<int64_t> (due - blockStart, 0, last));
        auto& offAt = offAt_[static_cast<std::size_t> (hit.note)];
        if (offAt >= 0)
            timeline::addNoteOff (midi, hit.note, static_cast<int> (std::clamp<int64_t> (offAt - blockStart, 0, position))); // the same note again: this one ends
        else
            ++numSounding_;
        timeline::addNoteOn (midi, hit.note, hit.velocity, position);
        offAt = blockStart + position + noteSamples_;
        lastDelay_.store (blockStart + position - hit.onset, std::memory_order_relaxed);
        notesSent_.fetch_add (1, std::memory_order_relaxed);
    }
    numHeld_ = kept;
    // The notes whose time is up in this block end.
    for (int note = 0; note < 128 && numSounding_ > 0; ++note)
    {
        auto& offAt = offAt_[static_cast<std::size_t> (note)];
        if (offAt >= 0 && offAt < blockEnd)
        {
            timeline::addNoteOff (midi, note, static_cast<int> (std::clamp<int64_t> (offAt - blockStart, 0, last)));
            offAt = -1;
            --numSounding_;
        }
    }
    streamPosition_ = blockEnd;
}

// ----- any thread -------------------------------------------------------------------------------

HitStatus HitNotes::status (const engine::Model& model, double sampleRate) const
{
    HitStatus status;
    status.on = isOn();
    status.liveWanted = response() == HitResponse::live;
    if (const double span = liveSpan_.load (std::memory_order_relaxed); span > 0.0)
    {
        status.live = true;
        status.liveSpanSeconds = span;
        status.hits = liveHits();
    }
    status.clipSeconds = runtime::hitClipSeconds (model);
    status.taughtClip = runtime::hitClipSeconds (model, -1.0) > 0.0;
    status.latencySeconds = sampleRate > 0.0 ? latency() / sampleRate : 0.0;
    status.lastDelaySeconds = lastDelaySeconds();
    status.notes = notesSent();
    return status;
}

double HitNotes::lastDelaySeconds() const noexcept
{
    const auto delay = lastDelay_.load (std::memory_order_relaxed);
    const double rate = rate_.load (std::memory_order_relaxed);
    return delay < 0 || rate <= 0.0 ? -1.0 : static_cast<double> (delay) / rate;
}

} // namespace sonotype::plugin
