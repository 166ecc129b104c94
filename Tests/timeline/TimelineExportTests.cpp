// Segments as an Audacity label track, a REAPER region list and a Standard MIDI File (read back
// with juce::MidiFile); the export dispatch (exportSegments, exportHits) over every format, as the
// CLI and the app call it; the MIDI notes the plugin plays and the files hold.
#include "timeline/MidiNotes.h"
#include "timeline/TimelineExport.h"

#include <catch2/catch.hpp>
#include <juce_audio_basics/juce_audio_basics.h>

#include <cmath>
#include <cstring>

using namespace sonotype;

namespace
{
const std::vector<std::string> kLabels { "speech", "drums, loud", "tab\there" };

std::vector<runtime::Segment> someSegments()
{
    return { { 0, 0.0, 1.25, 0.9f, 5 }, { 1, 1.25, 4.0, 0.5f, 9 }, { 2, 4.5, 6.0000004, 0.001f, 4 } };
}

std::vector<timeline::Hit> someHits()
{
    timeline::Hit kick { 0.5, 1, 0.75f, -6.0f, { 0.125f, 0.75f, 0.125f } };
    timeline::Hit hat { 1.0, 2, 0.5f, -30.25f, { 0.25f, 0.25f, 0.5f } };
    return { kick, hat };
}
} // namespace

TEST_CASE ("Audacity labels: start, end, label, tab-separated, 6 decimals", "[export]")
{
    CHECK (timeline::audacityLabels (someSegments(), kLabels)
           == "0.000000\t1.250000\tspeech\n1.250000\t4.000000\tdrums, loud\n4.500000\t6.000000\ttab here\n");
    CHECK (timeline::audacityLabels ({}, kLabels).empty());
}

TEST_CASE ("REAPER regions: the manager's header, R1 R2 ..., names quoted as CSV", "[export]")
{
    CHECK (timeline::reaperRegions (someSegments(), kLabels)
           == "#,Name,Start,End,Length\n"
              "R1,speech,0.000000,1.250000,1.250000\n"
              "R2,\"drums, loud\",1.250000,4.000000,2.750000\n"
              "R3,tab\there,4.500000,6.000000,1.500000\n");
}

/** A file's notes at base note `base`, none chosen (kLabels name no drum piece: base + index). */
timeline::NoteMap baseNotes (int base)
{
    return timeline::noteMap (kLabels, {}, base);
}

TEST_CASE ("MIDI file: one note per segment at 1920 ticks a second, the plugin's notes and velocities", "[export]")
{
    const auto bytes = timeline::midiFile (someSegments(), kLabels, baseNotes (126), "Sonotype");
    juce::MemoryInputStream stream (bytes.data(), bytes.size(), false);
    juce::MidiFile file;
    REQUIRE (file.readFrom (stream));
    CHECK (file.getTimeFormat() == 960);
    REQUIRE (file.getNumTracks() == 1);
    const auto& track = *file.getTrack (0);
    std::vector<juce::MidiMessage> notes;
    bool tempo = false;
    for (const auto* event : track)
    {
        if (event->message.isTempoMetaEvent())
            tempo = event->message.getTempoSecondsPerQuarterNote() == 0.5;
        if (event->message.isNoteOnOrOff())
            notes.push_back (event->message);
    }
    CHECK (tempo);
    REQUIRE (notes.size() == 4); // class 2 would be note 128: no note, as the plugin plays none
    CHECK ((notes[0].isNoteOn() && notes[0].getNoteNumber() == 126 && notes[0].getVelocity() == 114 && notes[0].getTimeStamp() == 0));
    CHECK ((notes[1].isNoteOff() && notes[1].getNoteNumber() == 126 && notes[1].getTimeStamp() == 2400));
    CHECK ((notes[2].isNoteOn() && notes[2].getNoteNumber() == 127 && notes[2].getVelocity() == 64 && notes[2].getTimeStamp() == 2400));
    CHECK ((notes[3].isNoteOff() && notes[3].getTimeStamp() == 7680));
    file.convertTimestampTicksToSeconds();
    CHECK (file.getTrack (0)->getEndTime() == Approx (4.0));
}

