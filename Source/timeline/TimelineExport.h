// Segments (runtime::Segmenter) written as files other programs import: CSV as `sonotype classify
// --segments` writes it, an Audacity label track, a REAPER region list, a Standard MIDI File with one
// note per segment. The command line and the app write them with these functions.
#pragma once

#include "runtime/Segmenter.h"
#include "timeline/HitAnalysis.h"
#include "timeline/MidiNotes.h"

#include <string>
#include <vector>

namespace sonotype::timeline
{

/** `text` as one CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma, quote or line break. */
std::string csvField (const std::string& text);

/** The header of `classify --segments`' CSV: "file,start_s,end_s,label,confidence". */
inline constexpr const char* kSegmentsCsvHeader = "file,start_s,end_s,label,confidence\n";

/** One segment as a row of `classify --segments`' CSV: the file, start and end in seconds (3
    decimals), the label, the mean confidence (6 decimals). */
std::string segmentCsvRow (const std::string& file, const runtime::Segment& segment, const std::vector<std::string>& labels);

/** A number with `decimals` decimals, "nan" when it is not finite (CSV). */
std::string csvNumber (double value, int decimals);

/** Audacity's label track text (File > Import > Labels): "start<TAB>end<TAB>label" a line, seconds
    with 6 decimals. Tabs and line breaks in a label become spaces. */
std::string audacityLabels (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels);

/** REAPER's region list as its Region/Marker Manager exports it (seconds as the time unit):
    the header "#,Name,Start,End,Length", then R1, R2, ... one region a row, seconds with 6 decimals. */
std::string reaperRegions (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels);

/** A Standard MIDI File (type 1, 960 ticks per quarter note, 120 bpm: 1920 ticks a second) with one
    note per segment on channel 1, as the plugin's MIDI output plays it: note baseNote + class index
    (a segment whose note falls outside 0-127 has none), velocity from the segment's confidence
    (confidenceVelocity). */
std::string midiFile (const std::vector<runtime::Segment>& segments, int baseNote);

// ----- hits (the per-hit mode) -------------------------------------------------------------------

/** Audacity point labels, one per hit: "time<TAB>time<TAB>label". */
std::string audacityHitLabels (const std::vector<Hit>& hits, const std::vector<std::string>& labels);

/** REAPER markers, one per hit: the header "#,Name,Start,End,Length", then M1, M2, ... with the
    hit's time as Start, End and Length empty, as REAPER writes markers. */
std::string reaperHitMarkers (const std::vector<Hit>& hits, const std::vector<std::string>& labels);

/** A Standard MIDI File (as midiFile()) with one note per hit: note baseNote + class index,
    velocity from the hit's level (hitVelocity), kHitNoteSeconds long or up to the next hit of the
    same note. */
std::string midiHitFile (const std::vector<Hit>& hits, int baseNote);

inline constexpr int kMidiTicksPerQuarterNote = 960;
inline constexpr int kMidiTicksPerSecond = 2 * kMidiTicksPerQuarterNote; // at 120 bpm

} // namespace sonotype::timeline
