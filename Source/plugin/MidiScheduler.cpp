#include "plugin/MidiScheduler.h"

#include "timeline/MidiNotes.h"

#include <utility>

namespace sonotype::plugin
{

// ----- worker thread ----------------------------------------------------------------------------

void MidiScheduler::queueEvents (const runtime::WindowResult& result, const runtime::AnalysisInfo& info, const std::vector<bool>& enabled)
{
    runtime::Detector::Events events;
    const bool midiEnabled = midiOut_.load (std::memory_order_relaxed) >= 0.5f;
    if (resetDetector_.exchange (false, std::memory_order_acq_rel) || ! midiEnabled || info.generation != detectorGeneration_)
    {
        events = detector_.reset();
        detectorGeneration_ = info.generation;
    }
    const int numClasses = static_cast<int> (result.probabilities.size());
    if (midiEnabled)
    {
        runtime::DetectorSettings settings;
        settings.threshold = threshold_.load (std::memory_order_relaxed) / 100.0f;
        const auto update = detector_.update (result.probabilities.data(), numClasses, settings, enabled);
        for (int i = 0; i < update.count && events.count < 2; ++i) // after a reset nothing is active: at most one start follows
            events.items[events.count++] = update.items[i];
    }
    const int base = juce::roundToInt (baseNote_.load (std::memory_order_relaxed));
    auto queue = [this, &result] (bool noteOn, int note, int velocity) {
        const MidiEvent event { noteOn, note, velocity, result.readySample };
        midiQueue_.write (&event, 1);
    };
    for (int i = 0; i < events.count; ++i)
    {
        const auto& detection = events.items[i];
        // A note-off names the note that was turned on (the base note may have changed since).
        if (workerNote_ >= 0)
        {
            queue (false, workerNote_, 0);
            workerNote_ = -1;
        }
        const int note = notes_.noteOf (info, detection.classIndex, base);
        if (detection.kind == runtime::Detection::Kind::start && note >= 0 && note <= 127)
        {
            queue (true, note, timeline::confidenceVelocity (detection.confidence));
            workerNote_ = note;
        }
    }
}

// ----- audio thread -----------------------------------------------------------------------------

void MidiScheduler::writeBlock (juce::MidiBuffer& midi, int numSamples, bool stopEverything, bool offline) noexcept
{
    const bool enabled = midiOut_.load (std::memory_order_relaxed) >= 0.5f;
    if (std::exchange (closeActiveNote_, false) && activeNote_ >= 0)
    {
        timeline::addNoteOff (midi, activeNote_, 0);
        activeNote_ = -1;
    }
    MidiEvent event;
    while (numHeld_ < static_cast<int> (held_.size()) && midiQueue_.read (&event, 1) == 1)
        held_[static_cast<std::size_t> (numHeld_++)] = event;

    // Real time: everything now, at the block's start. Offline: each event on its own sample;
    // the ones for later blocks wait (the worker is ahead of them, never behind).
    const int64_t blockEnd = streamPosition_ + numSamples;
    int kept = 0;
    for (int i = 0; i < numHeld_; ++i)
    {
        const auto& held = held_[static_cast<std::size_t> (i)];
        if (! enabled || stopEverything)
            continue;
        if (offline && held.sample >= blockEnd)
        {
            held_[static_cast<std::size_t> (kept++)] = held;
            continue;
        }
        const int position = offline && numSamples > 0 ? static_cast<int> (juce::jlimit<int64_t> (0, numSamples - 1, held.sample - streamPosition_)) : 0;
        if (held.noteOn)
        {
            if (activeNote_ >= 0)
                timeline::addNoteOff (midi, activeNote_, position);
            timeline::addNoteOn (midi, held.note, held.velocity, position);
            activeNote_ = held.note;
        }
        else if (held.note == activeNote_)
        {
            timeline::addNoteOff (midi, activeNote_, position);
            activeNote_ = -1;
        }
    }
    numHeld_ = kept;
    if ((! enabled || stopEverything) && activeNote_ >= 0)
    {
        timeline::addNoteOff (midi, activeNote_, 0);
        activeNote_ = -1;
    }
    if (stopEverything)
        resetDetector_.store (true, std::memory_order_release); // starts again from scratch on the worker
    streamPosition_ += numSamples;
}

// ----- prepareToPlay ----------------------------------------------------------------------------

void MidiScheduler::reset() noexcept
{
    // MIDI from the old stream is stale (the worker was stopped and restarted: nothing new yet).
    // A note still sounding is not forgotten: its note-off goes out at the start of the next block.
    MidiEvent stale;
    while (midiQueue_.read (&stale, 1) == 1)
    {
    }
    numHeld_ = 0;
    streamPosition_ = 0;
    closeActiveNote_ = activeNote_ >= 0;
    resetDetector_.store (true, std::memory_order_release);
}

} // namespace sonotype::plugin
