// `sonotype classify`: classifies audio files and folders, window by window, with the same analyzer
// the live runtime runs. Results go to stdout (CSV or JSON); messages and progress to stderr. The
// options are ClassifyOptions', each file's analysis and rows FileClassification's; here the jobs
// that run them in parallel and the output in file order.
#include "cli/AudioPaths.h"
#include "cli/ClassifyOptions.h"
#include "cli/ClassifyOutput.h"
#include "cli/Commands.h"
#include "cli/FileClassification.h"
#include "engine/file/Text.h"
#include "runtime/WindowAnalyzer.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

namespace sonotype::cli
{
namespace
{
    constexpr const char* kDescription = R"(Classifies audio files (WAV, AIFF, FLAC, Ogg Vorbis, MP3, Opus) and folders (searched recursively),
one row per analysis window: window k covers [k * hop, k * hop + window) seconds, and each file is
classified to its true end: a file shorter than one window is zero-padded to one window that ends at
the file's end (column padded: 1), and the tail after the last full window gets one more window,
aligned to the file's end (column tail: 1; with --smooth, smoothed with the windows before it). CSV
rows carry the columns padded,tail after the probabilities, JSON rows the fields padded and tail;
segments reach the file's end too. --grid keeps to the hop's grid instead: a short file is reported
as one full window, the tail is not classified, and rows have no padded and tail (--to-end, the
default, is accepted for scripts that pass it).

--classes A,B,C says which of the model's classes are in play: the others get probability 0 and
each window's answer is renormalised over these (a softmax over their logits alone), so a piano that
the full model might call bass is named among the instruments actually there.

--onsets classifies each hit instead of each window (drum-to-MIDI, one-shots): an onset detector
(spectral flux, adaptive threshold: --onset-threshold, --onset-gap, --onset-silence) finds each hit,
and each hit is classified from the first --onset-window seconds after it (zero-padded to the model's
window, as a short file is). One row per hit: file,time_s,label,confidence,level_db (the peak in the
50 ms after the onset), then the probabilities; --format audacity gives point labels, reaper
markers, midi one note per hit (velocity from the level). --hop and --smooth do not apply.
--response live gives the hits the plugin's Live mode plays instead: a detector that decides within
6 ms, each hit named from its first 6 ms by the kit a model taught from hits carries (level_db: the
peak of those 6 ms).

--segments turns the windows into segments, stretches of one class with edges where the sound
changes: each moment gets the class the windows covering it agree on (the mean of their
probabilities), or none where that class has less than --threshold (default 30); stretches shorter
than 0.5 s join the neighbour they agree with most, neighbours of one class merge; then each edge
moves, up to 0.6 s, to where the sound changes most (the mean spectra of the half-seconds before and
after differ most, every 10 ms). The app's file timelines use the same rules and defaults. --format audacity, reaper and midi write segments for one
file at a time (a folder with one audio file counts as one file).

--summary gives one row per file, labelled by time: the file's segments (as --segments finds them,
--threshold and --classes applying) give each class the seconds it holds, and the label is the class
that holds the most (the first in model order on a tie). Silence is the label only when no other
class holds any time, so a quiet release tail or a pause never outweighs the music around it; when
no class holds any (nothing detected), the label is empty (JSON: null) and the share 0.
Columns: file,label,share (the label's share of the file's duration), one share per class,
duration_s, windows, then mean_<class>: the mean probability of each class over the windows (the
answer the windows give on average, for those who want it). JSON: "shares" and "mean_probabilities"
by label.

A folder is searched recursively; each file skipped (an unsupported extension, not a regular file)
is named on stderr. A file or folder that could not be classified is a row too, with its error: CSV
rows end with an error column (empty for the files classified), JSON gives {"file": ..., "error":
...} (--error-rows, the default, is accepted for scripts that pass it). Every run ends with its
totals on stderr: "total: 3 classified (1 with warnings), 1 failed, 2 skipped".

--embeddings adds the model's embedding of each window (the numbers `sonotype learn` averages into
an example, computed in the same run as the window's scores; the model needs an embedding output):
CSV columns embedding_0, embedding_1, ... after the others (before the error column),
JSON rows an "embedding" array. For studying teaching rules on your own files; window rows only.)";

    constexpr const char* kFooter = R"(CSV columns: file,start_s,end_s,label,confidence, then one probability per class in model order,
