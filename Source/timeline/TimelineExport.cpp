#include "timeline/TimelineExport.h"

#include <juce_audio_basics/juce_audio_basics.h>

#include <cmath>
#include <cstdio>

namespace sonotype::timeline
{
namespace
{
    std::string seconds (double value)
    {
        char text[64];
        std::snprintf (text, sizeof text, "%.6f", value);
        return text;
    }

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
        text += seconds (segment.startSeconds) + "\t" + seconds (segment.endSeconds) + "\t" + label + "\n";
    }
    return text;
}

std::string reaperRegions (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels)
{
    std::string text = "#,Name,Start,End,Length\n";
    for (std::size_t i = 0; i < segments.size(); ++i)
    {
        const auto& segment = segments[i];
        text += "R" + std::to_string (i + 1) + "," + csvField (labelOf (segment, labels)) + "," + seconds (segment.startSeconds) + ","
                + seconds (segment.endSeconds) + "," + seconds (segment.endSeconds - segment.startSeconds) + "\n";
    }
    return text;
}

std::string midiFile (const std::vector<runtime::Segment>& segments, int baseNote)
{
    juce::MidiMessageSequence track;
    auto tempo = juce::MidiMessage::tempoMetaEvent (500000); // microseconds per quarter note: 120 bpm
    tempo.setTimeStamp (0.0);
    track.addEvent (tempo);
    double end = 0.0;
    for (const auto& segment : segments)
    {
        const int note = baseNote + segment.classIndex;
        if (note < 0 || note > 127)
            continue;
        const auto velocity = static_cast<juce::uint8> (juce::jlimit (1, 127, juce::roundToInt (segment.confidence * 127.0f)));
        track.addEvent (juce::MidiMessage::noteOn (1, note, velocity), ticks (segment.startSeconds));
        track.addEvent (juce::MidiMessage::noteOff (1, note), ticks (segment.endSeconds));
        end = std::max (end, static_cast<double> (ticks (segment.endSeconds)));
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

} // namespace sonotype::timeline
