// `sonotype classify`: classifies audio files and folders, window by window, with the same analyzer
// the live runtime runs. Results go to stdout (CSV or JSON); messages and progress to stderr.
#include "cli/AudioPaths.h"
#include "cli/Commands.h"
#include "cli/ModelLoading.h"
#include "engine/file/Text.h"
#include "formats/AudioFileReader.h"
#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"
#include "timeline/FileAnalysis.h"
#include "timeline/HitAnalysis.h"
#include "timeline/TimelineExport.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <unistd.h>

namespace sonotype::cli
{
namespace
{
    constexpr const char* kDescription = R"(Classifies audio files (WAV, AIFF, FLAC, Ogg Vorbis, MP3, Opus) and folders (searched recursively),
one row per analysis window: window k covers [k * hop, k * hop + window) seconds. A file shorter
than one window is zero-padded to one window.

--classes A,B,C says which of the model's classes are in play: the others get probability 0 and
each window's answer is renormalised over these (a softmax over their logits alone), so a piano that
the full model might call bass is named among the instruments actually there.

--onsets classifies each hit instead of each window (drum-to-MIDI, one-shots): an onset detector
(spectral flux, adaptive threshold: --onset-threshold, --onset-gap, --onset-silence) finds each hit,
and each hit is classified from the first --onset-window seconds after it (zero-padded to the model's
window, as a short file is). One row per hit: file,time_s,label,confidence,level_db (the peak in the
50 ms after the onset), then the probabilities; --format audacity gives point labels, reaper
markers, midi one note per hit (velocity from the level). --hop and --smooth do not apply.

--segments merges the windows into segments, stretches where one class is detected, with the
plugin's rules: a class starts when its probability reaches --threshold for 2 windows in a row, and
stops when it falls 10 points below it or another class leads it by more than 10 points. A segment
runs from the first window that confirmed its class to the last window in which it was active; where
no class is detected there is no segment. --format audacity, reaper and midi write segments for one
file at a time (a folder with one audio file counts as one file).

--to-end classifies each file to its true end: a file shorter than one window is zero-padded to one
window that ends at the file's end (column padded: 1), and the tail after the last full window gets
one more window, aligned to the file's end (column tail: 1; with --smooth, smoothed with the windows
before it); CSV rows get the columns padded,tail
after the probabilities, JSON rows the fields padded and tail, and --summary rows duration_s and
windows (the number of windows). Segments then reach the file's end too.

A folder is searched recursively; each file skipped (an unsupported extension, not a regular file)
is named on stderr, and after a folder scan stderr gets the totals (classified, skipped, failed).
--error-rows adds a row for each file or folder that could not be classified: CSV rows get an error
column last (empty for the files classified), JSON objects {"file": ..., "error": ...}.

--embeddings adds the model's embedding of each window (the numbers `sonotype learn` averages into
an example, computed in the same run as the window's scores; the model needs an embedding output):
CSV columns embedding_0, embedding_1, ... after the others (before --error-rows' error column),
JSON rows an "embedding" array. For studying teaching rules on your own files; window rows only.)";