TEST_CASE ("MIDI velocity is at least 1", "[export]")
{
    const auto bytes = timeline::midiFile ({ { 0, 0.0, 1.0, 0.001f, 2 } }, kLabels, baseNotes (36), "Sonotype");
    juce::MemoryInputStream stream (bytes.data(), bytes.size(), false);
    juce::MidiFile file;
    REQUIRE (file.readFrom (stream));
    for (const auto* event : *file.getTrack (0))
        if (event->message.isNoteOn())
            CHECK (event->message.getVelocity() == 1);
}

TEST_CASE ("the export dispatch: every format by its name, the files of one file apart from rows", "[export]")
{
    const std::pair<const char*, timeline::ExportFormat> formats[] = { { "csv", timeline::ExportFormat::csv },
                                                                       { "json", timeline::ExportFormat::json },
                                                                       { "audacity", timeline::ExportFormat::audacity },
                                                                       { "reaper", timeline::ExportFormat::reaper },
                                                                       { "midi", timeline::ExportFormat::midi } };
    for (const auto& [name, format] : formats)
    {
        INFO (name);
        CHECK (timeline::exportFormatNamed (name) == format);
        CHECK (timeline::holdsOneFile (format) == (format != timeline::ExportFormat::csv && format != timeline::ExportFormat::json));
    }
    CHECK_FALSE (timeline::exportFormatNamed ("CSV").has_value());
    CHECK_FALSE (timeline::exportFormatNamed ("mid").has_value());
    CHECK_FALSE (timeline::exportFormatNamed ("").has_value());
}

TEST_CASE ("the export dispatch writes segments in each format as its writer does, CSV and JSON as classify --segments", "[export]")
{
    const auto segments = someSegments();
    const timeline::ExportSettings settings { "take, 1.wav", 40, {} };
    using timeline::ExportFormat;
    CHECK (timeline::exportSegments (ExportFormat::audacity, segments, kLabels, settings) == timeline::audacityLabels (segments, kLabels));
    CHECK (timeline::exportSegments (ExportFormat::reaper, segments, kLabels, settings) == timeline::reaperRegions (segments, kLabels));
    CHECK (timeline::exportSegments (ExportFormat::midi, segments, kLabels, settings)
           == timeline::midiFile (segments, kLabels, baseNotes (40), "Sonotype - take, 1.wav"));
    CHECK (timeline::exportSegments (ExportFormat::midi, segments, kLabels, settings)
           != timeline::midiFile (segments, kLabels, baseNotes (36), "Sonotype - take, 1.wav"));
    CHECK (timeline::exportSegments (ExportFormat::csv, segments, kLabels, settings)
           == "file,start_s,end_s,label,confidence,error\n"
              "\"take, 1.wav\",0.000,1.250,speech,0.900000,\n"
              "\"take, 1.wav\",1.250,4.000,\"drums, loud\",0.500000,\n"
              "\"take, 1.wav\",4.500,6.000,tab\there,0.001000,\n");
    CHECK (timeline::exportSegments (ExportFormat::json, segments, kLabels, settings)
           == "[\n"
              "{\"file\":\"take, 1.wav\",\"start_s\":0.000,\"end_s\":1.250,\"label\":\"speech\",\"confidence\":0.900000},\n"
              "{\"file\":\"take, 1.wav\",\"start_s\":1.250,\"end_s\":4.000,\"label\":\"drums, loud\",\"confidence\":0.500000},\n"
              "{\"file\":\"take, 1.wav\",\"start_s\":4.500,\"end_s\":6.000,\"label\":\"tab\\there\",\"confidence\":0.001000}\n"
              "]\n");
    CHECK (timeline::exportSegments (ExportFormat::csv, {}, kLabels, settings) == "file,start_s,end_s,label,confidence,error\n");
    CHECK (timeline::exportSegments (ExportFormat::json, {}, kLabels, settings) == "[]\n");
}