padded,tail (not with --grid), error (--summary: file,label,share, one share per class, duration_s,
windows, mean_<class> per class, error; --segments: file,start_s,end_s,label,confidence,error, the
confidence being the class's mean probability over the segment). Every CSV, hit rows' too, ends with
the error column.
Formats: csv, json (one object per row), audacity (a label track: start, end, label, tab-separated),
reaper (a region list: #,Name,Start,End,Length), midi (a Standard MIDI File, one note per segment:
--base-note + class index, velocity from the confidence; needs --output or a stdout that is not a
terminal).
Exit codes: 0 every file was classified (warnings, such as NaN samples replaced by 0 or a truncated
file classified as far as it goes, are on stderr and leave the exit code 0); 1 a file or folder
could not be classified (its error row is written and the other files are still classified; the
model's output not finite counts as not classified); 2 bad usage.)";

    void drawProgress (std::size_t done, std::size_t total)
    {
        constexpr int kWidth = 30;
        const int filled = total == 0 ? kWidth : static_cast<int> (kWidth * done / total);
        std::fprintf (stderr, "\r[%s%s] %zu/%zu files", std::string (static_cast<std::size_t> (filled), '#').c_str(),
                      std::string (static_cast<std::size_t> (kWidth - filled), '.').c_str(), done, total);
        if (done == total)
            std::fprintf (stderr, "\n");
        std::fflush (stderr);
    }

    /** A file's outcome and its rows, formatted by the job that classified it. */
    struct ClassifiedFile
    {
        FileOutcome outcome;
        std::vector<std::string> rows;
    };

    /** The files classified by `numWorkers` threads at once (each with its own analyzer, a
        session of the model and a front end), each outcome taken by the calling thread in file
        order, as soon as its turn comes.
        Threading contract
        - Worker threads (started by the constructor): classify the next file not taken by another
          (nextFile_, atomic), then store its outcome under mutex_ and wake the caller.
        - The calling thread: take(), in file order, waits under mutex_ for the file's outcome; the
          destructor joins the workers (each ends when no file is left).
        - Shared: outcomes_ (under mutex_), nextFile_; the files, model and options are read only. */
    class ClassifyJobs
    {
    public:
        ClassifyJobs (const std::vector<std::string>& files, const std::shared_ptr<const engine::Model>& model, const ClassifyOptions& options,
                      std::size_t numWorkers)
            : files_ (files), labels_ (runtime::classLabels (*model)), outcomes_ (files.size())
        {
            for (std::size_t w = 0; w < numWorkers; ++w)
                workers_.emplace_back ([this, &model, &options] {
                    timeline::ReusedAnalyzer analyzers; // a job's files reuse one analyzer
                    for (auto i = nextFile_++; i < files_.size(); i = nextFile_++)
                    {
                        ClassifiedFile file { classifyFile (files_[i], model, options, analyzers), {} };
                        file.rows = rowsOf (file.outcome, options, files_[i], labels_);
                        file.outcome.windows = {}; // in the rows now
                        const std::lock_guard<std::mutex> lock (mutex_);
                        outcomes_[i] = std::move (file);
                        ready_.notify_all();
                    }
                });
        }

        ~ClassifyJobs()
        {
            for (auto& worker : workers_)
                worker.join();
        }

        /** Waits for file i's outcome (files in order: each once) and hands it over. */
        ClassifiedFile take (std::size_t i)
        {
            std::unique_lock<std::mutex> lock (mutex_);
            ready_.wait (lock, [&] { return outcomes_[i].has_value(); });
            auto outcome = std::move (*outcomes_[i]);
            outcomes_[i].reset();
            return outcome;
        }

    private:
        const std::vector<std::string>& files_;
        const std::vector<std::string> labels_;
        std::vector<std::optional<ClassifiedFile>> outcomes_;
        std::mutex mutex_;
        std::condition_variable ready_;
        std::atomic<std::size_t> nextFile_ { 0 };
        std::vector<std::thread> workers_;
    };

    /** As many jobs as files, and as the memory budget allows: each holds an analyzer. */
    std::size_t numJobs (const engine::Model& model, const ClassifyOptions& options, std::size_t numFiles)
    {
        const auto perJob = std::max<std::size_t> (model.info().activationBytes + model.info().frontendBytes, 1);
        // The load claimed the weights and one job's share already.
        const auto maxMemory = options.limits.limits().maxMemoryBytes;
        const auto loaded = std::min (model.info().loadBytes, maxMemory);
        const auto affordable = std::max<std::size_t> ((maxMemory - loaded) / perJob + 1, 1);
        return std::min ({ static_cast<std::size_t> (options.jobs), std::max<std::size_t> (numFiles, 1), affordable });
    }

    /** The model, checked against the options that depend on it (UsageError if they do not fit);
        what classify says about them goes to stderr. */
    std::shared_ptr<const engine::Model> loadFittedModel (ClassifyOptions& options)
    {
        const auto model = loadClassifyModel (options);
        for (const auto& message : fitOptionsToModel (options, *model))
            std::cerr << message << "\n";
        return model;
    }

    /** How the files went, for the exit status and the totals. */
    struct Tally
    {
        bool failed = false;
        std::size_t numClassified = 0, numWarned = 0, numFailed = 0; // the warned are classified too
    };

    /** Classifies the files, writing each file's messages to stderr and its rows (or export) to
        `output` in file order. */
    void classifyInOrder (const std::vector<std::string>& files, const std::shared_ptr<const engine::Model>& model, const ClassifyOptions& options,
                          ClassifyOutput& output, std::ostream& out, Tally& tally)
    {
        ClassifyJobs jobs (files, model, options, numJobs (*model, options, files.size()));
        const bool progress = isatty (STDERR_FILENO) != 0 && ! files.empty();
        for (std::size_t i = 0; i < files.size(); ++i)
        {
            auto file = jobs.take (i);
            const auto& outcome = file.outcome;
            if (progress)
                std::fprintf (stderr, "\r\033[K");
            for (const auto& message : outcome.messages)
                std::cerr << engine::printable (message) << "\n"; // names from files: never raw escapes
            tally.failed = tally.failed || outcome.failed;
            ++(outcome.failed ? tally.numFailed : tally.numClassified);
            tally.numWarned += outcome.warned && ! outcome.failed ? 1 : 0;
            writeOutcome (output, files[i], std::move (file.rows), outcome);
            out.flush();
            if (progress)
                drawProgress (i + 1, files.size());
        }
    }

    int classify (ClassifyOptions options)
    {
        checkClassifyUsage (options);
        const auto model = loadFittedModel (options);
        std::vector<PathProblem> errors, skipped;
        const auto files = collectFiles (options.paths, errors, skipped);
        if (options.exporting() && files.size() > 1)
            throw UsageError ("--format audacity, reaper and midi take one audio file at a time, not " + std::to_string (files.size()));
        for (const auto& item : skipped)
            std::cerr << engine::printable ("skipped: " + item.path + ": " + item.message) << "\n";
        for (const auto& error : errors)
            std::cerr << engine::printable ("error: " + error.path + ": " + error.message) << "\n";
        std::vector<std::string> shard;
        for (std::size_t i = 0; i < files.size(); ++i)
            if (i % options.shardCount == options.shardIndex)
                shard.push_back (files[i]);

        std::ofstream file;
        if (! options.output.empty())
        {
            file.open (options.output, std::ios::binary | std::ios::trunc);
            if (! file)
            {
                std::cerr << "error: " << options.output << ": cannot write this file\n";
                return 1;
            }
        }
        std::ostream& out = options.output.empty() ? std::cout : file;
        const auto labels = runtime::classLabels (*model);
        ClassifyOutput output (out, options, labels, embeddingSizeOf (*model));
        for (const auto& error : errors)
            output.errorRow (error.path, error.message);
        Tally tally { ! errors.empty() || (files.empty() && ! options.paths.empty()), 0, 0, errors.size() };
        classifyInOrder (shard, model, options, output, out, tally);
        output.finish();
        out.flush();
        std::cerr << "total: " << tally.numClassified << " classified (" << tally.numWarned << " with warnings), " << tally.numFailed << " failed, "
                  << skipped.size() << " skipped\n";
        if (! out)
        {
            std::cerr << "error: " << (options.output.empty() ? std::string ("stdout") : options.output) << ": writing failed\n";
            return 1;
        }
        return tally.failed ? 1 : 0;
    }
} // namespace

CommandRun addClassifyCommand (CLI::App& app)
{
    auto options = std::make_shared<ClassifyOptions>();
    auto* command = addCommand (app, "classify", "classify audio files and folders, window by window", kDescription, kFooter);
    addClassifyOptions (*command, *options);
    return [options] {
        completeClassifyOptions (*options);
        return classify (*options);
    };
}

} // namespace sonotype::cli
