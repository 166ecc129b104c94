// The plugin's per-hit mode (drum-to-MIDI): each hit becomes one MIDI note: the note of its class
// (timeline/NoteMap.h: the one chosen for it, the General MIDI drum its name says, else base note +
// class index; an unknown hit plays none), velocity from its level (timeline::hitVelocity, as the CLI's MIDI
// file), 100 ms long or up to the next hit of the same note. The window analysis goes on for the
// display; its notes are off while this mode is on. Two ways to find and name the hits, the user's
// choice ("Hit response"):
// - Live (the default, where the model carries a kit taught from hits): runtime::LiveHits on the
//   audio thread itself (listen()): a hit is found and named from its first 6 ms, so the latency is
//   LiveHits::latencySamples(), under 10 ms, and every note lands on onset + latency, live and in a
//   bounce alike (nothing waits for a worker). `classify --onsets --response live` plays the same.
// - Exact: the analysis worker runs runtime::HitClassifier (the same hits and clips as `sonotype
//   classify --onsets`), and queueHit() hears each hit: it is classified latency() samples after
//   its onset (the clip, the level's 50 ms or the detector's look-ahead, whichever is longest:
//   runtime::HitClassifier::latencySamples), 0.11 s for a taught kit. Offline the worker is waited
//   for, so every note lands on onset + latency; live a note goes out when its result exists, at the
//   start of the next block: delay() tells how long after its hit the last note went out.
// Either way the plugin reports the latency to the host (setLatencySamples), live and offline (hosts
// take a latency change only between renders, if at all: one reported only offline could be missed
// by the very bounce it is for), and delays its audio pass-through by the same amount.
//
// Threading contract
// - Message thread (and prepareToPlay's thread, never during processBlock): prepare(),
//   setLatency(), setLive(), setClassesInPlay(), settings reads (isOn(), onsetSettings(), response()).
// - Worker thread (the runtime's hit listener): queueHit().
// - Audio thread: listen(), delayAudio(), writeBlock(). Never blocks, allocates (the host's MIDI
//   buffer excepted, as MidiScheduler) or locks.
// Shared: hits through an SpscRing (worker -> audio thread); the live path through an atomic pointer
// (message -> audio thread: each one made is kept by the message thread until the audio thread
// has taken a later one, so the audio thread never frees and never sees one freed); the latency in
// use and the classes in play (atomics: message thread -> audio thread); the measured delay and
// counts (atomics: audio thread -> GUI); the parameters (the host's atomics, read only).
#pragma once

#include "dsp/OnsetDetector.h"
#include "plugin/ModelNotes.h"
#include "plugin/PluginParameters.h"
#include "runtime/HitClassifier.h"
#include "runtime/LiveHits.h"
#include "runtime/SpscFifo.h"
#include "timeline/MidiNotes.h"

#include <juce_audio_processors/juce_audio_processors.h>

#include <array>
#include <atomic>
#include <memory>
#include <vector>

namespace sonotype::plugin
{

/** What the GUI shows of the per-hit mode. */
struct HitStatus
{
    bool on = false;
    bool live = false;              // the live path runs (a kit taught from hits, and Live chosen)
    bool liveWanted = false;        // Live is chosen (without a kit, the exact path runs)
    bool kit = false;               // the running model carries a kit taught from hits (live possible)
    double liveSpanSeconds = 0.0;   // live: the span after the onset a hit is named from
    double clipSeconds = 0.0;       // exact: the clip hits are classified from (the model's)
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
    /** The response chosen: Live or Exact (the parameter). */
    HitResponse response() const noexcept;
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
    /** The live path the audio thread runs from its next block (null: none, the exact path's
        notes instead). Its hits are counted from the stream position it starts at. Allocates;
        frees the ones the audio thread has let go of. */
    void setLive (std::unique_ptr<runtime::LiveHits> live, std::shared_ptr<const engine::Model> model = nullptr);
    /** The live path set last (the message thread's view). */
    const runtime::LiveHits* live() const noexcept;
    /** Which classes play notes on the live path (index c: bit c; classes from 64 on always play). */
    void setClassesInPlay (const std::vector<bool>& inPlay) noexcept;
    /** Whether prepare() has made room for a latency. */
    bool isPrepared() const noexcept { return capacity_.load (std::memory_order_relaxed) > 0; }
    /** How many samples the latency asked for last exceeded the room (0 normally). */
    int64_t latencyShortfall() const noexcept { return shortfall_.load (std::memory_order_relaxed); }

