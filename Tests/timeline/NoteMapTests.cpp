// The note map: class names read as General MIDI drum pieces, notes chosen per class, base note +
// index for the rest (the built-in model's notes unchanged), note names, and the text the command
// line takes.
#include "timeline/NoteMap.h"

#include <catch2/catch.hpp>

#include <array>
#include <stdexcept>

using namespace sonotype;
using timeline::kNoNote;

TEST_CASE ("Class names say their General MIDI drum notes, case and separators aside", "[notemap]")
{
    const std::pair<const char*, int> names[] = {
        { "kick", 36 },
        { "Kick_808", 36 },
        { "bass drum", 36 },
        { "BD", 36 },
        { "kickDrum", 36 },
        { "snare", 38 },
        { "Snare 2", 38 },
        { "sd", 38 },
        { "snare drum", 38 },
        { "rim", 37 },
        { "rimshot", 37 },
        { "side stick", 37 },
        { "snare-rim", 37 },
        { "Stick", 37 },
        { "clap", 39 },
        { "hat", 42 },
        { "hihat", 42 },
        { "hi-hat", 42 },
        { "HH", 42 },
        { "closed hat", 42 },
        { "Hat Closed", 42 },
        { "pedal hat", 44 },
        { "hat_pedal", 44 },
        { "open hat", 46 },
        { "OpenHat", 46 },
        { "hh open", 46 },
        { "floor tom", 41 },
        { "low floor tom", 41 },
        { "high floor tom", 43 },
        { "low tom", 45 },
        { "mid tom", 47 },
        { "low-mid tom", 47 },
        { "hi-mid tom", 48 },
        { "high tom", 50 },
        { "Tom Hi", 50 },
        { "tom", 45 },
        { "tom1", 50 },
        { "tom2", 48 },
        { "tom3", 47 },
        { "tom4", 45 },
        { "tom5", 43 },
        { "tom6", 41 },
        { "rack tom", 48 },
        { "crash", 49 },
        { "crash2", 57 },
        { "Crash 2", 57 },
        { "ride", 51 },
        { "ride bell", 53 },
        { "china", 52 },
        { "splash", 55 },
        { "tambourine", 54 },
        { "cowbell", 56 },
        { "cow bell", 56 },
        { "shaker", 70 },
        { "maracas", 70 },
        { "clave", 75 },
        { "claves", 75 },
        { "toms", 45 },
        { "kicks", 36 },
        { "crashes", 49 },
        { "conga low", 64 },
        { "hi bongo", 60 },
        { "wood block", 76 },
        { "triangle", 81 },
        { "cabasa", 69 },
        // Hydrogen's kits name their instruments so.
        { "Hat 1 Op", 46 },
        { "Hat 1 Pd", 44 },
        { "ride-cup", 53 },
        { "Pearl Tom Floor", 41 },
        { "Tom High (Tama Superstar 12\")", 50 },
    };
    for (const auto& [name, note] : names)
    {
        INFO (name);
        CHECK (timeline::generalMidiDrumNote (name) == note);
    }
}

TEST_CASE ("Names that are no drum piece have no General MIDI note", "[notemap]")
{
    // The built-in model's labels, the taught "unknown", and words near a piece that are not one.
    for (const char* name : { "silence", "noise", "speech", "drums", "piano", "organ", "guitar", "bass", "strings", "brass", "woodwind", "synth",
                              "unknown", "snare noise", "kick silence", "", "808", "hatch", "kickstand", "tomato", "closed", "open" })
    {
        INFO (name);
        CHECK (timeline::generalMidiDrumNote (name) == kNoNote);
    }
}

