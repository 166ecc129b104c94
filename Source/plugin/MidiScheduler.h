// Turns the analysis worker's results into MIDI notes and puts them into the audio thread's MIDI
// buffers: the worker runs the Detector and queues note events, the audio thread takes them and
// writes them at the start of its next block (real time) or on their result's own sample (offline).
//
// Threading contract
// - Worker thread (the runtime's result listener): queueEvents(). It alone touches the detector
//   and the note it last turned on.
// - Audio thread: writeBlock(). It alone touches the sounding note, the held events and the stream
//   position. Never blocks, allocates (the host's MIDI buffer excepted: see writeBlock()) or locks.
// - prepareToPlay's thread: reset(), never concurrently with writeBlock() (hosts never call
//   prepareToPlay during processBlock), right after the runtime's prepare() restarted the worker
//   (no audio pushed since: nothing new is queued yet).
// Shared: note events through an SpscRing (worker -> audio thread, lock-free); resetDetector_ (an
// atomic: audio or prepare thread -> worker); the parameters (the host's atomics, read only).
#pragma once

#include "plugin/ModelNotes.h"
#include "runtime/AnalysisInfo.h"
#include "runtime/Detector.h"
#include "runtime/SpscFifo.h"
#include "runtime/WindowResult.h"

#include <juce_audio_basics/juce_audio_basics.h>

#include <array>
#include <atomic>
#include <vector>

namespace sonotype::plugin
{

class MidiScheduler
{
public:
    /** The parameters it follows (the processor's, alive as long as it): MIDI out on/off, the
        threshold in percent, the note of class 0 (for the classes without a note of their own). */
    MidiScheduler (const std::atomic<float>& midiOut, const std::atomic<float>& threshold, const std::atomic<float>& baseNote) noexcept
        : midiOut_ (midiOut), threshold_ (threshold), baseNote_ (baseNote)
    {
    }

    /** Worker thread: runs the detector on a result (its classes masked by `enabled`) and queues
        the note-ons and note-offs it gives, each class's note its model's (ModelNotes.h). */
    void queueEvents (const runtime::WindowResult& result, const runtime::AnalysisInfo& info, const std::vector<bool>& enabled);

    /** Audio thread: writes the events due in this block of `numSamples` into `midi` and moves the
        stream position on. `stopEverything` (transport stopped, bypassed): no note sounds after
        it, and the detector starts again from scratch. `offline`: each event on its own sample. */
    void writeBlock (juce::MidiBuffer& midi, int numSamples, bool stopEverything, bool offline) noexcept;

    /** prepareToPlay: queued MIDI from the old stream is dropped, the stream position starts again
        from 0, and a note still sounding is closed at the start of the next block. */
    void reset() noexcept;

private:
    struct MidiEvent
    {
        bool noteOn = false;
        int note = 0;
        int velocity = 0;
        int64_t sample = 0; // offline: the stream sample it lands on (its result's readySample)
    };

    const std::atomic<float>& midiOut_;
    const std::atomic<float>& threshold_;
    const std::atomic<float>& baseNote_;

    // Worker thread side of detection.
    runtime::Detector detector_;
    uint64_t detectorGeneration_ = 0;
    std::atomic<bool> resetDetector_ { false };
    runtime::SpscRing<MidiEvent> midiQueue_ { 256 };
    int workerNote_ = -1; // the note the worker last turned on: its note-off names it, whatever the base note is now
    ModelNotes notes_;    // the classes' notes (the worker's)

    // Audio thread side of MIDI (prepareToPlay too: the host never runs both at once).
    int activeNote_ = -1;
    bool closeActiveNote_ = false;       // prepareToPlay with a note sounding: its note-off goes out in the next block
    std::array<MidiEvent, 256> held_ {}; // offline: events taken from the queue whose sample is still to come
    int numHeld_ = 0;
    int64_t streamPosition_ = 0; // samples processed since prepareToPlay
};

} // namespace sonotype::plugin
