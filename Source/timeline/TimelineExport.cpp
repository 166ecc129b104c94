#include "timeline/TimelineExport.h"

#include <juce_audio_basics/juce_audio_basics.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

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

    const std::string& labelOf (int classIndex, const std::vector<std::string>& labels)
    {
        return labelOf (runtime::Segment { classIndex, 0.0, 0.0, 0.0f, 0 }, labels);
    }

    int ticks (double secondsValue)
    {
        return static_cast<int> (std::lround (secondsValue * kMidiTicksPerSecond));
    }

    /** CSV: the header, then the rows; JSON: the rows as an array, one a line, as classify writes them
        (CSV with classify's error column last, empty: a file exported is one classify read). */
    template <typename Item, typename CsvRow, typename JsonRow>
    std::string rows (ExportFormat format, const std::string& header, const std::vector<Item>& items, CsvRow&& csvRow, JsonRow&& jsonRow)
    {
        if (format == ExportFormat::csv)
        {
            std::string text = header + ",error\n";
            for (const auto& item : items)
            {
                auto row = csvRow (item);
                text += row.insert (row.size() - 1, ",");
            }
            return text;
        }
        std::string text = "[";
        for (std::size_t i = 0; i < items.size(); ++i)
            text += (i == 0 ? "\n" : ",\n") + jsonRow (items[i]);
        return text + (items.empty() ? "]\n" : "\n]\n");
    }
} // namespace

std::optional<ExportFormat> exportFormatNamed (const std::string& name)
{
    static const std::pair<const char*, ExportFormat> names[] = { { "csv", ExportFormat::csv },
                                                                  { "json", ExportFormat::json },
                                                                  { "audacity", ExportFormat::audacity },
                                                                  { "reaper", ExportFormat::reaper },
                                                                  { "midi", ExportFormat::midi } };
    for (const auto& [formatName, format] : names)
        if (name == formatName)
            return format;
    return std::nullopt;
}

bool holdsOneFile (ExportFormat format) noexcept
{
    return format == ExportFormat::audacity || format == ExportFormat::reaper || format == ExportFormat::midi;
}

double FileShares::share (std::size_t c) const noexcept
{
    return durationSeconds > 0.0 && c < seconds.size() ? seconds[c] / durationSeconds : 0.0;
}

FileShares fileShares (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels, double durationSeconds)
{
    FileShares shares;
    shares.durationSeconds = std::max (durationSeconds, 0.0);
    shares.seconds.assign (labels.size(), 0.0);
    for (const auto& segment : segments)
    {
        const double held = std::min (segment.endSeconds, shares.durationSeconds) - std::max (segment.startSeconds, 0.0);
        if (segment.classIndex >= 0 && static_cast<std::size_t> (segment.classIndex) < labels.size() && held > 0.0)
            shares.seconds[static_cast<std::size_t> (segment.classIndex)] += held;
    }
    // Silence last: it wins only when no other class holds any time.
    int silence = -1;
    for (std::size_t c = 0; c < labels.size(); ++c)
    {
        if (labels[c] == kSilenceLabel)
            silence = static_cast<int> (c);
        else if (shares.seconds[c] > 0.0 && (shares.top < 0 || shares.seconds[c] > shares.seconds[static_cast<std::size_t> (shares.top)]))
            shares.top = static_cast<int> (c);
    }
    if (shares.top < 0 && silence >= 0 && shares.seconds[static_cast<std::size_t> (silence)] > 0.0)
        shares.top = silence;
    return shares;
}

std::string exportSegments (ExportFormat format, const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels,
                            const ExportSettings& settings)
{
    switch (format)
    {
        case ExportFormat::audacity: return audacityLabels (segments, labels);
        case ExportFormat::reaper: return reaperRegions (segments, labels);
        case ExportFormat::midi:
            return midiFile (segments, labels, noteMap (labels, settings.chosenNotes, settings.baseNote), midiTrackName (settings.source));
        case ExportFormat::csv:
        case ExportFormat::json: break;
    }
    return rows (
        format, kSegmentColumns, segments, [&] (const runtime::Segment& segment) { return segmentCsvRow (settings.source, segment, labels); },
        [&] (const runtime::Segment& segment) { return segmentJsonRow (settings.source, segment, labels); });
}

std::string exportHits (ExportFormat format, const std::vector<Hit>& hits, const std::vector<std::string>& labels, const ExportSettings& settings)
{
    switch (format)
    {
        case ExportFormat::audacity: return audacityHitLabels (hits, labels);
        case ExportFormat::reaper: return reaperHitMarkers (hits, labels);
        case ExportFormat::midi: return midiHitFile (hits, labels, noteMap (labels, settings.chosenNotes, settings.baseNote), midiTrackName (settings.source));
        case ExportFormat::csv:
        case ExportFormat::json: break;
    }
    std::string header = kHitColumns;
    for (const auto& label : labels)
        header += "," + csvField (label);
    return rows (
        format, header, hits, [&] (const Hit& hit) { return hitCsvRow (settings.source, hit, labels); },
        [&] (const Hit& hit) { return hitJsonRow (settings.source, hit, labels); });
}

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