TEST_CASE ("The built-in model's classes keep base note + index", "[notemap]")
{
    const std::vector<std::string> labels { "silence", "noise", "speech", "drums", "piano", "organ", "guitar", "bass", "strings", "brass", "woodwind", "synth" };
    for (const int base : { 0, 36, 60, 120 })
    {
        const auto map = timeline::noteMap (labels, {}, base);
        for (int c = 0; c < static_cast<int> (labels.size()); ++c)
        {
            CHECK (map.noteOf (c) == (base + c <= 127 ? base + c : kNoNote));
            CHECK (map.origins[static_cast<std::size_t> (c)] == (base + c <= 127 ? timeline::NoteOrigin::base : timeline::NoteOrigin::none));
        }
    }
}

TEST_CASE ("A taught kit plays General MIDI drums, the rest base + index or the next free note", "[notemap]")
{
    const auto map = timeline::noteMap ({ "kick", "snare", "hat", "unknown" }, {}, 36);
    CHECK (map.notes == std::vector<int> { 36, 38, 42, timeline::kNoNote });                                               // unknown: no piece, no note
    CHECK (timeline::noteMap ({ "kick", "unknown" }, { timeline::kNoNote, 50 }, 36).notes == std::vector<int> { 36, 50 }); // unless chosen
    const auto clash = timeline::noteMap ({ "kick", "shoe", "snare" }, {}, 36);
    CHECK (clash.notes == std::vector<int> { 36, 37, 38 });
    // "thing" would be 36 + 2 = 38, the snare's: the next note up that no class plays.
    const auto taken = timeline::noteMap ({ "snare", "kick", "thing", "other" }, {}, 36);
    CHECK (taken.notes == std::vector<int> { 38, 36, 39, 40 });
    CHECK (taken.origins[2] == timeline::NoteOrigin::base);
}

TEST_CASE ("Two classes of one piece: the first keeps its note, the next take the piece's others", "[notemap]")
{
    CHECK (timeline::noteMap ({ "kick a", "kick b", "kick c" }, {}, 36).notes == std::vector<int> { 36, 35, 38 });
    CHECK (timeline::noteMap ({ "snare 1", "snare 2" }, {}, 36).notes == std::vector<int> { 38, 40 });
    CHECK (timeline::noteMap ({ "crash", "crash" + std::string (" big") }, {}, 36).notes == std::vector<int> { 49, 57 });
    CHECK (timeline::noteMap ({ "tom a", "tom b", "tom c" }, {}, 36).notes == std::vector<int> { 45, 47, 43 });
    // Two closed hats: the second has no other hat note, so base + index (36 + 1 = 37).
    CHECK (timeline::noteMap ({ "hat", "hh" }, {}, 36).notes == std::vector<int> { 42, 37 });
}

TEST_CASE ("Chosen notes override the names, and the defaults keep clear of them", "[notemap]")
{
    const std::vector<std::string> labels { "kick", "snare", "hat", "zap" };
    const auto map = timeline::noteMap (labels, { kNoNote, 36, kNoNote, 60 }, 36);
    // The snare chose 36: the kick takes its other note, 35.
    CHECK (map.notes == std::vector<int> { 35, 36, 42, 60 });
    CHECK (map.origins == std::vector<timeline::NoteOrigin> { timeline::NoteOrigin::generalMidi, timeline::NoteOrigin::chosen, timeline::NoteOrigin::generalMidi, timeline::NoteOrigin::chosen });
    // Chosen notes stay as chosen, even one note for two classes.
    CHECK (timeline::noteMap (labels, { 50, 50 }, 36).notes == std::vector<int> { 50, 50, 42, 39 });
}

TEST_CASE ("resolveNotes fills only the classes it is given room for, past the labels base + index", "[notemap]")
{
    const std::vector<std::string> labels { "kick" };
    std::array<int, 3> notes {};
    timeline::resolveNotes (labels, {}, 100, notes);
    CHECK (notes == std::array<int, 3> { 36, 101, 102 });
    timeline::resolveNotes (labels, {}, 126, notes);
    CHECK (notes == std::array<int, 3> { 36, 127, kNoNote });
    const auto map = timeline::noteMap (labels, {}, 40);
    CHECK (map.noteOf (5) == 45);
    CHECK (map.noteOf (-1) == kNoNote);
}

