// The plugin's per-hit mode (drum-to-MIDI): the analysis worker runs runtime::HitClassifier on the
// stream it receives (the same hits and clips as `sonotype classify --onsets`), and each hit
// becomes one MIDI note: the note of its class (timeline/NoteMap.h: the one chosen for it, the
// General MIDI drum its name says, else base note + class index), velocity from its level
// (timeline::hitVelocity, as the CLI's MIDI file), 100 ms long or up to the next hit of the same
// note. The window analysis goes on for the display; its notes are off while this mode is on.
//
// Latency: a hit is classified latency() samples after its onset (the clip, the level's 50 ms or
// the detector's look-ahead, whichever is longest: runtime::HitClassifier::latencySamples). In
// per-hit mode the plugin reports that latency to the host (setLatencySamples), in real time and
// offline alike, and delays its audio pass-through by the same amount; each note is written on
// the sample onset + latency of the output, or as soon as it exists when that sample has passed.
// Offline the worker is waited for, so every note lands there: with the host's delay compensation,
// on the hit's own sample, in any block sizes. Live, notes come when their result exists (the
// worker's time and the block after the latency): delay() tells how long after its hit the last
// note went out. The same latency live and offline, because hosts take a latency change only
// between renders, if at all (one reported only offline could be missed by the very bounce it is
// for); the price is a delayed pass-through while the mode is on.
//
// Threading contract
// - Message thread (and prepareToPlay's thread, never during processBlock): prepare(),
//   setLatency(), settings reads (isOn(), onsetSettings()).
// - Worker thread (the runtime's hit listener): queueHit().
// - Audio thread: delayAudio(), writeBlock(). Never blocks, allocates (the host's MIDI buffer
//   excepted, as MidiScheduler) or locks.
// Shared: hits through an SpscRing (worker -> audio thread); the latency in use (an atomic:
// message thread -> audio thread); the measured delay and counts (atomics: audio thread -> GUI);
// the parameters (the host's atomics, read only).
#pragma once

#include "dsp/OnsetDetector.h"
#include "plugin/ModelNotes.h"
#include "runtime/HitClassifier.h"
#include "runtime/SpscFifo.h"
#include "timeline/MidiNotes.h"

#include <juce_audio_processors/juce_audio_processors.h>

#include <array>
#include <atomic>
#include <vector>

namespace sonotype::plugin
{

/** What the GUI shows of the per-hit mode. */
struct HitStatus
{
    bool on = false;
    double clipSeconds = 0.0;       // the clip hits are classified from (the model's)
    bool taughtClip = false;        // the model was taught from hits with this clip
    double latencySeconds = 0.0;    // reported to the host, and the pass-through's delay
    double lastDelaySeconds = -1.0; // from the last note's hit to its note (-1: none yet)
    int64_t hits = 0, notes = 0;    // hits classified since prepareToPlay, notes sent
};

class HitNotes
{
public:
    /** The longest latency (and pass-through delay) the plugin reports; a model whose hits need
        longer (its window and taught clip over 2 s) gets this much, and its notes land late by the
        rest: latencyShortfall(). */
    static constexpr double kMaxLatencySeconds = 2.0;
    static constexpr double kNoteSeconds = timeline::kHitNoteSeconds; // as the CLI's MIDI file

    /** The processor's parameters (alive as long as this). */
    explicit HitNotes (juce::AudioProcessorValueTreeState& parameters);

    // ----- message thread ---------------------------------------------------------------------
    bool isOn() const noexcept;
    /** The onset settings on screen, as the CLI's options would give them (the parameters' floats
        rounded to their steps: 1.2, not 1.2000000476837158). */
    dsp::OnsetSettings onsetSettings() const noexcept;
    /** prepareToPlay: room for the pass-through delay (kMaxLatencySeconds) of numChannels; the
        stream position starts again from 0, queued hits from the old stream are dropped, and a
        note still sounding is closed at the start of the next block. Allocates. */
    void prepare (double sampleRate, int numChannels);
    /** The latency the processor reports, which the audio is delayed by and notes are placed
        after their onset (0: off). Clamped to what prepare() made room for; returns what is set. */
    int setLatency (int64_t samples) noexcept;
    int latency() const noexcept { return latency_.load (std::memory_order_relaxed); }
    /** Whether prepare() has made room for a latency. */
    bool isPrepared() const noexcept { return capacity_.load (std::memory_order_relaxed) > 0; }
    /** How many samples the latency asked for last exceeded the room (0 normally). */
    int64_t latencyShortfall() const noexcept { return shortfall_.load (std::memory_order_relaxed); }

    // ----- worker thread ----------------------------------------------------------------------
    /** Queues the hit's note (its class among `enabled`; the note of that class of `info`'s
        model: ModelNotes.h), if per-hit MIDI is on. */
    void queueHit (const runtime::HitResult& hit, int64_t onsetSample, const std::vector<bool>& enabled, const runtime::AnalysisInfo& info) noexcept;

    // ----- audio thread -----------------------------------------------------------------------
    /** Records the block's first numChannels channels and, while the latency is not 0, replaces
        them by the audio of `latency()` samples earlier. With latency 0 the block is untouched. */
    void delayAudio (juce::AudioBuffer<float>& buffer, int numChannels, int numSamples) noexcept;
    /** Writes the notes due in this block of `numSamples` into `midi` and moves the stream
        position on. `stopEverything` (per-hit off, MIDI off, transport stopped, bypassed): the
        queued hits are dropped and no note sounds after it. */
    void writeBlock (juce::MidiBuffer& midi, int numSamples, bool stopEverything) noexcept;

    // ----- any thread (the GUI) ---------------------------------------------------------------
    /** Seconds from the last note's hit (its onset in the input) to the sample it went out on
        (-1 before the first): latency() / rate offline, more live. */
    double lastDelaySeconds() const noexcept;
    int64_t notesSent() const noexcept { return notesSent_.load (std::memory_order_relaxed); }
    /** The mode, its latency and its last note's delay, with the clip `model` gives hits. */
    HitStatus status (const engine::Model& model, double sampleRate) const;

private:
    struct HitEvent
    {
        int64_t onset = 0; // input stream sample
        int note = 0;
        int velocity = 0;
    };

    const std::atomic<float>& hitMode_;
    const std::atomic<float>& midiOut_;
    const std::atomic<float>& baseNote_;
    const std::atomic<float>& threshold_;
    const std::atomic<float>& gap_;
    const std::atomic<float>& silence_;

    runtime::SpscRing<HitEvent> queue_ { 256 };
    ModelNotes notes_; // the worker's: the classes' notes
    std::atomic<int> latency_ { 0 };
    std::atomic<int64_t> shortfall_ { 0 };
    std::atomic<double> rate_ { 0.0 };

    // Audio thread (prepare() too: the host never runs both at once).
    std::vector<std::vector<float>> delayLines_; // one per channel, capacity_ samples
    std::atomic<int> capacity_ { 0 };            // prepare() sets it (the message thread's setLatency() reads it)
    int delayWrite_ = 0;
    std::array<HitEvent, 256> held_ {}; // taken from the queue, their sample still to come
    int numHeld_ = 0;
    std::array<int64_t, 128> offAt_ {}; // per note: the stream sample its note-off is due, -1 when silent
    int numSounding_ = 0;
    bool closeAll_ = false; // prepare() with notes sounding: note-offs at the next block's start
    int64_t streamPosition_ = 0, noteSamples_ = 0;
    std::atomic<int64_t> lastDelay_ { -1 }, notesSent_ { 0 };
};

} // namespace sonotype::plugin
