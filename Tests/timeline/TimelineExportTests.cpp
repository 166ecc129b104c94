// Segments as an Audacity label track, a REAPER region list and a Standard MIDI File (read back
// with juce::MidiFile).
#include "timeline/TimelineExport.h"

#include <catch2/catch.hpp>
#include <juce_audio_basics/juce_audio_basics.h>

using namespace sonotype;

namespace
{
const std::vector<std::string> kLabels { "speech", "drums, loud", "tab\there" };

std::vector<runtime::Segment> someSegments()
{
    return { { 0, 0.0, 1.25, 0.9f, 5 }, { 1, 1.25, 4.0, 0.5f, 9 }, { 2, 4.5, 6.0000004, 0.001f, 4 } };
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

TEST_CASE ("MIDI file: one note per segment at 1920 ticks a second, the plugin's notes and velocities", "[export]")
{
    const auto bytes = timeline::midiFile (someSegments(), 126);
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
    const auto bytes = timeline::midiFile ({ { 0, 0.0, 1.0, 0.001f, 2 } }, 36);
    juce::MemoryInputStream stream (bytes.data(), bytes.size(), false);
    juce::MidiFile file;
    REQUIRE (file.readFrom (stream));
    for (const auto* event : *file.getTrack (0))
        if (event->message.isNoteOn())
            CHECK (event->message.getVelocity() == 1);
}
