// Segments (runtime::Segmenter) written as files other programs import: an Audacity label track,
// a REAPER region list, a Standard MIDI File with one note per segment.
#pragma once

#include "runtime/Segmenter.h"

#include <string>
#include <vector>

namespace sonotype::cli
{

/** `text` as one CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma, quote or line break. */
std::string csvField (const std::string& text);

/** Audacity's label track text (File > Import > Labels): "start<TAB>end<TAB>label" a line, seconds
    with 6 decimals. Tabs and line breaks in a label become spaces. */
std::string audacityLabels (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels);

/** REAPER's region list as its Region/Marker Manager exports it (seconds as the time unit):
    the header "#,Name,Start,End,Length", then R1, R2, ... one region a row, seconds with 6 decimals. */
std::string reaperRegions (const std::vector<runtime::Segment>& segments, const std::vector<std::string>& labels);

/** A Standard MIDI File (type 1, 960 ticks per quarter note, 120 bpm: 1920 ticks a second) with one
    note per segment on channel 1, as the plugin's MIDI output plays it: note baseNote + class index
    (a segment whose note falls outside 0-127 has none), velocity from the segment's confidence
    (confidence * 127, at least 1). */
std::string midiFile (const std::vector<runtime::Segment>& segments, int baseNote);

inline constexpr int kMidiTicksPerQuarterNote = 960;
inline constexpr int kMidiTicksPerSecond = 2 * kMidiTicksPerQuarterNote; // at 120 bpm

} // namespace sonotype::cli
