// `sonotype classify`'s options: what the command line sets, and the checks of which go together
// that need no model (the others, classify's, once the model is loaded: ClassifyCommand.cpp).
#pragma once

#include "cli/Arguments.h"
#include "cli/ModelLoading.h"
#include "timeline/FileAnalysis.h"
#include "timeline/HitAnalysis.h"
#include "timeline/TimelineExport.h"

#include <algorithm>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace sonotype::cli
{

struct ClassifyOptions
{
    std::string model;
    timeline::FileAnalysisSettings analysis; // --hop, --smooth, --threshold, --grid (toEnd): the app's file timelines' defaults
    bool json = false, summary = false, segments = false;
    /** --grid: windows on the hop's grid only, as before the true end was the default (a short file
        reported as one full window, the tail after the last full window not classified). */
    bool grid = false;
    bool toEndGiven = false; // --to-end: the default, accepted for the scripts that pass it
    bool errorRows = true;   // --error-rows is the default too (kept for the scripts that pass it)
    bool embeddings = false; // --embeddings: each window row gets the model's embedding
    timeline::ExportFormat format = timeline::ExportFormat::csv;
    int baseNote = 36;                                // the plugin's "MIDI base note" default
    std::vector<std::pair<std::string, int>> noteMap; // --note-map: notes chosen for classes, over the model's own
    std::vector<int> chosenNotes;                     // per class: the model's chosen notes with --note-map's (set when the model is loaded)
    std::string output;
    unsigned jobs = std::max (1u, std::thread::hardware_concurrency());
    std::size_t shardIndex = 0, shardCount = 1;
    std::vector<std::string> paths;
    std::vector<std::string> classes; // --classes: in play (empty: all)
    bool onsets = false;              // --onsets: one classification per hit
    timeline::HitAnalysisSettings hits;
    bool onsetWindowGiven = false; // --onset-window given: else a taught model's own window is the default
    ModelLimitOptions limits;

    /** Audacity, REAPER and MIDI: one file's segments (or hits) as one file, not rows. */
    bool exporting() const noexcept { return timeline::holdsOneFile (format); }
};

/** Adds classify's options and its PATH arguments to `command`, parsed into `options`. */
void addClassifyOptions (CLI::App& command, ClassifyOptions& options);

/** After parsing: audacity, reaper and midi imply segments (or hits, with --onsets). */
void completeClassifyOptions (ClassifyOptions& options);

/** Throws UsageError for options that do not go together, or a MIDI file for a terminal. */
void checkClassifyUsage (const ClassifyOptions& options);

/** The options of `sonotype classify ARGUMENTS...` (what follows the command's name), parsed,
    completed and checked as the command line's are, for callers other than the command line
    (Python's sonotype.engine). Throws UsageError with the message the command line prints after
    "error: " when they are refused. */
ClassifyOptions parseClassifyOptions (const std::vector<std::string>& arguments);

} // namespace sonotype::cli
