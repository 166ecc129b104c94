// A file's timeline: its analysis windows turned into segments whose edges sit where the sound
// changes. `sonotype classify --segments`, its exports and the app's file timelines all come from here.
//
// 1. Every moment gets the class the windows covering it agree on: the mean of their probabilities
//    (windows overlap: with a 1 s window and a 0.25 s hop, four windows cover each quarter second),
//    its best class, or none (a gap) where that class's mean is below the threshold.
// 2. Runs shorter than minSeconds are not believed: the shortest joins the neighbour whose class it
//    gives the most probability (a gap, the neighbour that is least sure), until none is left;
//    neighbours of one class merge.
// 3. Each edge between two runs moves, within reachSeconds, to the frame where the sound changes
//    most (dsp::SoundChange's novelty: the spectra of the half-seconds on either side differ most):
//    the windows say which classes meet and roughly where; the sound says exactly where.
// The first segment starts at the file's start when the first windows give it, and the last ends
// at the end of the last window (with the tail window, the file's end).
// Pure logic, no JUCE, one thread; time and memory linear in the number of windows.
#pragma once

#include "runtime/Segmenter.h"

#include <span>
#include <vector>

namespace sonotype::timeline
{

struct SegmentSettings
{
    double thresholdPercent = 30.0; // a moment whose best class has less probability than this (mean over its windows) is a gap
    double minSeconds = 0.5;        // shorter runs join a neighbour
    double reachSeconds = 0.6;      // how far an edge may move to where the sound changes
    bool operator== (const SegmentSettings&) const = default;
};

struct ScoredWindow
{
    double startSeconds = 0.0, endSeconds = 0.0;
    std::vector<float> probabilities;
};

/** A stretch between two consecutive window edges, with the mean of the windows that cover it all
    (`covered` false, the mean all zeros, where none does). */
struct WindowPiece
{
    double startSeconds = 0.0, endSeconds = 0.0;
    std::vector<double> mean;
    bool covered = false;
};

/** The stretches of the windows' timeline, in time order, by a sweep over the windows' starts and
    ends: the first step of timelineSegments, and what the app's Files view shows at a time. Windows
    whose probabilities are not all finite, or not `numClasses` of them, are left out. */
std::vector<WindowPiece> windowPieces (const std::vector<ScoredWindow>& windows, std::size_t numClasses);

/** The segments of a file's windows (in time order). `novelty` is the file's sound-change curve, one
    value per dsp::SoundChange::kFrameSeconds from the file's start (empty: edges stay where the windows
    put them). Windows whose probabilities are not all finite are left out. */
std::vector<runtime::Segment> timelineSegments (const std::vector<ScoredWindow>& windows, std::span<const float> novelty,
                                                const SegmentSettings& settings);

} // namespace sonotype::timeline
