// One file's classification as `sonotype classify` does it, written once for the command line and
// for Python's sonotype.engine: the options fitted to the model, one file analysed into its
// results (windows, a summary, segments or hits, as numbers), its messages and its error, and the
// rows classify writes for those results.
// One thread per call; the model is shared read only, the analyzer is the caller's.
#pragma once

#include "cli/ClassifyOptions.h"
#include "cli/ClassifyOutput.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sonotype::cli
{

/** One window's result, as classify's window row gives it. */
struct WindowResultRow
{
    double startSeconds = 0.0, endSeconds = 0.0;
    std::vector<float> probabilities; // per class, in model order (smoothed with --smooth)
    bool padded = false, tail = false;
    std::vector<float> embedding; // --embeddings: the window's (else empty)
};

/** A file's summary (--summary), as its row gives it. */
struct FileSummary
{
    timeline::FileShares shares;
    int64_t numWindows = 0;
    std::vector<double> meanProbabilities; // per class, over the windows
};

/** What one file gave: the results the options ask for (window rows: windows; --summary: summary;
    --segments and the export formats: segments; --onsets: hits), the messages for stderr and, for
    a file that counts as not classified, why. */
struct FileOutcome
{
    std::vector<WindowResultRow> windows;
    std::optional<FileSummary> summary;
    std::vector<runtime::Segment> segments;
    std::vector<timeline::Hit> hits;
    std::vector<std::string> messages; // "warning: FILE: ..." and "error: FILE: ..." lines
    std::string error;                 // why the file was not classified (its error row's)
    bool failed = false, warned = false;
};

/** The model classify runs: the options' --model, else the built-in model (budgets applied). */
std::shared_ptr<const engine::Model> loadClassifyModel (const ClassifyOptions& options);

/** Checks the options against the model (UsageError if they do not fit, e.g. --embeddings for a
    model without an embedding, a class it lacks in --classes) and completes what depends on it
    (the onset window a model taught from hits learned them from, unless one was given; the chosen
    notes). Returns the lines classify writes to stderr about them ("warning: ...", "notes: ..."). */
std::vector<std::string> fitOptionsToModel (ClassifyOptions& options, const engine::Model& model);

/** Classifies one file as the options say (fitted to the model by fitOptionsToModel), reusing the
    caller's analyzer. Never throws for the file: what goes wrong is the outcome's error. */
FileOutcome classifyFile (const std::string& path, const std::shared_ptr<const engine::Model>& model, const ClassifyOptions& options,
                          timeline::ReusedAnalyzer& analyzers);

/** The rows classify writes for the outcome's results (CSV lines or JSON objects; none in an
    export format), without the error column ClassifyOutput adds. */
std::vector<std::string> rowsOf (const FileOutcome& outcome, const ClassifyOptions& options, const std::string& path,
                                 const std::vector<std::string>& labels);

/** One file's rows (from rowsOf), then its error row if it was not classified, or its export in an
    export format, as classify writes them. */
void writeOutcome (ClassifyOutput& output, const std::string& path, std::vector<std::string> rows, const FileOutcome& outcome);

/** The size of the model's embedding (0 without one): classify's embedding columns. */
int64_t embeddingSizeOf (const engine::Model& model);

} // namespace sonotype::cli