    constexpr const char* kFooter = R"(CSV columns: file,start_s,end_s,label,confidence, then one probability per class in model order
(--summary: file,label,confidence, then the mean probabilities; --segments: file,start_s,end_s,
label,confidence, the confidence being the class's mean probability over the segment).
Formats: csv, json (one object per row), audacity (a label track: start, end, label, tab-separated),
reaper (a region list: #,Name,Start,End,Length), midi (a Standard MIDI File, one note per segment:
--base-note + class index, velocity from the confidence; needs --output or a stdout that is not a
terminal).
Exit codes: 0 every file was classified (warnings, such as NaN samples replaced by 0 or a truncated
file classified as far as it goes, are on stderr); 1 a file or folder could not be classified (the
other files are still classified; the model's output not finite counts as not classified); 2 bad
usage.)";

    enum class Format
    {
        csv,
        json,
        audacity,
        reaper,
        midi
    };

    std::optional<Format> parseFormat (const std::string& text)
    {
        static const std::pair<const char*, Format> names[] = { { "csv", Format::csv },
                                                                { "json", Format::json },
                                                                { "audacity", Format::audacity },
                                                                { "reaper", Format::reaper },
                                                                { "midi", Format::midi } };
        for (const auto& [name, format] : names)
            if (text == name)
                return format;
        return std::nullopt;
    }

    struct Options
    {
        std::string model;
        double hopSeconds = 0.25, smoothingSeconds = 0.0;
        bool json = false, summary = false, segments = false, toEnd = false, errorRows = false;
        bool embeddings = false; // --embeddings: each window row gets the model's embedding
        Format format = Format::csv;
        double thresholdPercent = 50.0; // the plugin's "Detection threshold" default
        int baseNote = 36;              // the plugin's "MIDI base note" default
        std::string output;
        unsigned jobs = std::max (1u, std::thread::hardware_concurrency());
        std::size_t shardIndex = 0, shardCount = 1;
        std::vector<std::string> paths;
        std::vector<std::string> classes; // --classes: in play (empty: all)
        bool onsets = false;              // --onsets: one classification per hit
        timeline::HitAnalysisSettings hits;
        CLI::Option* onsetWindow = nullptr; // given or not: a taught model's own window is the default
        ModelLimitOptions limits;
    };

    struct FileOutcome
    {
        std::vector<std::string> rows;     // formatted rows (CSV lines, or JSON objects)
        std::vector<std::string> messages; // for stderr
        std::vector<runtime::Segment> segments; // --segments
        std::vector<timeline::Hit> hits;        // --onsets
        std::string error;                      // why the file was not classified
        bool failed = false;
    };

    /** Audacity, REAPER and MIDI files hold the segments of one file. */
    bool isExport (Format format) noexcept
    {
        return format == Format::audacity || format == Format::reaper || format == Format::midi;
    }

    runtime::DetectorSettings detectorSettings (const Options& options)
    {
        runtime::DetectorSettings settings; // hysteresis and confirmation as the plugin's
        settings.threshold = static_cast<float> (options.thresholdPercent / 100.0);
        return settings;
    }

    /** --classes: comma-separated labels, spaces around each trimmed, empty ones left out. */
    std::vector<std::string> splitClasses (const std::string& text)
    {
        std::vector<std::string> classes;
        std::size_t start = 0;
        while (start <= text.size())
        {
            const auto comma = std::min (text.find (',', start), text.size());
            auto label = text.substr (start, comma - start);
            label.erase (0, label.find_first_not_of (' '));
            label.erase (label.find_last_not_of (' ') + 1);
            if (! label.empty())
                classes.push_back (label);
            start = comma + 1;
        }
        return classes;
    }

    /** --shard I/N: I and N decimal digits (fewer than 10), 0 <= I < N; the message if not. */
    std::string parseShard (const std::string& text, std::size_t& index, std::size_t& count)
    {
        const auto slash = text.find ('/');
        const auto digits = [] (const std::string& s) { return ! s.empty() && s.size() < 10 && s.find_first_not_of ("0123456789") == std::string::npos; };
        if (slash == std::string::npos || ! digits (text.substr (0, slash)) || ! digits (text.substr (slash + 1)))
            return "must be I/N, e.g. 0/4, not '" + text + "'";
        index = std::stoul (text.substr (0, slash));
        count = std::stoul (text.substr (slash + 1));
        if (count < 1 || index >= count)
            return "I/N needs 0 <= I < N, not '" + text + "'";
        return {};
    }

    /** `text` as a JSON string. Malformed UTF-8 (a Latin-1 file name, say) becomes U+FFFD, so
        that a row is always valid JSON. */
    std::string jsonString (const std::string& text)
    {
        return nlohmann::json (text).dump (-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }

    std::string number (double value, int decimals)
    {
        return timeline::csvNumber (value, decimals);
    }

    std::string jsonNumber (double value, int decimals)
    {
        return std::isfinite (value) ? number (value, decimals) : "null"; // JSON has no NaN
    }

    /** An embedding's number as the float it is (9 significant digits read back to the same float). */
    std::string exactNumber (float value, bool json)
    {
        if (! std::isfinite (value))
            return json ? "null" : "nan";
        char text[32];
        std::snprintf (text, sizeof text, "%.9g", static_cast<double> (value));
        return text;
    }

    /** What --to-end adds to a row: a window's padded and tail flags, or a summary's duration and windows. */
    struct RowEnd
    {
        bool padded = false, tail = false;
        double durationSeconds = 0.0;
        int64_t numWindows = 0;
        std::span<const float> embedding {}; // --embeddings: the window's
    };

    std::string formatRow (const Options& options, const std::string& file, const std::vector<std::string>& labels, const double* times,
                           const std::vector<float>& probabilities, const RowEnd& end = {})
    {
        const auto top = static_cast<std::size_t> (std::max_element (probabilities.begin(), probabilities.end()) - probabilities.begin());
        std::string row;
        if (options.json)
        {
            row = "{\"file\":" + jsonString (file);
            if (times != nullptr)
                row += ",\"start_s\":" + jsonNumber (times[0], 3) + ",\"end_s\":" + jsonNumber (times[1], 3);
            row += ",\"label\":" + jsonString (labels[top]) + ",\"confidence\":" + jsonNumber (probabilities[top], 6) + ",\"probabilities\":{";
            for (std::size_t c = 0; c < probabilities.size(); ++c)
                row += (c ? "," : "") + jsonString (labels[c]) + ":" + jsonNumber (probabilities[c], 6);
            row += "}";
            if (options.toEnd && times != nullptr)
                row += std::string (",\"padded\":") + (end.padded ? "true" : "false") + ",\"tail\":" + (end.tail ? "true" : "false");
            else if (options.toEnd)
                row += ",\"duration_s\":" + jsonNumber (end.durationSeconds, 3) + ",\"windows\":" + std::to_string (end.numWindows);
            if (options.embeddings && times != nullptr)
            {
                row += ",\"embedding\":[";
                for (std::size_t i = 0; i < end.embedding.size(); ++i)
                    row += (i ? "," : "") + exactNumber (end.embedding[i], true);
                row += "]";
            }
            return row + "}";
        }
        row = timeline::csvField (file);
        if (times != nullptr)
            row += "," + number (times[0], 3) + "," + number (times[1], 3);
        row += "," + timeline::csvField (labels[top]) + "," + number (probabilities[top], 6);
        for (float p : probabilities)
            row += "," + number (p, 6);
        if (options.toEnd && times != nullptr)
            row += std::string (end.padded ? ",1" : ",0") + (end.tail ? ",1" : ",0");
        else if (options.toEnd)
            row += "," + number (end.durationSeconds, 3) + "," + std::to_string (end.numWindows);
        if (options.embeddings && times != nullptr)
            for (const float e : end.embedding)
                row += "," + exactNumber (e, false);
        return row + "\n";
    }

    std::string formatSegment (const Options& options, const std::string& file, const std::vector<std::string>& labels,
                               const runtime::Segment& segment)
    {
        const auto& label = labels[static_cast<std::size_t> (segment.classIndex)];
        if (options.json)
            return "{\"file\":" + jsonString (file) + ",\"start_s\":" + jsonNumber (segment.startSeconds, 3) + ",\"end_s\":"
                   + jsonNumber (segment.endSeconds, 3) + ",\"label\":" + jsonString (label) + ",\"confidence\":"
                   + jsonNumber (segment.confidence, 6) + "}";
        return timeline::segmentCsvRow (file, segment, labels);
    }

    std::string formatHit (const Options& options, const std::string& file, const std::vector<std::string>& labels, const timeline::Hit& hit)
    {
        const auto& label = labels[static_cast<std::size_t> (hit.classIndex)];
        if (options.json)
        {
            std::string row = "{\"file\":" + jsonString (file) + ",\"time_s\":" + jsonNumber (hit.seconds, 3) + ",\"label\":" + jsonString (label)
                              + ",\"confidence\":" + jsonNumber (hit.confidence, 6) + ",\"level_db\":" + jsonNumber (hit.levelDb, 1)
                              + ",\"probabilities\":{";
            for (std::size_t c = 0; c < hit.probabilities.size(); ++c)
                row += (c ? "," : "") + jsonString (labels[c]) + ":" + jsonNumber (hit.probabilities[c], 6);
            return row + "}}";
        }
        std::string row = timeline::csvField (file) + "," + number (hit.seconds, 3) + "," + timeline::csvField (label) + "," + number (hit.confidence, 6)
                          + "," + number (hit.levelDb, 1);
        for (float p : hit.probabilities)
            row += "," + number (p, 6);
        return row + "\n";
    }

    FileOutcome classifyHits (const std::string& path, const std::shared_ptr<const engine::Model>& model, const Options& options)
    {
        FileOutcome outcome;
        try
        {
            auto settings = options.hits;
            settings.classes = options.classes;
            auto analysis = timeline::analyzeHits (path, model, settings);
            if (! analysis.truncationWarning.empty())
                outcome.messages.push_back ("warning: " + path + ": " + analysis.truncationWarning);
            if (analysis.numNonFiniteSamples > 0)
                outcome.messages.push_back ("warning: " + path + ": " + std::to_string (analysis.numNonFiniteSamples)
                                            + " NaN or infinite samples were replaced by 0");
            if (analysis.numNonFiniteHits > 0)
            {
                outcome.messages.push_back ("warning: " + path + ": the model's output was not finite (NaN or infinite) for "
                                            + std::to_string (analysis.numNonFiniteHits) + " of " + std::to_string (analysis.hits.size())
                                            + " hits");
                outcome.failed = true;
            }
            if (! isExport (options.format))
                for (const auto& hit : analysis.hits)
                    outcome.rows.push_back (formatHit (options, path, analysis.labels, hit));
            outcome.hits = std::move (analysis.hits);
        }
        catch (const std::exception& e)
        {
            outcome.messages.push_back ("error: " + path + ": " + e.what());
            outcome.error = e.what();
            outcome.failed = true;
        }
        return outcome;
    }

    FileOutcome classifyFile (const std::string& path, const std::shared_ptr<const engine::Model>& model, const Options& options,
                              timeline::FileAnalyzerCache& analyzers)
    {
        if (options.onsets)
            return classifyHits (path, model, options);
        FileOutcome outcome;
        try
        {
            timeline::FileAnalysisSettings settings;
            settings.hopSeconds = options.hopSeconds;
            settings.smoothingSeconds = options.smoothingSeconds;
            settings.toEnd = options.toEnd;
            settings.detector = detectorSettings (options);
            settings.classes = options.classes;
            const auto labels = runtime::classLabels (*model);
            std::vector<std::string> rows;
            timeline::FileAnalysisCallbacks callbacks;
            callbacks.onOpen = [&] (double, const std::string& truncationWarning) {
                if (! truncationWarning.empty()) // said even if the analysis then fails
                    outcome.messages.push_back ("warning: " + path + ": " + truncationWarning);
            };
            if (! options.segments && ! options.summary)
                callbacks.onWindow = [&] (const runtime::WindowResult& result, timeline::WindowFlags flags) {
                    const double times[] = { result.startSeconds, result.endSeconds };
                    rows.push_back (formatRow (options, path, labels, times, result.probabilities, { flags.padded, flags.tail, 0.0, 0, flags.embedding }));
                };
            const auto analysis = timeline::analyzeFile (path, model, settings, callbacks, analyzers);
            if (analysis.numNonFiniteSamples > 0)
                outcome.messages.push_back ("warning: " + path + ": " + std::to_string (analysis.numNonFiniteSamples)
                                            + " NaN or infinite samples were replaced by 0");
            if (analysis.numNonFiniteWindows > 0)
            {
                outcome.messages.push_back ("warning: " + path + ": the model's output was not finite (NaN or infinite) in "
                                            + std::to_string (analysis.numNonFiniteWindows) + " of " + std::to_string (analysis.numWindows)
                                            + " windows");
                outcome.failed = true;
            }
            if (options.summary && analysis.numWindows > 0)
            {
                const std::vector<float> means (analysis.meanProbabilities.begin(), analysis.meanProbabilities.end());
                rows.push_back (formatRow (options, path, labels, nullptr, means, { false, false, analysis.durationSeconds, analysis.numWindows }));
            }
            if (options.segments)
            {
                outcome.segments = analysis.segments;
                if (! isExport (options.format))
                    for (const auto& segment : outcome.segments)
                        rows.push_back (formatSegment (options, path, labels, segment));
            }
            outcome.rows = std::move (rows);
        }
        catch (const std::exception& e)
        {
            outcome.messages.push_back ("error: " + path + ": " + e.what());
            outcome.error = e.what();
            outcome.failed = true;
        }
        return outcome;
    }

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
} // namespace

namespace
{
    int classify (Options options);
} // namespace

CommandRun addClassifyCommand (CLI::App& app)
{
    auto options = std::make_shared<Options>();
    auto* command = addCommand (app, "classify", "classify audio files and folders, window by window", kDescription, kFooter);
    command->add_option ("--model", options->model, "model file (default: the built-in model)")->type_name ("FILE");
    addNumberOption (*command, "--hop", options->hopSeconds, 0.0, 3600.0, true, "a number of seconds", "SECONDS",
                     "time between windows (default 0.25)");
    addNumberOption (*command, "--smooth", options->smoothingSeconds, 0.0, 3600.0, false, "a number of seconds", "SECONDS",
                     "exponential smoothing time constant of the probabilities (default 0: off)");
    command
        ->add_option_function<std::string> (
            "--format",
            [options] (const std::string& text) {
                options->format = parseFormat (text).value_or (Format::csv);
                options->json = options->format == Format::json;
            },
            "csv (default), json, or segments for other programs: audacity (label track), reaper (region list), midi "
            "(Standard MIDI File); audacity, reaper and midi imply --segments")
        ->type_name ("csv|json|audacity|reaper|midi")
        ->check (CLI::Validator (
            [] (std::string& text) {
                return parseFormat (text) ? std::string() : "must be csv, json, audacity, reaper or midi, not '" + text + "'";
            },
            "", "format"));
    command
        ->add_option_function<std::string> (
            "--classes",
            [options] (const std::string& text) {
                options->classes = splitClasses (text);
            },
            "only these classes (comma-separated labels): the others get 0, the answer is renormalised over these")
        ->type_name ("A,B,...")
        ->check (CLI::Validator (
            [] (std::string& text) { return splitClasses (text).empty() ? std::string ("must name at least one class") : std::string(); }, "",
            "classes"));
    command->add_flag ("--onsets", options->onsets, "one row per hit (an onset detector finds them) instead of per window");
    addNumberOption (*command, "--onset-threshold", options->hits.onsets.threshold, 0.0, 100.0, false, "a number", "X",
                     "--onsets: how far a hit's spectral flux must rise above the local mean, in units of its long-term level (default 1.2; "
                     "lower finds quieter hits)");
    addNumberOption (*command, "--onset-gap", options->hits.onsets.minGapSeconds, 0.0, 10.0, false, "a number of seconds", "SECONDS",
                     "--onsets: two onsets closer than this are one (default 0.05)");
    addNumberOption (*command, "--onset-silence", options->hits.onsets.silenceDb, -200.0, 0.0, false, "a level in dBFS", "DB",
                     "--onsets: a hit quieter than this (RMS) is not one (default -50)");
    options->onsetWindow = addNumberOption (*command, "--onset-window", options->hits.clipSeconds, 0.01, 60.0, false, "a number of seconds", "SECONDS",
                                            "--onsets: the seconds after an onset a hit is classified from (default 0.25, or the window a "
                                            "model taught from hits was taught with)");
    command->add_flag ("--summary", options->summary, "one row per file: the mean probability of each class over its windows");
    command->add_flag ("--to-end", options->toEnd,
                       "classify to each file's true end: a short file's window ends there (padded: 1), the tail after the last "
                       "full window gets a window aligned to the end (tail: 1); --summary: the duration and number of windows");
    command->add_flag ("--embeddings", options->embeddings,
                       "csv, json: each window row gets the model's embedding of the window (CSV: columns embedding_0, ...); "
                       "the model needs an embedding output");
    command->add_flag ("--error-rows", options->errorRows,
                       "csv, json: a file or folder that could not be classified is a row too, with its error (CSV: an error column last)");
    command->add_flag ("--segments", options->segments, "one row per segment (a stretch where one class is detected) instead of per window");
    addNumberOption (*command, "--threshold", options->thresholdPercent, 0.0, 100.0, false, "a percentage", "PERCENT",
                     "segments: the probability at which a class is detected, as the plugin's Detection threshold (default 50)");
    addWholeOption (*command, "--base-note", options->baseNote, 0, 127, "NOTE", "--format midi: the note of class 0, as the plugin's (default 36)");
    command->add_option ("--output", options->output, "write the results to FILE instead of stdout")->type_name ("FILE");
    addWholeOption (*command, "--jobs", options->jobs, 1u, 1024u, "N", "files classified in parallel (default: the number of cores)");
    command
        ->add_option_function<std::string> (
            "--shard", [options] (const std::string& text) { parseShard (text, options->shardIndex, options->shardCount); },
            "only the I-th (0-based) of N slices of the sorted file list")
        ->type_name ("I/N")
        ->check (CLI::Validator (
            [] (std::string& text) {
                std::size_t index = 0, count = 0;
                return parseShard (text, index, count);
            },
            "", "shard"));
    command->add_option ("PATH", options->paths, "audio files and folders")->option_text ("PATH...");
    addModelLimitOptions (*command, options->limits);
    return [options] {
        options->segments = options->segments || (isExport (options->format) && ! options->onsets); // audacity, reaper, midi: segments (or hits)
        return classify (*options);
    };
}

namespace
{
int classify (Options options)
{
    if (options.paths.empty())
        throw UsageError ("classify needs at least one file or folder (see sonotype classify --help)");
    const bool exporting = isExport (options.format);
    if (options.summary && (options.segments || exporting))
        throw UsageError ("--summary and segments (--segments, --format audacity|reaper|midi) do not go together");
    if (options.onsets && (options.summary || options.toEnd || options.segments))
        throw UsageError ("--onsets gives one row per hit: --summary, --segments and --to-end do not go with it");
    if (options.embeddings && (options.summary || options.segments || options.onsets || exporting))
        throw UsageError ("--embeddings gives window rows: --summary, --segments, --onsets and --format audacity|reaper|midi do not go with it");
    if (options.format == Format::midi && options.output.empty() && isatty (STDOUT_FILENO) != 0)
        throw UsageError ("--format midi writes a binary file: give --output FILE or redirect stdout");

    const auto model = options.model.empty() ? resources::builtinModel() : loadModel (options.model, options.limits);
    runtime::frontendOf (*model); // a model without a front end is refused now, before any file is read
    const auto& embeddingOutput = model->info().embeddingOutput;
    if (options.embeddings && ! embeddingOutput.has_value())
        throw UsageError ("--embeddings: " + (options.model.empty() ? std::string ("the built-in model") : engine::printable (options.model))
                          + " has no embedding output (export it with export_model(..., embedding=...))");
    const auto embeddingSize = embeddingOutput.has_value() ? model->info().outputShapes[static_cast<std::size_t> (*embeddingOutput)].numElements() : int64_t { 0 };
    if (options.onsets && options.onsetWindow->count() == 0)
        options.hits.clipSeconds = runtime::hitClipSeconds (*model, options.hits.clipSeconds); // a model taught from hits: the clip it learned them from
    try
    {
        runtime::classesInPlay (runtime::classLabels (*model), options.classes);
    }
    catch (const std::invalid_argument& e)
    {
        throw UsageError (std::string ("--classes: ") + e.what());
    }
    runtime::WindowAnalyzer::checkSettings (options.hopSeconds, options.smoothingSeconds);
    std::vector<PathProblem> errors, skipped;
    auto files = collectFiles (options.paths, errors, skipped);
    if (exporting && files.size() > 1)
        throw UsageError ("--format audacity, reaper and midi take one audio file at a time, not " + std::to_string (files.size()));
    for (const auto& item : skipped)
        std::cerr << engine::printable ("skipped: " + item.path + ": " + item.message) << "\n";
    for (const auto& error : errors)
        std::cerr << engine::printable ("error: " + error.path + ": " + error.message) << "\n";
    const bool scannedFolder = std::any_of (options.paths.begin(), options.paths.end(), [] (const std::string& path) {
        std::error_code error;
        return std::filesystem::is_directory (path, error);
    });
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

    // Header.
    const auto labels = runtime::classLabels (*model);
    std::size_t numColumns = 0; // CSV
    const bool errorRows = options.errorRows && ! exporting;
    if (options.json)
        out << "[";
    else if (! exporting)
    {
        std::string header = options.summary  ? "file,label,confidence"
                             : options.onsets ? "file,time_s,label,confidence,level_db"
                                              : "file,start_s,end_s,label,confidence";
        if (! options.segments)
            for (const auto& label : labels)
                header += "," + timeline::csvField (label);
        if (options.toEnd && ! options.segments)
            header += options.summary ? ",duration_s,windows" : ",padded,tail";
        if (options.embeddings)
            for (int64_t i = 0; i < embeddingSize; ++i)
                header += ",embedding_" + std::to_string (i);
        if (errorRows)
            header += ",error";
        numColumns = static_cast<std::size_t> (std::count (header.begin(), header.end(), ',')) + 1;
        out << header << "\n";
    }
    bool firstJsonRow = true;
    auto writeRow = [&] (std::string row) {
        if (options.json)
            out << (firstJsonRow ? "\n" : ",\n");
        else if (errorRows)
            row.insert (row.size() - 1, ","); // an empty error column before the line's end
        out << row;
        firstJsonRow = false;
    };
    auto writeErrorRow = [&] (const std::string& path, const std::string& message) {
        if (! errorRows)
            return;
        if (options.json)
        {
            out << (firstJsonRow ? "\n" : ",\n") << "{\"file\":" << jsonString (path) << ",\"error\":" << jsonString (message) << "}";
            firstJsonRow = false;
        }
        else
            out << timeline::csvField (path) << std::string (numColumns - 1, ',') << timeline::csvField (message) << "\n";
    };
    for (const auto& error : errors)
        writeErrorRow (error.path, error.message);

    // Files in parallel; output in file order as soon as each file's turn comes.
    std::vector<std::optional<FileOutcome>> outcomes (shard.size());
    std::mutex mutex;
    std::condition_variable ready;
    std::atomic<std::size_t> nextFile { 0 };
    std::vector<std::thread> workers;
    // Each job holds an analyzer (a session of the model and a front end): as many jobs as files, and
    // as the memory budget allows.
    const auto perJob = std::max<std::size_t> (model->info().activationBytes + model->info().frontendBytes, 1);
    // The load claimed the weights and one job's share already.
    const auto maxMemory = options.limits.limits().maxMemoryBytes;
    const auto loaded = std::min (model->info().loadBytes, maxMemory);
    const auto affordable = std::max<std::size_t> ((maxMemory - loaded) / perJob + 1, 1);
    const auto numWorkers = std::min ({ static_cast<std::size_t> (options.jobs), std::max<std::size_t> (shard.size(), 1), affordable });
    for (std::size_t w = 0; w < numWorkers; ++w)
        workers.emplace_back ([&] {
            timeline::FileAnalyzerCache analyzers; // a job's files reuse one analyzer
            for (auto i = nextFile++; i < shard.size(); i = nextFile++)
            {
                auto outcome = classifyFile (shard[i], model, options, analyzers);
                const std::lock_guard<std::mutex> lock (mutex);
                outcomes[i] = std::move (outcome);
                ready.notify_all();
            }
        });
    const bool progress = isatty (STDERR_FILENO) != 0 && ! shard.empty();
    bool failed = ! errors.empty() || (files.empty() && ! options.paths.empty());
    std::size_t numClassified = 0, numFailed = errors.size();
    for (std::size_t i = 0; i < shard.size(); ++i)
    {
        std::unique_lock<std::mutex> lock (mutex);
        ready.wait (lock, [&] { return outcomes[i].has_value(); });
        auto outcome = std::move (*outcomes[i]);
        outcomes[i].reset();
        lock.unlock();
        if (progress)
            std::fprintf (stderr, "\r\033[K");
        for (const auto& message : outcome.messages)
            std::cerr << engine::printable (message) << "\n"; // names from files: never raw escapes
        failed = failed || outcome.failed;
        ++(outcome.failed ? numFailed : numClassified);
        for (auto& row : outcome.rows)
            writeRow (std::move (row));
        if (! outcome.error.empty())
            writeErrorRow (shard[i], outcome.error);
        if (exporting && ! outcome.failed && options.onsets)
        {
            if (options.format == Format::audacity)
                out << timeline::audacityHitLabels (outcome.hits, labels);
            else if (options.format == Format::reaper)
                out << timeline::reaperHitMarkers (outcome.hits, labels);
            else
                out << timeline::midiHitFile (outcome.hits, options.baseNote);
        }
        else if (exporting && ! outcome.failed)
        {
            if (options.format == Format::audacity)
                out << timeline::audacityLabels (outcome.segments, labels);
            else if (options.format == Format::reaper)
                out << timeline::reaperRegions (outcome.segments, labels);
            else
                out << timeline::midiFile (outcome.segments, options.baseNote);
        }
        out.flush();
        if (progress)
            drawProgress (i + 1, shard.size());
    }
    for (auto& worker : workers)
        worker.join();
    if (options.json)
        out << (firstJsonRow ? "]\n" : "\n]\n");
    out.flush();
    if (scannedFolder)
        std::cerr << "total: " << numClassified << " classified, " << skipped.size() << " skipped, " << numFailed << " failed\n";
    if (! out)
    {
        std::cerr << "error: " << (options.output.empty() ? std::string ("stdout") : options.output) << ": writing failed\n";
        return 1;
    }
    return failed ? 1 : 0;
}
} // namespace

} // namespace sonotype::cli
