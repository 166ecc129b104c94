// The messages the editor shows in its message strip: one slot per cause (the model, a file's
// analysis, an export, teaching, OSC, the audio device, the command line, ...). A message replaces
// the one of its cause and leaves the others alone, so a later success of a cause clears that
// cause's error (the next file analysed clears the file error; a model that loads clears the model
// error) while the no-device notice stays. Errors and notices last until their cause clears them or
// the user dismisses them; infos ("Exported 12 segments to ...") fade after kInfoSeconds.
//
// Threading contract
// - Any thread but the audio thread: every function (the message thread, the model service's
//   thread, prepareToPlay's thread). The audio thread never says anything: posting allocates.
// Shared: the slots and the version behind mutex_, held only to change or copy them; the clock is
// called outside it.
#pragma once

#include <juce_core/juce_core.h>

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace sonotype::plugin
{

/** What a message is about: a later message of the same cause replaces it (an empty one clears it). */
enum class StatusCause
{
    general,          // no more specific cause (SonotypeProcessor::setStatus (text, isError))
    model,            // loading a model file, the built-in model
    teaching,         // the Teach view: its files and recordings
    learning,         // the taught classes learned on the running model, and run
    fileAnalysis,     // the files opened for the timeline
    playback,         // the file player (the standalone app's transport)
    exports,          // exports of timelines and of the taught classes
    osc,              // the OSC target
    device,           // the standalone app's audio device
    commandLine,      // the files named on the standalone app's command line
    sampleRate,       // a sample rate the analysis cannot run at
    analysisSettings, // the update interval and smoothing
    hitSettings,      // per-hit MIDI: the onset settings, the live hits
    hitKit,           // per-hit MIDI: the running model's live hit kit
    hitLatency,       // per-hit MIDI: a latency longer than the pass-through delay
    savedState        // a saved state that could not be read
};

enum class StatusKind
{
    info,   // fades after kInfoSeconds
    notice, // lasts until its cause changes or the user dismisses it (no audio device, "Loading ...")
    error   // the same, shown first
};

struct StatusMessage
{
    StatusCause cause = StatusCause::general;
    StatusKind kind = StatusKind::info;
    juce::String text;
    uint64_t serial = 0;   // the order messages were posted in (newer: larger)
    double postedAt = 0.0; // the clock's seconds when posted
    bool isError() const noexcept { return kind == StatusKind::error; }
};

class StatusMessages
{
public:
    /** How long an info stays up. */
    static constexpr double kInfoSeconds = 8.0;
    using Clock = std::function<double()>; // seconds, steady

    /** `clock`: a steady clock in seconds (tests inject their own); the default is JUCE's. */
    explicit StatusMessages (Clock clock = {});

    /** Says `text` for `cause`, replacing that cause's message; an empty text clears it. */
    void post (StatusCause cause, juce::String text, StatusKind kind);
    /** The cause's message goes (its cause is gone: the next file was analysed, the device opened). */
    void clear (StatusCause cause) { post (cause, {}, StatusKind::info); }
    /** Every message goes. */
    void clearAll();
    /** The user closed the message of `cause` posted as `serial` (a newer one of the cause stays). */
    void dismiss (StatusCause cause, uint64_t serial);

    /** The messages up now: errors first, then notices, then infos, newest first within each. */
    std::vector<StatusMessage> current() const;
    /** The newest message up now (none: an empty text). */
    StatusMessage newest() const;
    /** Changes whenever a message is posted, cleared or dismissed (not when an info fades). */
    uint64_t version() const;

private:
    static constexpr std::size_t kCauses = static_cast<std::size_t> (StatusCause::savedState) + 1;
    Clock clock_;
    mutable std::mutex mutex_;
    std::array<StatusMessage, kCauses> slots_; // an empty text: no message of that cause
    uint64_t serial_ = 0;
    uint64_t version_ = 0;
};

} // namespace sonotype::plugin
