#include "timeline/TimelineExport.h"

#include <juce_audio_basics/juce_audio_basics.h>

#include <cmath>
#include <cstdio>

namespace sonotype::timeline
{
namespace
{
    const std::string& labelOf (const runtime::Segment& segment, const std::vector<std::string>& labels)
    {
        static const std::string unknown = "?";
        return segment.classIndex >= 0 && segment.classIndex < static_cast<int> (labels.size()) ? labels[static_cast<std::size_t> (segment.classIndex)]
                                                                                                 : unknown;
    }

    int ticks (double secondsValue)
    {
        return static_cast<int> (std::lround (secondsValue * kMidiTicksPerSecond));
    }
} // namespace

std::string csvField (const std::string& text)
{
    if (text.find_first_of (",\"\n\r") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text)
        quoted += c == '"' ? std::string ("\"\"") : std::string (1, c);
    return quoted + "\"";
}

std::string csvNumber (double value, int decimals)
{
    if (! std::isfinite (value))
        return "nan";
    char text[64];
    std::snprintf (text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string segmentCsvRow (const std::string& file, const runtime::Segment& segment, const std::vector<std::string>& labels)
{
    return csvField (file) + "," + csvNumber (segment.startSeconds, 3) + "," + csvNumber (segment.endSeconds, 3) + ","
           + csvField (labelOf (segment, labels)) + "," + csvNumber (segment.confidence, 6) + "\n";
}

std::string audacityLabels (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels)
{
    std::string text;
    for (const auto& segment : segments)
    {
        auto label = labelOf (segment, labels);
        for (char& c : label)
            if (c == '\t' || c == '\n' || c == '\r')
                c = ' ';
        text += csvNumber (segment.startSeconds, 6) + "\t" + csvNumber (segment.endSeconds, 6) + "\t" + label + "\n";
    }
    return text;
}

std::string reaperRegions (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels)
{
    std::string text = "#,Name,Start,End,Length\n";
    for (std::size_t i = 0; i < segments.size(); ++i)
    {
        const auto& segment = segments[i];
        text += "R" + std::to_string (i + 1) + "," + csvField (labelOf (segment, labels)) + "," + csvNumber (segment.startSeconds, 6) + ","
                + csvNumber (segment.endSeconds, 6) + "," + csvNumber (segment.endSeconds - segment.startSeconds, 6) + "\n";
    }
    return text;
}

namespace
{
    struct Note
    {
        int note, velocity;
        double startSeconds, endSeconds;
    };

    /** One track of notes on channel 1 at 120 bpm, as a Standard MIDI File (type 1). */
    std::string midiNotes (const std::vector<Note>& notes)
    {
        juce::MidiMessageSequence track;
        auto tempo = juce::MidiMessage::tempoMetaEvent (500000); // microseconds per quarter note: 120 bpm
        tempo.setTimeStamp (0.0);
        track.addEvent (tempo);
        double end = 0.0;
        for (const auto& note : notes)
        {
            if (note.note < 0 || note.note > 127)
                continue;
            track.addEvent (noteOn (note.note, note.velocity), ticks (note.startSeconds));
            track.addEvent (noteOff (note.note), ticks (note.endSeconds));
            end = std::max (end, static_cast<double> (ticks (note.endSeconds)));
        }
        track.updateMatchedPairs();
        auto endOfTrack = juce::MidiMessage::endOfTrack();
        endOfTrack.setTimeStamp (end);
        track.addEvent (endOfTrack);

        juce::MidiFile file;
        file.setTicksPerQuarterNote (kMidiTicksPerQuarterNote);
        file.addTrack (track);
        juce::MemoryOutputStream stream;
        if (! file.writeTo (stream, 1))
            throw std::runtime_error ("could not write the MIDI file");
        return { static_cast<const char*> (stream.getData()), stream.getDataSize() };
    }
} // namespace

std::string midiFile (const std::vector<runtime::Segment>& segments, int baseNote)
{
    std::vector<Note> notes;
    for (const auto& segment : segments)
        notes.push_back ({ baseNote + segment.classIndex, confidenceVelocity (segment.confidence), segment.startSeconds, segment.endSeconds });
    return midiNotes (notes);
}

std::string audacityHitLabels (const std::vector<Hit>& hits, const std::vector<std::string>& labels)
{
    std::vector<runtime::Segment> points;
    for (const auto& hit : hits)
        points.push_back ({ hit.classIndex, hit.seconds, hit.seconds, hit.confidence, 1 });
    return audacityLabels (points, labels);
}

std::string reaperHitMarkers (const std::vector<Hit>& hits, const std::vector<std::string>& labels)
{
    std::string text = "#,Name,Start,End,Length\n";
    for (std::size_t i = 0; i < hits.size(); ++i)
    {
        const runtime::Segment point { hits[i].classIndex, hits[i].seconds, hits[i].seconds, hits[i].confidence, 1 };
        text += "M" + std::to_string (i + 1) + "," + csvField (labelOf (point, labels)) + "," + csvNumber (hits[i].seconds, 6) + ",,\n";
    }
    return text;
}

std::string midiHitFile (const std::vector<Hit>& hits, int baseNote)
{
    std::vector<Note> notes;
    for (std::size_t i = 0; i < hits.size(); ++i)
    {
        const int note = baseNote + hits[i].classIndex;
        double end = hits[i].seconds + kHitNoteSeconds;
        for (std::size_t j = i + 1; j < hits.size() && hits[j].seconds < end; ++j)
            if (baseNote + hits[j].classIndex == note)
                end = hits[j].seconds; // the same note again: this one ends there
        notes.push_back ({ note, hitVelocity (hits[i].levelDb), hits[i].seconds, std::max (end, hits[i].seconds + 1.0 / kMidiTicksPerSecond) });
    }
    return midiNotes (notes);
}

} // namespace sonotype::timeline