TEST_CASE ("the export dispatch writes hits in each format as its writer does, CSV and JSON as classify --onsets", "[export]")
{
    const auto hits = someHits();
    const timeline::ExportSettings settings { "loop.wav", 36, {} };
    using timeline::ExportFormat;
    CHECK (timeline::exportHits (ExportFormat::audacity, hits, kLabels, settings) == timeline::audacityHitLabels (hits, kLabels));
    CHECK (timeline::exportHits (ExportFormat::reaper, hits, kLabels, settings) == timeline::reaperHitMarkers (hits, kLabels));
    CHECK (timeline::exportHits (ExportFormat::midi, hits, kLabels, settings) == timeline::midiHitFile (hits, kLabels, baseNotes (36), "Sonotype - loop.wav"));
    CHECK (timeline::exportHits (ExportFormat::csv, hits, kLabels, settings)
           == "file,time_s,label,confidence,level_db,speech,\"drums, loud\",tab\there,error\n"
              "loop.wav,0.500,\"drums, loud\",0.750000,-6.0,0.125000,0.750000,0.125000,\n"
              "loop.wav,1.000,tab\there,0.500000,-30.2,0.250000,0.250000,0.500000,\n");
    CHECK (timeline::exportHits (ExportFormat::json, hits, kLabels, settings)
           == "[\n"
              "{\"file\":\"loop.wav\",\"time_s\":0.500,\"label\":\"drums, loud\",\"confidence\":0.750000,\"level_db\":-6.0,"
              "\"probabilities\":{\"speech\":0.125000,\"drums, loud\":0.750000,\"tab\\there\":0.125000}},\n"
              "{\"file\":\"loop.wav\",\"time_s\":1.000,\"label\":\"tab\\there\",\"confidence\":0.500000,\"level_db\":-30.2,"
              "\"probabilities\":{\"speech\":0.250000,\"drums, loud\":0.250000,\"tab\\there\":0.500000}}\n"
              "]\n");
}

namespace
{
/** The meta events at a MIDI file's start (track name, text) and its note-ons (note, time in ticks). */
struct MidiFileRead
{
    juce::String trackName;
    std::vector<juce::String> texts;
    std::vector<std::pair<int, double>> noteOns;
};

MidiFileRead readMidi (const std::string& bytes)
{
    juce::MemoryInputStream stream (bytes.data(), bytes.size(), false);
    juce::MidiFile file;
    REQUIRE (file.readFrom (stream));
    REQUIRE (file.getNumTracks() == 1);
    MidiFileRead read;
    for (const auto* event : *file.getTrack (0))
    {
        const auto& message = event->message;
        if (message.isTrackNameEvent())
            read.trackName = message.getTextFromTextMetaEvent();
        else if (message.isTextMetaEvent() && message.getMetaEventType() == 1)
        {
            CHECK (message.getTimeStamp() == 0.0);
            read.texts.push_back (message.getTextFromTextMetaEvent());
        }
        else if (message.isNoteOn())
            read.noteOns.emplace_back (message.getNoteNumber(), message.getTimeStamp());
    }
    return read;
}
} // namespace

