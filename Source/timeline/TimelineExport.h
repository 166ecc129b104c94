// Segments (runtime::Segmenter) and hits (HitAnalysis) written as files other programs import: CSV
// and JSON rows as `sonotype classify` writes them, an Audacity label track, a REAPER region (or
// marker) list, a Standard MIDI File with one note per segment or hit. exportSegments() and
// exportHits() are the one dispatch over the formats: the command line and the app's Export...
// both call them (the app only picks the format and the file), so what either writes is the same.
// MIDI notes are the classes' notes of the note map (NoteMap.h), with the notes chosen for the
// classes as ExportSettings gives them.
// Pure functions: any thread.
#pragma once

#include "runtime/Segmenter.h"
#include "timeline/HitAnalysis.h"
#include "timeline/MidiNotes.h"
#include "timeline/NoteMap.h"

#include <optional>
#include <string>
#include <vector>

namespace sonotype::timeline
{

// ----- the dispatch ------------------------------------------------------------------------------

/** The formats a timeline is written in, as `sonotype classify --format` names them. */
enum class ExportFormat
{
    csv,      // rows with a header (`classify --segments`, `classify --onsets`), .csv
    json,     // an array of one object per row, as `classify --format json` writes it, .json
    audacity, // a label track (point labels for hits), .txt
    reaper,   // a region list (markers for hits), .csv
    midi      // a Standard MIDI File, a note per segment or hit, .mid
};

/** The format `name` names ("csv", "json", "audacity", "reaper", "midi"), or none. */
std::optional<ExportFormat> exportFormatNamed (const std::string& name);

/** Audacity, REAPER and MIDI files hold one file's segments or hits; CSV and JSON rows name their file. */
bool holdsOneFile (ExportFormat format) noexcept;

struct ExportSettings
{
    std::string source;           // CSV and JSON: the file the rows name; MIDI: the file the track is named after
    int baseNote = 36;            // MIDI: the note of class 0, for the classes whose name says no drum (the plugin's "MIDI base note" default)
    std::vector<int> chosenNotes; // MIDI: per class the note chosen for it (the model file's, --note-map's, the Teach view's), -1: none (NoteMap.h)
};

/** A file's segments in `format`: CSV (the header, then segmentCsvRow()s), JSON (segmentJsonRow()s
    in an array), audacityLabels(), reaperRegions() or midiFile(). Throws std::runtime_error when
    the MIDI file cannot be written. */
std::string exportSegments (ExportFormat format, const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels,
                            const ExportSettings& settings);

/** A file's hits in `format`: CSV (the header, then hitCsvRow()s), JSON (hitJsonRow()s in an
    array), audacityHitLabels(), reaperHitMarkers() or midiHitFile(). */
std::string exportHits (ExportFormat format, const std::vector<Hit>& hits, const std::vector<std::string>& labels, const ExportSettings& settings);

// ----- rows (CSV and JSON) -------------------------------------------------------------------------

/** `text` as one CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma, quote or line break. */
std::string csvField (const std::string& text);

/** A number with `decimals` decimals, "nan" when it is not finite (CSV). */
std::string csvNumber (double value, int decimals);

/** `text` as a JSON string. Malformed UTF-8 (a Latin-1 file name, say) becomes U+FFFD, so that a
    row is always valid JSON. */
std::string jsonString (const std::string& text);

/** A number with `decimals` decimals, null when it is not finite (JSON has no NaN). */
std::string jsonNumber (double value, int decimals);

/** The columns of segment rows: "file,start_s,end_s,label,confidence". */
inline constexpr const char* kSegmentColumns = "file,start_s,end_s,label,confidence";

/** The first columns of hit rows: "file,time_s,label,confidence,level_db" (then one per class). */
inline constexpr const char* kHitColumns = "file,time_s,label,confidence,level_db";

/** One segment as a CSV row: the file, start and end in seconds (3 decimals), the label, the mean
    confidence (6 decimals). */
std::string segmentCsvRow (const std::string& file, const runtime::Segment& segment, const std::vector<std::string>& labels);

/** The same as a JSON object (no line break): {"file":..,"start_s":..,"end_s":..,"label":..,"confidence":..}. */
std::string segmentJsonRow (const std::string& file, const runtime::Segment& segment, const std::vector<std::string>& labels);

/** One hit as a CSV row: the file, the onset in seconds (3 decimals), the label, the confidence (6
    decimals), the level in dB (1 decimal), then each class's probability (6 decimals). */
std::string hitCsvRow (const std::string& file, const Hit& hit, const std::vector<std::string>& labels);

/** The same as a JSON object (no line break), the probabilities an object by label. */
std::string hitJsonRow (const std::string& file, const Hit& hit, const std::vector<std::string>& labels);

// ----- a file's summary ----------------------------------------------------------------------------

/** The label a file's summary names only when no other class holds any of its time: a quiet
    release or a pause must not outweigh the music around it. */
inline constexpr const char* kSilenceLabel = "silence";

/** What a file mostly is, from its segments: the time each class holds and the class that holds most. */
struct FileShares
{
    std::vector<double> seconds; // per class: the seconds its segments hold inside [0, duration]
    double durationSeconds = 0.0;
    /** The class that holds most of the time (the first in model order on a tie); "silence" only
        when no other class holds any; -1 when no class holds any (no segment: nothing detected). */
    int top = -1;

