// The files the user opened or dropped, analysed on a background thread (never the audio thread,
// never the message thread) with timeline::analyzeFile: the model, hop and smoothing the live
// analysis runs, so the timeline is what `sonotype classify --segments` gives for the same file. No
// audio device is needed: the file is read as fast as the engine goes, not played.
//
// Each file's timeline (its windows as they come, then its segments) is kept for the GUI and for
// export. A new model, hop or smoothing analyses the files again; a new threshold only merges the
// kept windows into segments again (the same windows give the same segments).
//
// With per-hit MIDI on (Settings::hits), a file is analysed hit by hit instead, with
// timeline::analyzeHits as `sonotype classify --onsets` runs it: its hits (as they come, then all)
// are its timeline, and it has no windows or segments. Turning the mode on or off, or other onset
// settings, analyses the files again.
//
// Threading contract
// - Message thread: analyze(), add(), reanalyze(), clear(); readers (status(), copyWindows(),
//   timeline()) from any thread but the audio thread.
// - The analysis thread (a juce::Thread of this class): runs the analyses, one file at a time.
// - Shared: everything under mutex_, held for copies and appends only (never while analysing).
#pragma once

#include "engine/Model.h"
#include "runtime/Segmenter.h"
#include "timeline/FileAnalysis.h"
#include "timeline/HitAnalysis.h"

#include <juce_core/juce_core.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

namespace sonotype::plugin
{

/** One analysis window of a file's timeline. */
using TimelineWindow = timeline::ScoredWindow; // a window's span and probabilities, as segments are made from them

enum class FileState
{
    queued,
    analyzing,
    done,
    failed
};

/** What a file's analysis has come to: everything but its windows (copyWindows()). */
struct FileStatus
{
    juce::File file;
    FileState state = FileState::queued;
    double progress = 0.0;        // fraction of the file read, 0..1
    double durationSeconds = 0.0; // known once the analysis ends (the reader's length before)
    std::size_t numWindows = 0;
    juce::String error;   // failed: why (the reader's or the analyzer's message)
    juce::String warning; // done: what the CLI prints as a warning (truncated file, NaN samples)
    std::vector<std::string> labels;
    std::vector<runtime::Segment> segments; // done: the windows merged with the detector's rules
    bool perHit = false;                    // analysed hit by hit (per-hit MIDI): hits, no windows or segments
    std::vector<timeline::Hit> hits;        // per hit: the hits found so far (all of them once done)
    double windowSeconds = 0.0, hopSeconds = 0.0;
    uint64_t analysis = 0; // which analysis of the file this is (a new model, hop or smoothing starts another)
    uint64_t version = 0;  // changes whenever any of the above (or the windows) changes
};

class FileTimelines final : private juce::Thread
{
public:
    struct Settings
    {
        std::shared_ptr<const engine::Model> model;
        timeline::FileAnalysisSettings analysis;
        std::optional<timeline::HitAnalysisSettings> hits; // set: the files are analysed hit by hit, with these

        /** Whether these settings give another timeline than `other`. */
        bool analyzesDifferently (const Settings& other) const noexcept
        {
            return model != other.model || analysis.hopSeconds != other.analysis.hopSeconds
                   || analysis.smoothingSeconds != other.analysis.smoothingSeconds || analysis.toEnd != other.analysis.toEnd
                   || analysis.classes != other.analysis.classes || ! (analysis.segments == other.analysis.segments) || hits != other.hits;
        }
    };

    FileTimelines();
    ~FileTimelines() override;

    // ----- message thread --------------------------------------------------------------------
    /** Replaces the files with these, analysed in this order (an analysis under way stops). */
    void analyze (const juce::Array<juce::File>& files, Settings settings);
    /** Adds these files after the ones there, analysed in this order; a file already there is not
        added again. The files there keep their analyses (an analysis under way goes on), unless
        `settings` analyse differently: then all are analysed again, as reanalyze() does. */
    void add (const juce::Array<juce::File>& files, Settings settings);
    /** The same files again with other settings (a new model, hop or smoothing). */
    void reanalyze (Settings settings);
    void clear();

    // ----- any thread but the audio thread ---------------------------------------------------------
    std::size_t numFiles() const;
    /** The status of file i (a default one, state queued, when i is out of range). */
    FileStatus status (std::size_t index) const;
    /** Appends file i's windows from index `from` on to `out`; returns how many. */
    std::size_t copyWindows (std::size_t index, std::size_t from, std::vector<TimelineWindow>& out) const;
    /** The settings the files are analysed with. */
    Settings settings() const;
    /** The files, in order. */
    juce::Array<juce::File> files() const;
    /** Changes whenever anything of any file changes. */
    uint64_t version() const;
    /** Whether a file is queued or being analysed. */
    bool isBusy() const;

private:
    struct Entry
    {
        FileStatus status;
        std::vector<TimelineWindow> windows;
    };
    void run() override;
    void restart (Settings settings); // mutex_ held
    void analyzeOne (std::size_t index, uint64_t request, const Settings& settings);
    // analyzeOne's two kinds (the thread's; each takes mutex_ only to store what it found).
    void analyzeAsWindows (std::size_t index, uint64_t request, const Settings& settings, const juce::File& file);
    void analyzeAsHits (std::size_t index, uint64_t request, const Settings& settings, const juce::File& file);
    /** The file's length, known once it opened (the analysis thread; takes mutex_). */
    void opened (std::size_t index, uint64_t request, double lengthSeconds);
    /** The end of an analysis (mutex_ held): the entry's state, failed with `error` or done. */
    void finish (Entry& entry, bool done, const juce::String& error);

    mutable std::mutex mutex_;
    std::vector<Entry> entries_;
    Settings settings_;
    uint64_t request_ = 0; // bumped by every change of files or settings: an analysis of an older one stops
    uint64_t version_ = 0;
    timeline::ReusedAnalyzer analyzers_; // the thread's: the files of one pass reuse one analyzer
};

} // namespace sonotype::plugin