TEST_CASE ("MIDI files name their track and say which note is which class, the notes from the note map", "[export][notemap]")
{
    const std::vector<std::string> kit { "kick", "snare", "hat", "unknown" };
    const std::vector<timeline::Hit> hits { { 0.5, 0, 0.9f, -6.0f, { 0.9f, 0.05f, 0.05f, 0.0f } },
                                            { 1.0, 1, 0.9f, -6.0f, { 0.05f, 0.9f, 0.05f, 0.0f } },
                                            { 1.5, 2, 0.9f, -6.0f, { 0.05f, 0.05f, 0.9f, 0.0f } },
                                            { 2.0, 3, 0.9f, -6.0f, { 0.0f, 0.0f, 0.0f, 1.0f } } };
    SECTION ("by name: General MIDI drums, the rest base + index; unknown no note")
    {
        const timeline::ExportSettings settings { "/takes/drums/loop 1.wav", 36, {} };
        const auto read = readMidi (timeline::exportHits (timeline::ExportFormat::midi, hits, kit, settings));
        CHECK (read.trackName == "Sonotype - loop 1.wav");
        CHECK (read.texts == std::vector<juce::String> { "36 kick", "38 snare", "42 hat" });
        CHECK (read.noteOns == std::vector<std::pair<int, double>> { { 36, 960.0 }, { 38, 1920.0 }, { 42, 2880.0 } });
    }
    SECTION ("chosen notes over the names, and the base note for the rest")
    {
        const timeline::ExportSettings settings { "loop.wav", 60, { timeline::kNoNote, 40, 44 } };
        const auto read = readMidi (timeline::exportHits (timeline::ExportFormat::midi, hits, kit, settings));
        CHECK (read.texts == std::vector<juce::String> { "36 kick", "40 snare", "44 hat" });
        CHECK (read.noteOns == std::vector<std::pair<int, double>> { { 36, 960.0 }, { 40, 1920.0 }, { 44, 2880.0 } });
    }
    SECTION ("segments too; a class without a note has no text; no source: the track is Sonotype")
    {
        const std::vector<runtime::Segment> segments { { 0, 0.0, 1.0, 0.9f, 4 }, { 1, 1.0, 2.0, 0.9f, 4 } };
        const auto read = readMidi (timeline::exportSegments (timeline::ExportFormat::midi, segments, kLabels, { "", 126, {} }));
        CHECK (read.trackName == "Sonotype");
        CHECK (read.texts == std::vector<juce::String> { "126 speech", "127 drums, loud" }); // "tab here" would be 128: none
        CHECK (read.noteOns == std::vector<std::pair<int, double>> { { 126, 0.0 }, { 127, 1920.0 } });
    }
}

TEST_CASE ("JSON rows: malformed UTF-8 becomes U+FFFD, numbers that are not finite null", "[export]")
{
    CHECK (timeline::jsonString ("caf\xe9.wav") == "\"caf\xef\xbf\xbd.wav\"");
    CHECK (timeline::jsonNumber (std::nan (""), 3) == "null");
    CHECK (timeline::csvNumber (std::nan (""), 3) == "nan");
    CHECK (timeline::jsonNumber (1.23456, 3) == "1.235");
}

TEST_CASE ("MIDI notes: channel 1, velocities from 1 to 127, into a buffer on the audio thread's terms", "[midi]")
{
    CHECK (timeline::confidenceVelocity (1.0f) == 127);
    CHECK (timeline::confidenceVelocity (0.5f) == 64);
    CHECK (timeline::confidenceVelocity (0.0f) == 1);
    CHECK (timeline::confidenceVelocity (2.0f) == 127);
    CHECK (timeline::hitVelocity (0.0f) == 127);
    CHECK (timeline::hitVelocity (-48.0f) == 1);
    CHECK (timeline::hitVelocity (-24.0f) == 64);
    CHECK (timeline::hitVelocity (std::nanf ("")) == 1);

    juce::MidiBuffer midi;
    midi.ensureSize (256);
    timeline::addNoteOn (midi, 60, 300, 5);
    timeline::addNoteOn (midi, 61, 0, 6);
    timeline::addNoteOff (midi, 60, 7);
    std::vector<std::pair<juce::MidiMessage, int>> events;
    for (const auto metadata : midi)
        events.emplace_back (metadata.getMessage(), metadata.samplePosition);
    REQUIRE (events.size() == 3);
    CHECK ((events[0].first.isNoteOn() && events[0].first.getChannel() == 1 && events[0].first.getNoteNumber() == 60
            && events[0].first.getVelocity() == 127 && events[0].second == 5));
    CHECK ((events[1].first.isNoteOn() && events[1].first.getVelocity() == 1 && events[1].second == 6)); // velocity 0 would be a note-off
    CHECK ((events[2].first.isNoteOff() && events[2].first.getChannel() == 1 && events[2].first.getNoteNumber() == 60 && events[2].second == 7));
    // The same messages as the MIDI files hold.
    CHECK (timeline::noteOn (60, 127).getRawDataSize() == 3);
    CHECK (std::memcmp (timeline::noteOn (60, 300).getRawData(), events[0].first.getRawData(), 3) == 0);
}

