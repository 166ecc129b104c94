// The notes Sonotype plays and writes, in one place: channel 1, the class's note from the note map
// (NoteMap.h), the velocity from a segment's (or window's) confidence or from a hit's level. The plugin's live MIDI
// (MidiScheduler: the detector's notes; HitNotes: a note per hit) writes them into the host's MIDI
// buffer with addNoteOn()/addNoteOff(), and the MIDI files of an export (TimelineExport) are made of
// the same messages, so a bounce and an export of the same sound hold the same notes.
// Pure functions: any thread; addNoteOn()/addNoteOff() are the audio thread's (they never allocate
// beyond the room the host reserved, never lock and never throw).
#pragma once

#include <juce_audio_basics/juce_audio_basics.h>

namespace sonotype::timeline
{

inline constexpr int kMidiChannel = 1;

/** How long a hit's note lasts (or up to the next hit of the same note), live and in a MIDI file. */
inline constexpr double kHitNoteSeconds = 0.1;

/** MIDI velocity (1-127) of a segment's note, or of the note the detector starts for a window:
    confidence * 127, rounded, at least 1. */
int confidenceVelocity (float confidence) noexcept;

/** MIDI velocity (1-127) of a hit at levelDb: 48 dB of range, full scale 127. */
int hitVelocity (float levelDb) noexcept;

/** The note-on of `note` on channel 1, its velocity kept within 1-127. */
juce::MidiMessage noteOn (int note, int velocity) noexcept;
/** The note-off of `note` on channel 1. */
juce::MidiMessage noteOff (int note) noexcept;

/** Audio thread: the note-on (noteOn()) or note-off into `midi` at sample `position` of the block.
    A MIDI buffer without room reserved makes JUCE allocate, which can throw std::bad_alloc; inside
    the noexcept audio callback that would end the host, so such an event is lost instead. */
void addNoteOn (juce::MidiBuffer& midi, int note, int velocity, int position) noexcept;
void addNoteOff (juce::MidiBuffer& midi, int note, int position) noexcept;

} // namespace sonotype::timeline
