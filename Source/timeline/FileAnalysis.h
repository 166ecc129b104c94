// One audio file, start to end, through the analysis the live runtime runs (runtime::WindowAnalyzer:
// the same front end and model), into analysis windows and segments (TimelineSegments: edges where
// the sound changes, from the file's dsp::SoundChange curve). `sonotype classify` and the app's file
// analysis both call it with the same settings type and defaults, so the app's timeline and the
// command line's are the same numbers.
// One thread per call; nothing shared. The file is read in blocks of at most 2 s, and each window goes
// to the caller as it is analyzed; what is kept for the segments grows with the file's length: every
// window's probabilities (4 bytes a class: 0.7 MB per hour with the built-in model's 12 classes)
// and the sound-change curve (1.4 MB per hour).
#pragma once

#include "runtime/Segmenter.h"
#include "runtime/WindowAnalyzer.h"
#include "runtime/WindowResult.h"
#include "timeline/TimelineSegments.h"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sonotype::engine
{
class Model;
}

namespace sonotype::timeline
{

/** The one set of settings (and defaults) a file is analysed with, from the command line or the app. */
struct FileAnalysisSettings
{
    double hopSeconds = 0.25, smoothingSeconds = 0.0;
    /** Classify to the file's true end: a file shorter than one window gets one zero-padded window
        that ends where the file ends, and the tail after the last full window gets one more window,
        aligned to the file's end. Off: a short file's window is reported as a full window, and the
        tail is not classified (window k always covers [k * hop, k * hop + window)). */
    bool toEnd = true;
    SegmentSettings segments; // how windows become segments
    /** False: the windows alone (classify's window rows), no segments and no sound-change curve,
        which cost about a tenth of the analysis. */
    bool findSegments = true;
    /** Only these classes, by label (empty: all): the others get 0 and the answer is renormalised
        over these (WindowAnalyzer::setClassesInPlay). A label the model lacks is an error. */
    std::vector<std::string> classes;
};

/** What a window is, beyond its times. */
struct WindowFlags
{
    bool padded = false; // the file is shorter than one window: zero-padded (toEnd: ends at the file's end)
    bool tail = false;   // toEnd: the window aligned to the file's end, after the last full window
    /** The model's embedding of the window (ModelInfo::embeddingOutput, computed in the same run as
        its scores, never smoothed; empty for a model without one), valid during the callback. */
    std::span<const float> embedding {};
};

struct FileAnalysisCallbacks
{
    /** Once the file is open: its length in seconds, and the reader's warning for a file shorter
        than its header says (empty: none), before anything can fail in the analysis. */
    std::function<void (double lengthSeconds, const std::string& truncationWarning)> onOpen;
    /** Each window as it is analyzed, in time order (probabilities smoothed, if smoothing is on). */
    std::function<void (const runtime::WindowResult&, WindowFlags)> onWindow;
    /** Now and then: the fraction of the file read so far (0..1). Return false to stop the analysis. */
    std::function<bool (double fractionDone)> onProgress;
};

struct FileAnalysisResult
{
    std::vector<std::string> labels;
    double sampleRate = 0.0, durationSeconds = 0.0;
    double windowSeconds = 0.0, hopSeconds = 0.0;
    int64_t numWindows = 0;
    int64_t numNonFiniteWindows = 0;       // the model's output held NaN or infinity
    int64_t numNonFiniteSamples = 0;       // replaced by 0 before the analysis
    std::string truncationWarning;         // the header claims more audio than the file holds
    std::vector<double> meanProbabilities; // per class, over the windows
    std::vector<runtime::Segment> segments;
    bool stopped = false; // onProgress asked to stop: the result covers the file up to there
};

/** The analyzer one thread's files go through, kept from one file to the next: a file restarts it
    (WindowAnalyzer::restart: the session, the front end's buffers and, at the same rate, the
    resampler's filter are kept) rather than building a new one, which allocates and touches a few
    MiB and designs a resampling filter, more work than analysing a file of a second or two. */
class ReusedAnalyzer
{
public:
    /** The analyzer for a new file of `model` at `rate`, hop and smoothing set. Throws as the
        WindowAnalyzer constructor; after a throw the next call builds a new one. */
    runtime::WindowAnalyzer& start (const std::shared_ptr<const engine::Model>& model, double rate, double hopSeconds, double smoothingSeconds);
    /** Lets the analyzer (and its memory) go; the next file builds a new one. */
    void clear() noexcept
    {
        analyzer_.reset();
        model_.reset();
    }

private:
    std::shared_ptr<const engine::Model> model_;
    std::optional<runtime::WindowAnalyzer> analyzer_;
};

/** Analyses a file. Throws formats::AudioFileError for a file that cannot be read as audio, and the
    analyzer's errors (dsp::FrontendError, engine::ModelError) for settings or a rate it refuses.
    With a cache, the analyzer of the file before is reused; the results are the same either way. */
FileAnalysisResult analyzeFile (const std::string& path, const std::shared_ptr<const engine::Model>& model,
                                const FileAnalysisSettings& settings, const FileAnalysisCallbacks& callbacks = {});
FileAnalysisResult analyzeFile (const std::string& path, const std::shared_ptr<const engine::Model>& model,
                                const FileAnalysisSettings& settings, const FileAnalysisCallbacks& callbacks, ReusedAnalyzer& cache);

} // namespace sonotype::timeline