TEST_CASE ("File shares: the label is the class that holds most of the time, silence only when no other holds any", "[export][summary]")
{
    const std::vector<std::string> labels { "piano", "silence", "guitar", "strings" };
    SECTION ("a song whose quiet release tail is the longest segment is named by its music")
    {
        // 21 s: piano 0-6 s, guitar 6-9 s, piano 9-12 s, strings 12-14 s, silence 14-21 s.
        const std::vector<runtime::Segment> segments { { 0, 0.0, 6.0, 0.9f, 20 },
                                                       { 2, 6.0, 9.0, 0.8f, 10 },
                                                       { 0, 9.0, 12.0, 0.7f, 10 },
                                                       { 3, 12.0, 14.0, 0.6f, 6 },
                                                       { 1, 14.0, 21.0, 0.99f, 28 } };
        const auto shares = timeline::fileShares (segments, labels, 21.0);
        CHECK (shares.top == 0);
        CHECK (shares.seconds == std::vector<double> { 9.0, 7.0, 3.0, 2.0 });
        CHECK (shares.share (0) == Approx (9.0 / 21.0));
        CHECK (shares.share (1) == Approx (7.0 / 21.0));
        CHECK (shares.share (4) == 0.0); // past the classes
    }
    SECTION ("silence is the label when no other class holds any time")
    {
        const auto shares = timeline::fileShares ({ { 1, 0.5, 3.0, 0.99f, 9 } }, labels, 3.0);
        CHECK (shares.top == 1);
        CHECK (shares.share (1) == Approx (2.5 / 3.0));
    }
    SECTION ("a class that holds less time than silence still wins over it")
    {
        const auto shares = timeline::fileShares ({ { 1, 0.0, 9.0, 0.99f, 33 }, { 3, 9.0, 9.5, 0.6f, 2 } }, labels, 10.0);
        CHECK (shares.top == 3);
        CHECK (shares.share (3) == Approx (0.05));
    }
    SECTION ("no segment: no label, every share 0")
    {
        const auto shares = timeline::fileShares ({}, labels, 5.0);
        CHECK (shares.top == -1);
        CHECK (shares.seconds == std::vector<double> (4, 0.0));
    }
    SECTION ("a tie goes to the first class in model order, and segments are clipped to the file")
    {
        // A 0.1 s file analysed on the window grid: its one window, and so its segment, reaches 1 s.
        const auto shares = timeline::fileShares ({ { 3, 0.0, 1.0, 0.9f, 1 }, { 2, -0.5, 0.05, 0.9f, 1 } }, labels, 0.1);
        CHECK (shares.seconds[3] == Approx (0.1));
        CHECK (shares.seconds[2] == Approx (0.05));
        CHECK (shares.top == 3);
        const auto tied = timeline::fileShares ({ { 3, 0.0, 1.0, 0.9f, 4 }, { 2, 1.0, 2.0, 0.9f, 4 } }, labels, 2.0);
        CHECK (tied.top == 2);
    }
    SECTION ("a file of no duration holds no shares")
    {
        const auto shares = timeline::fileShares ({ { 0, 0.0, 1.0, 0.9f, 1 } }, labels, 0.0);
        CHECK (shares.top == -1);
        CHECK (shares.share (0) == 0.0);
    }
}