    /** seconds[c] as a share of the file's duration (0..1; 0 for a file of no duration). */
    double share (std::size_t c) const noexcept;
};

/** The time each class holds in a file's segments, clipped to [0, duration] (a grid window may
    reach past a short file's end), and the file's label by that time. */
FileShares fileShares (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels, double durationSeconds);

// ----- files for other programs -----------------------------------------------------------------------

/** Audacity's label track text (File > Import > Labels): "start<TAB>end<TAB>label" a line, seconds
    with 6 decimals. Tabs and line breaks in a label become spaces. */
std::string audacityLabels (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels);

/** REAPER's region list as its Region/Marker Manager exports it (seconds as the time unit):
    the header "#,Name,Start,End,Length", then R1, R2, ... one region a row, seconds with 6 decimals. */
std::string reaperRegions (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels);

/** A MIDI file's track name: "Sonotype - " and the source's file name (its folders left out), or
    "Sonotype" without one. */
std::string midiTrackName (const std::string& source);

/** A Standard MIDI File (type 1, 960 ticks per quarter note, 120 bpm: 1920 ticks a second) with one
    note per segment on channel 1, as the plugin's MIDI output plays it: the note of the segment's
    class in `notes` (NoteMap.h; a class without one has none), velocity from the segment's
    confidence (confidenceVelocity). At time 0 the track says what it is: its name (a track-name
    event, which DAWs show as the track's or clip's name) and one text event per class that has a
    note, "36 kick" (the number: DAWs name notes in different octaves, C1 or C2 for 36), in class
    order. */
std::string midiFile (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels, const NoteMap& notes,
                      const std::string& trackName);

/** Audacity point labels, one per hit: "time<TAB>time<TAB>label". */
std::string audacityHitLabels (const std::vector<Hit>& hits, const std::vector<std::string>& labels);

/** REAPER markers, one per hit: the header "#,Name,Start,End,Length", then M1, M2, ... with the
    hit's time as Start, End and Length empty, as REAPER writes markers. */
std::string reaperHitMarkers (const std::vector<Hit>& hits, const std::vector<std::string>& labels);

/** A Standard MIDI File (as midiFile(), its name and classes' text events too) with one note per
    hit: the note of its class in `notes`, velocity from the hit's level (hitVelocity),
    kHitNoteSeconds long or up to the next hit of the same note. */
std::string midiHitFile (const std::vector<Hit>& hits, const std::vector<std::string>& labels, const NoteMap& notes, const std::string& trackName);

inline constexpr int kMidiTicksPerQuarterNote = 960;
inline constexpr int kMidiTicksPerSecond = 2 * kMidiTicksPerQuarterNote; // at 120 bpm

} // namespace sonotype::timeline
