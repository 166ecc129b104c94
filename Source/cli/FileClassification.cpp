#include "cli/FileClassification.h"

#include "engine/file/ModelFileKeys.h"
#include "engine/file/Text.h"
#include "runtime/LiveHitClassifier.h"
#include "runtime/WindowAnalyzer.h"
#include "timeline/AnalysisWarnings.h"

namespace sonotype::cli
{
namespace
{
    void addWarnings (FileOutcome& outcome, const std::string& path, const std::vector<std::string>& warnings)
    {
        for (const auto& warning : warnings)
            outcome.messages.push_back ("warning: " + path + ": " + warning);
        outcome.warned = outcome.warned || ! warnings.empty();
    }

    /** The file counts as not classified: its results stand, and its error row says why. */
    void fail (FileOutcome& outcome, const std::string& error)
    {
        outcome.error = error;
        outcome.failed = true;
    }

    void addError (FileOutcome& outcome, const std::string& path, const std::exception& e)
    {
        outcome.messages.push_back ("error: " + path + ": " + e.what());
        fail (outcome, e.what());
    }

    FileOutcome classifyHits (const std::string& path, const std::shared_ptr<const engine::Model>& model, const ClassifyOptions& options)
    {
        FileOutcome outcome;
        try
        {
            auto settings = options.hits;
            settings.classes = options.classes;
            auto analysis = timeline::analyzeHits (path, model, settings);
            addWarnings (outcome, path, timeline::warningsOf (analysis));
            if (analysis.numNonFiniteHits > 0)
                fail (outcome, "the model's output was not finite (NaN or infinite) for " + std::to_string (analysis.numNonFiniteHits) + " hits");
            outcome.hits = std::move (analysis.hits);
        }
        catch (const std::exception& e)
        {
            addError (outcome, path, e);
        }
        return outcome;
    }