std::string jsonString (const std::string& text)
{
    return nlohmann::json (text).dump (-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string jsonNumber (double value, int decimals)
{
    return std::isfinite (value) ? csvNumber (value, decimals) : "null";
}

std::string segmentCsvRow (const std::string& file, const runtime::Segment& segment, const std::vector<std::string>& labels)
{
    return csvField (file) + "," + csvNumber (segment.startSeconds, 3) + "," + csvNumber (segment.endSeconds, 3) + ","
           + csvField (labelOf (segment, labels)) + "," + csvNumber (segment.confidence, 6) + "\n";
}

std::string segmentJsonRow (const std::string& file, const runtime::Segment& segment, const std::vector<std::string>& labels)
{
    return "{\"file\":" + jsonString (file) + ",\"start_s\":" + jsonNumber (segment.startSeconds, 3) + ",\"end_s\":"
           + jsonNumber (segment.endSeconds, 3) + ",\"label\":" + jsonString (labelOf (segment, labels)) + ",\"confidence\":"
           + jsonNumber (segment.confidence, 6) + "}";
}

std::string hitCsvRow (const std::string& file, const Hit& hit, const std::vector<std::string>& labels)
{
    std::string row = csvField (file) + "," + csvNumber (hit.seconds, 3) + "," + csvField (labelOf (hit.classIndex, labels)) + ","
                      + csvNumber (hit.confidence, 6) + "," + csvNumber (hit.levelDb, 1);
    for (const float p : hit.probabilities)
        row += "," + csvNumber (p, 6);
    return row + "\n";
}

std::string hitJsonRow (const std::string& file, const Hit& hit, const std::vector<std::string>& labels)
{
    std::string row = "{\"file\":" + jsonString (file) + ",\"time_s\":" + jsonNumber (hit.seconds, 3) + ",\"label\":"
                      + jsonString (labelOf (hit.classIndex, labels)) + ",\"confidence\":" + jsonNumber (hit.confidence, 6) + ",\"level_db\":"
                      + jsonNumber (hit.levelDb, 1) + ",\"probabilities\":{";
    for (std::size_t c = 0; c < hit.probabilities.size(); ++c)
        row += (c ? "," : "") + jsonString (labelOf (static_cast<int> (c), labels)) + ":" + jsonNumber (hit.probabilities[c], 6);
    return row + "}}";
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

    /** One track of notes on channel 1 at 120 bpm, as a Standard MIDI File (type 1), named, with
        which note is which class at its start. */
    std::string midiNotes (const std::vector<Note>& notes, const std::vector<std::string>& labels, const NoteMap& map, const std::string& trackName)
    {
        juce::MidiMessageSequence track;
        track.addEvent (juce::MidiMessage::textMetaEvent (3, juce::String::fromUTF8 (trackName.c_str())), 0.0);
        for (std::size_t c = 0; c < labels.size(); ++c)
            if (const int note = map.noteOf (static_cast<int> (c)); note != kNoNote)
                track.addEvent (juce::MidiMessage::textMetaEvent (1, juce::String (note) + " " + juce::String::fromUTF8 (labels[c].c_str())), 0.0);
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

std::string midiTrackName (const std::string& source)
{
    const auto slash = source.find_last_of ("/\\");
    const auto name = slash == std::string::npos ? source : source.substr (slash + 1);
    return name.empty() ? std::string ("Sonotype") : "Sonotype - " + name;
}

std::string midiFile (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels, const NoteMap& map,
                      const std::string& trackName)
{
    std::vector<Note> notes;
    for (const auto& segment : segments)
        notes.push_back ({ map.noteOf (segment.classIndex), confidenceVelocity (segment.confidence), segment.startSeconds, segment.endSeconds });
    return midiNotes (notes, labels, map, trackName);
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

std::string midiHitFile (const std::vector<Hit>& hits, const std::vector<std::string>& labels, const NoteMap& map, const std::string& trackName)
{
    std::vector<Note> notes;
    for (std::size_t i = 0; i < hits.size(); ++i)
    {
        const int note = map.noteOf (hits[i].classIndex);
        double end = hits[i].seconds + kHitNoteSeconds;
        for (std::size_t j = i + 1; j < hits.size() && hits[j].seconds < end; ++j)
            if (map.noteOf (hits[j].classIndex) == note)
                end = hits[j].seconds; // the same note again: this one ends there
        notes.push_back ({ note, hitVelocity (hits[i].levelDb), hits[i].seconds, std::max (end, hits[i].seconds + 1.0 / kMidiTicksPerSecond) });
    }
    return midiNotes (notes, labels, map, trackName);
}

} // namespace sonotype::timeline