    // ----- worker thread ----------------------------------------------------------------------
    /** Queues the hit's note (its class among `enabled`; the note of that class of `info`'s
        model: ModelNotes.h), if per-hit MIDI is on. */
    void queueHit (const runtime::HitResult& hit, int64_t onsetSample, const std::vector<bool>& enabled, const runtime::AnalysisInfo& info) noexcept;

    // ----- audio thread -----------------------------------------------------------------------
    /** The live path, if set: the block's first numChannels channels (their mean) go through it,
        and each hit it names in play becomes a note due at onset + latency(). Call before
        writeBlock() with the same samples it counts. */
    void listen (const juce::AudioBuffer<float>& buffer, int numChannels, int numSamples) noexcept;
    /** Records the block's first numChannels channels and, while the latency is not 0, replaces
        them by the audio of `latency()` samples earlier. With latency 0 the block is untouched. */
    void delayAudio (juce::AudioBuffer<float>& buffer, int numChannels, int numSamples) noexcept;
    /** Writes the notes due in this block of `numSamples` into `midi` and moves the stream
        position on. `stopEverything` (per-hit off, MIDI off, transport stopped, bypassed): the
        queued hits are dropped and no note sounds after it. */
    void writeBlock (juce::MidiBuffer& midi, int numSamples, bool stopEverything) noexcept;

    // ----- any thread (the GUI; status(): the message thread) ----------------------------------
    /** Seconds from the last note's hit (its onset in the input) to the sample it went out on
        (-1 before the first): latency() / rate offline, more live. */
    double lastDelaySeconds() const noexcept;
    int64_t notesSent() const noexcept { return notesSent_.load (std::memory_order_relaxed); }
    /** Hits the live path found since prepare() (the exact path's are the runtime's). */
    int64_t liveHits() const noexcept { return liveHits_.load (std::memory_order_relaxed); }
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
    const std::atomic<float>& response_;

    /** A live path as published: each publication (a path, or none) has the next sequence number. */
    struct LiveSlot
    {
        std::unique_ptr<runtime::LiveHits> hits;
        std::shared_ptr<const engine::Model> model; // whose labels and chosen notes the hits play
        uint64_t sequence = 0;
    };
    void addHit (int64_t onset, int label, float levelDb) noexcept;
    static constexpr int kMixChunk = 512;

    std::vector<std::unique_ptr<LiveSlot>> slots_; // message thread: every slot the audio thread may still use
    uint64_t nextSequence_ = 1;                    // message thread
    std::atomic<LiveSlot*> published_ { nullptr };
    std::atomic<uint64_t> taken_ { 0 }; // the sequence of the slot the audio thread uses
    std::atomic<uint64_t> inPlay_ { ~uint64_t { 0 } };
    std::atomic<int64_t> liveHits_ { 0 };
    std::atomic<double> liveSpan_ { 0.0 }; // the live path's span after the onset (0: none), for status() on any thread

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
    LiveSlot* current_ = nullptr;                           // the slot the audio thread runs
    std::array<int, ModelNotes::kMaxClasses> liveNotes_ {}; // its model's notes at liveBase_ (timeline::resolveNotes)
    int liveBase_ = -1;
    int64_t liveStart_ = 0; // the stream position current_'s hits count from
    std::array<float, kMixChunk> mix_ {};
    std::array<runtime::LiveHit, 128> found_ {};
    std::atomic<int64_t> lastDelay_ { -1 }, notesSent_ { 0 };
};

} // namespace sonotype::plugin
