// Which MIDI note each class plays, in one place: the plugin's live notes (MidiScheduler, HitNotes),
// the MIDI files of the CLI and the app (TimelineExport) and what the Teach view and `sonotype
// learn`/`inspect` show all resolve a model's classes to notes here, so that they agree.
//
// A class's note is, in this order:
// 1. the note chosen for it (a model file's "midi_notes", `learn --note`, `classify --note-map`, the
//    Teach view), kept as chosen even when another class has it too;
// 2. else the General MIDI percussion note its name says (generalMidiDrumChoices: "kick" 36, "snare"
//    38, "hat" 42, ...), the first class of a piece keeping it and the next ones taking the piece's
//    other notes (a second kick 35, a second snare 40, a second crash 57, toms one after another),
//    never a note a chosen class or an earlier class has;
// 3. else base note + class index (the plugin's "MIDI base note", `classify --base-note`), as before
//    the map; where that note is one a class above already plays, the next free note up. The
//    built-in model's labels (silence, noise, speech, drums, piano, ...) name no drum piece, so
//    its notes are base + index as they always were. A note past 127 is none.
// Names are read case-insensitively, in words: split at spaces, punctuation, digits and a lower-case
// letter followed by a capital, so "kick_808", "Snare 2", "Hat Closed", "OpenHat" and "hi-hat" all
// match. Note names follow the README's base note (C1 = 36): middle C (60) is C3, as in JUCE's
// default, Ableton Live, Cubase and FL Studio.
// Pure functions: any thread. resolveNotes() neither allocates nor throws: the plugin's analysis
// worker resolves a model's notes with it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sonotype::timeline
{

inline constexpr int kNoNote = -1;
/** The label of a taught model's unknown: it plays no note unless one is chosen for it. */
inline constexpr const char* kUnknownLabel = "unknown";

/** Where a class's note comes from. */
enum class NoteOrigin
{
    none,        // no note (base + index past 127, or "unknown")
    chosen,      // chosen for the class: the model file's, the command line's, the Teach view's
    generalMidi, // the General MIDI drum note its name says
    base         // base note + class index (or the next free note above it)
};

/** The General MIDI percussion notes a class name says, best first (at most 6: a second kick takes
    35, a second snare 40, toms go through the toms), or none: not a drum piece, or "silence",
    "unknown" or "noise". Writes them into `choices`; returns how many. */
int generalMidiDrumChoices (std::string_view label, std::span<int, 6> choices) noexcept;
/** The first of generalMidiDrumChoices(), or kNoNote. */
int generalMidiDrumNote (std::string_view label) noexcept;
/** The General MIDI name of percussion key `note` ("Bass Drum 1" for 36; 35-81), else empty. */
std::string_view generalMidiDrumName (int note) noexcept;

/** "C1" for 36 (middle C, 60, is C3; sharps: "C#1"); empty outside 0-127. */
std::string noteName (int note);
/** "36 C1": the number and its name, as the Teach view and the tables show a note. */
std::string describeNote (int note);
/** A note from text: a number 0-127 ("36") or a name ("C1", "D#1", "Eb1", "c-2"; C1 = 36), spaces
    around it ignored; none for anything else. */
std::optional<int> parseNote (std::string_view text);

/** Each class's note into notes[c] (and where it comes from into origins[c], when given), for the
    classes c < notes.size(): `labels` the model's (a class past them has none to read: base +
    index), `chosen` per class the chosen note or kNoNote (shorter than labels: the rest chose none).
    No allocation, no exception. */
void resolveNotes (std::span<const std::string> labels, std::span<const int> chosen, int baseNote, std::span<int> notes,
                   std::span<NoteOrigin> origins = {}) noexcept;

/** A model's classes resolved to notes (resolveNotes), for the exports and the tables. */
struct NoteMap
{
    std::vector<int> notes;          // per class; kNoNote: none
    std::vector<NoteOrigin> origins; // per class
    int baseNote = 36;

    /** The note of class `classIndex`: notes[classIndex], or base + index for a class past them
        (kNoNote outside 0-127). */
    int noteOf (int classIndex) const noexcept;
};
NoteMap noteMap (const std::vector<std::string>& labels, const std::vector<int>& chosen, int baseNote);

/** "kick=36" or "snare = D1": a class name and its note; throws std::invalid_argument saying what
    is wrong ("--note kick: ..."). A class name may hold '=' only before the last one. */
std::pair<std::string, int> parseClassNote (std::string_view text);
/** "kick=36,snare=38" as parseClassNote() pairs (empty items left out). */
std::vector<std::pair<std::string, int>> parseClassNotes (std::string_view text);
/** `chosen` (per class, kNoNote where none; shorter than labels: the rest none) with `pairs` set on
    it; throws std::invalid_argument for a name that is no class, naming the classes. */
std::vector<int> withChosenNotes (std::vector<int> chosen, const std::vector<std::pair<std::string, int>>& pairs,
                                  const std::vector<std::string>& labels);

/** One line per class: "kick 36 C1 (General MIDI: Bass Drum 1)", "tabla 39 D#1 (base note 36 +
    class 3)", "snare 40 E1 (chosen)", "unknown none (no piece: plays nothing)", as `learn` and
    `inspect` print the map. */
std::vector<std::string> describeNoteMap (const std::vector<std::string>& labels, const NoteMap& map);

} // namespace sonotype::timeline