TEST_CASE ("Note names: C1 is 36, middle C C3", "[notemap]")
{
    CHECK (timeline::noteName (36) == "C1");
    CHECK (timeline::noteName (60) == "C3");
    CHECK (timeline::noteName (0) == "C-2");
    CHECK (timeline::noteName (127) == "G8");
    CHECK (timeline::noteName (39) == "D#1");
    CHECK (timeline::noteName (128).empty());
    CHECK (timeline::describeNote (42) == "42 F#1");
    for (int note = 0; note < 128; ++note)
        CHECK (timeline::parseNote (timeline::noteName (note)) == note);
    CHECK (timeline::parseNote ("36") == 36);
    CHECK (timeline::parseNote (" d1 ") == 38);
    CHECK (timeline::parseNote ("Eb1") == 39);
    CHECK (timeline::parseNote ("D#1") == 39);
    CHECK (timeline::parseNote ("c-2") == 0);
    for (const char* bad : { "", "128", "-1", "H1", "C", "C10", "G#8", "Cb-2", "36.5", "C#1x", "x" })
    {
        INFO (bad);
        CHECK_FALSE (timeline::parseNote (bad).has_value());
    }
    CHECK (timeline::generalMidiDrumName (36) == "Bass Drum 1");
    CHECK (timeline::generalMidiDrumName (81) == "Open Triangle");
    CHECK (timeline::generalMidiDrumName (34).empty());
}

TEST_CASE ("CLASS=NOTE pairs: parsed, set on a model's classes, unknown names refused naming the classes", "[notemap]")
{
    CHECK (timeline::parseClassNote ("kick=36") == std::pair<std::string, int> { "kick", 36 });
    CHECK (timeline::parseClassNote ("snare = D1") == std::pair<std::string, int> { "snare", 38 });
    CHECK (timeline::parseClassNote ("a=b=C1") == std::pair<std::string, int> { "a=b", 36 });
    CHECK_THROWS_WITH (timeline::parseClassNote ("kick"), Catch::Contains ("is not CLASS=NOTE"));
    CHECK_THROWS_WITH (timeline::parseClassNote ("=36"), Catch::Contains ("is not CLASS=NOTE"));
    CHECK_THROWS_WITH (timeline::parseClassNote ("kick=200"), Catch::Contains ("kick: '200' is not a MIDI note"));
    const auto pairs = timeline::parseClassNotes ("kick=36, snare=D1,,");
    REQUIRE (pairs.size() == 2);
    const std::vector<std::string> labels { "kick", "snare", "hat" };
    CHECK (timeline::withChosenNotes ({}, pairs, labels) == std::vector<int> { 36, 38, kNoNote });
    CHECK (timeline::withChosenNotes ({ kNoNote, kNoNote, 44 }, { { "kick", 35 } }, labels) == std::vector<int> { 35, kNoNote, 44 });
    CHECK_THROWS_WITH (timeline::withChosenNotes ({}, { { "tom", 45 } }, labels),
                       "'tom' is not a class of the model (its classes: kick, snare, hat)");
}

TEST_CASE ("The map described a class a line", "[notemap]")
{
    const std::vector<std::string> labels { "kick", "snare", "zap", "unknown" };
    const auto lines = timeline::describeNoteMap (labels, timeline::noteMap (labels, { kNoNote, 40 }, 36));
    REQUIRE (lines.size() == 4);
    CHECK (lines[0] == "kick 36 C1 (General MIDI: Bass Drum 1)");
    CHECK (lines[1] == "snare 40 E1 (chosen)");
    CHECK (lines[2] == "zap 38 D1 (base note 36 + class 2)");
    CHECK (lines[3] == "unknown none (no piece: plays nothing)");
}