    std::string modelName (const ClassifyOptions& options, const char* builtinName)
    {
        return options.model.empty() ? std::string (builtinName) : engine::printable (options.model);
    }
} // namespace

std::shared_ptr<const engine::Model> loadClassifyModel (const ClassifyOptions& options)
{
    return loadModelOrBuiltin (options.model, options.limits);
}

std::vector<std::string> fitOptionsToModel (ClassifyOptions& options, const engine::Model& model)
{
    std::vector<std::string> messages;
    runtime::frontendOf (model); // a model without a front end is refused now, before any file is read
    if (options.embeddings && ! model.info().embeddingOutput.has_value())
        throw UsageError ("--embeddings: " + modelName (options, "the built-in model")
                          + " has no embedding output (export it with export_model(..., embedding=...))");
    if (options.onsets && options.hits.live && runtime::liveHitClassifierFor (model) == nullptr)
        throw UsageError ("--response live: " + modelName (options, "the built-in model")
                          + " has no live hit kit: teach one from hits (sonotype learn --hits) or use --response exact");
    if (options.onsets && ! options.onsetWindowGiven)
        options.hits.clipSeconds = runtime::hitClipSeconds (model, options.hits.clipSeconds); // a model taught from hits: the clip it learned them from
    // A model taught from whole files names hits from embeddings of whole windows, which a hit's
    // clip is not: on one-shots it named 74% of a kit's hits right where taught as hits it named 91%.
    if (options.onsets && model.info().metadata.count (engine::keys::taught) != 0 && runtime::hitClipSeconds (model, 0.0) == 0.0)
        messages.push_back ("warning: " + modelName (options, "the model")
                            + " was taught from whole files, not from hits: it may name hits wrongly (teach it with sonotype learn --hits)");
    const auto labels = runtime::classLabels (model);
    try
    {
        runtime::classesInPlay (labels, options.classes);
    }
    catch (const std::invalid_argument& e)
    {
        throw UsageError (std::string ("--classes: ") + e.what());
    }
    try
    {
        options.chosenNotes = timeline::withChosenNotes (model.info().classNotes, options.noteMap, labels);
    }
    catch (const std::invalid_argument& e)
    {
        throw UsageError (std::string ("--note-map: ") + e.what());
    }
    if (options.format == timeline::ExportFormat::midi)
    {
        // Which note is which class, as the file's text events say too.
        std::string line;
        const char* separator = "notes: ";
        for (const auto& note : timeline::describeNoteMap (labels, timeline::noteMap (labels, options.chosenNotes, options.baseNote)))
        {
            line += separator + engine::printable (note);
            separator = "; ";
        }
        messages.push_back (line);
    }
    runtime::WindowAnalyzer::checkSettings (options.analysis.hopSeconds, options.analysis.smoothingSeconds);
    return messages;
}

FileOutcome classifyFile (const std::string& path, const std::shared_ptr<const engine::Model>& model, const ClassifyOptions& options,
                          timeline::ReusedAnalyzer& analyzers)
{
    if (options.onsets)
        return classifyHits (path, model, options);
    FileOutcome outcome;
    std::string truncationWarning; // said even if the analysis then fails
    try
    {
        auto settings = options.analysis;
        settings.classes = options.classes;
        timeline::FileAnalysisCallbacks callbacks;
        callbacks.onOpen = [&] (double, const std::string& warning) { truncationWarning = warning; };
        if (! options.segments && ! options.summary)
            callbacks.onWindow = [&] (const runtime::WindowResult& result, timeline::WindowFlags flags) {
                outcome.windows.push_back ({ result.startSeconds, result.endSeconds, result.probabilities, flags.padded, flags.tail,
                                             options.embeddings ? std::vector<float> (flags.embedding.begin(), flags.embedding.end())
                                                                : std::vector<float>() });
            };
        auto analysis = timeline::analyzeFile (path, model, settings, callbacks, analyzers);
        truncationWarning.clear(); // said now, with the others
        addWarnings (outcome, path, timeline::warningsOf (analysis));
        if (analysis.numNonFiniteWindows > 0)
            fail (outcome, "the model's output was not finite (NaN or infinite) in " + std::to_string (analysis.numNonFiniteWindows) + " windows");
        if (options.summary && analysis.numWindows > 0)
            outcome.summary = FileSummary { timeline::fileShares (analysis.segments, runtime::classLabels (*model), analysis.durationSeconds),
                                            analysis.numWindows, std::move (analysis.meanProbabilities) };
        if (options.segments)
            outcome.segments = std::move (analysis.segments);
    }
    catch (const std::exception& e)
    {
        if (! truncationWarning.empty())
            addWarnings (outcome, path, { truncationWarning });
        addError (outcome, path, e);
    }
    return outcome;
}

std::vector<std::string> rowsOf (const FileOutcome& outcome, const ClassifyOptions& options, const std::string& path,
                                 const std::vector<std::string>& labels)
{
    std::vector<std::string> rows;
    if (options.exporting())
        return rows;
    for (const auto& window : outcome.windows)
        rows.push_back (windowRow (options, path, labels, window.startSeconds, window.endSeconds, window.probabilities,
                                   { window.padded, window.tail, window.embedding }));
    if (outcome.summary.has_value())
        rows.push_back (summaryRow (options, path, labels, outcome.summary->shares, outcome.summary->numWindows, outcome.summary->meanProbabilities));
    for (const auto& segment : outcome.segments)
        rows.push_back (segmentRow (options, path, labels, segment));
    for (const auto& hit : outcome.hits)
        rows.push_back (hitRow (options, path, labels, hit));
    return rows;
}

void writeOutcome (ClassifyOutput& output, const std::string& path, std::vector<std::string> rows, const FileOutcome& outcome)
{
    for (auto& row : rows)
        output.row (std::move (row));
    if (! outcome.error.empty())
        output.errorRow (path, outcome.error);
    if (output.exporting() && ! outcome.failed)
        output.fileExport (path, outcome.segments, outcome.hits);
}

int64_t embeddingSizeOf (const engine::Model& model)
{
    const auto& embeddingOutput = model.info().embeddingOutput;
    return embeddingOutput.has_value() ? model.info().outputShapes[static_cast<std::size_t> (*embeddingOutput)].numElements() : int64_t { 0 };
}

} // namespace sonotype::cli
