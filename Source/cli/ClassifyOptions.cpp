#include "cli/ClassifyOptions.h"

#include <stdexcept>
#include <unistd.h>

namespace sonotype::cli
{
namespace
{
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
} // namespace

void addClassifyOptions (CLI::App& command, ClassifyOptions& options)
{
    command.add_option ("--model", options.model, "model file (default: the built-in model)")->type_name ("FILE");
    addNumberOption (command, "--hop", options.analysis.hopSeconds, 0.0, 3600.0, true, "a number of seconds", "SECONDS",
                     "time between windows (default 0.25)");
    addNumberOption (command, "--smooth", options.analysis.smoothingSeconds, 0.0, 3600.0, false, "a number of seconds", "SECONDS",
                     "exponential smoothing time constant of the probabilities (default 0: off)");
    command
        .add_option_function<std::string> (
            "--format",
            [&options] (const std::string& text) {
                options.format = timeline::exportFormatNamed (text).value_or (timeline::ExportFormat::csv);
                options.json = options.format == timeline::ExportFormat::json;
            },
            "csv (default), json, or segments for other programs: audacity (label track), reaper (region list), midi "
            "(Standard MIDI File); audacity, reaper and midi imply --segments")
        ->type_name ("csv|json|audacity|reaper|midi")
        ->check (CLI::Validator (
            [] (std::string& text) {
                return timeline::exportFormatNamed (text) ? std::string() : "must be csv, json, audacity, reaper or midi, not '" + text + "'";
            },
            "", "format"));
    command
        .add_option_function<std::string> (
            "--classes",
            [&options] (const std::string& text) {
                options.classes = splitClasses (text);
            },
            "only these classes (comma-separated labels): the others get 0, the answer is renormalised over these")
        ->type_name ("A,B,...")
        ->check (CLI::Validator (
            [] (std::string& text) { return splitClasses (text).empty() ? std::string ("must name at least one class") : std::string(); }, "",
            "classes"));
    command.add_flag ("--onsets", options.onsets, "one row per hit (an onset detector finds them) instead of per window");
    addNumberOption (command, "--onset-threshold", options.hits.onsets.threshold, 0.0, 100.0, false, "a number", "X",
                     "--onsets: how far a hit's spectral flux must rise above the local mean, in units of its long-term level (default 1.2; "
                     "lower finds quieter hits)");
    addNumberOption (command, "--onset-gap", options.hits.onsets.minGapSeconds, 0.0, 10.0, false, "a number of seconds", "SECONDS",
                     "--onsets: two onsets closer than this are one (default 0.05)");
    addNumberOption (command, "--onset-silence", options.hits.onsets.silenceDb, -200.0, 0.0, false, "a level in dBFS", "DB",
                     "--onsets: a hit quieter than this (RMS) is not one (default -50)");
    command
        .add_option_function<std::string> (
            "--response", [&options] (const std::string& text) { options.hits.live = text == "live"; },
            "--onsets: exact (the default: each hit named from a clip of --onset-window seconds, as the plugin's Exact mode) or live "
            "(each hit named from its first 6 ms by the kit a model taught from hits carries, the notes the plugin's Live mode plays "
            "within 10 ms)")
        ->type_name ("exact|live")
        ->check (CLI::IsMember ({ "exact", "live" }));
    addNumberOption (command, "--onset-window", options.hits.clipSeconds, 0.01, 60.0, false, "a number of seconds", "SECONDS",
                     "--onsets: the seconds after an onset a hit is classified from (default 0.25, or the window a model taught from hits "
                     "was taught with)")
        ->each ([&options] (const std::string&) { options.onsetWindowGiven = true; });
    command.add_flag ("--summary", options.summary,
                      "one row per file: the class that holds most of the file's time in its segments (silence only when no "
                      "other class holds any; none when no class does), each class's share of the time, the duration, the "
                      "number of windows and the mean probability of each class over the windows");
    command.add_flag ("--grid", options.grid,
                      "windows on the hop's grid only: a file shorter than one window is reported as one full window, and the "
                      "tail after the last full window is not classified (by default each file is classified to its true end)");
    command.add_flag ("--to-end", options.toEndGiven, "classify to each file's true end: the default (kept for scripts that pass it)");
    command.add_flag ("--embeddings", options.embeddings,
                      "csv, json: each window row gets the model's embedding of the window (CSV: columns embedding_0, ...); "
                      "the model needs an embedding output");
    command.add_flag ("--error-rows", options.errorRows,
                      "a file or folder that could not be classified is a row with its error: the default (kept for scripts that "
                      "pass it)");
    command.add_flag ("--segments", options.segments,
                      "one row per segment (a stretch of one class, its edges where the sound changes) instead of per window");
    addNumberOption (command, "--threshold", options.analysis.segments.thresholdPercent, 0.0, 100.0, false, "a percentage", "PERCENT",
                     "segments and summaries: a moment whose most probable class (the mean over the windows that cover it) has less than this is "
                     "in no segment (default 30)");
    addWholeOption (command, "--base-note", options.baseNote, 0, 127, "NOTE",
                    "--format midi: the note of class 0, as the plugin's (default 36), for the classes whose name says no drum piece");
    command
        .add_option_function<std::string> (
            "--note-map", [&options] (const std::string& text) { options.noteMap = timeline::parseClassNotes (text); },
            "--format midi: notes for classes, over the model's own (e.g. kick=36,snare=D1; C1 is 36). Without one a class plays the note "
            "chosen for it when it was taught, else the General MIDI drum its name says (kick 36, snare 38, hat 42, ...), else base note + "
            "its index")
        ->type_name ("CLASS=NOTE,...")
        ->check (CLI::Validator (
            [] (std::string& text) {
                try
                {
                    timeline::parseClassNotes (text);
                    return std::string();
                }
                catch (const std::invalid_argument& e)
                {
                    return std::string (e.what());
                }
            },
            "", "note-map"));
    command.add_option ("--output", options.output, "write the results to FILE instead of stdout")->type_name ("FILE");
    addWholeOption (command, "--jobs", options.jobs, 1u, 1024u, "N", "files classified in parallel (default: the number of cores)");
    command
        .add_option_function<std::string> (
            "--shard", [&options] (const std::string& text) { parseShard (text, options.shardIndex, options.shardCount); },
            "only the I-th (0-based) of N slices of the sorted file list")
        ->type_name ("I/N")
        ->check (CLI::Validator (
            [] (std::string& text) {
                std::size_t index = 0, count = 0;
                return parseShard (text, index, count);
            },
            "", "shard"));
    command.add_option ("PATH", options.paths, "audio files and folders")->option_text ("PATH...");
    addModelLimitOptions (command, options.limits);
}

void completeClassifyOptions (ClassifyOptions& options)
{
    options.segments = options.segments || (options.exporting() && ! options.onsets); // audacity, reaper, midi: segments (or hits)
    options.analysis.toEnd = ! options.grid;                                          // to each file's true end unless --grid
    options.analysis.findSegments = options.segments || options.summary;              // window rows need no segments
}

void checkClassifyUsage (const ClassifyOptions& options)
{
    if (options.paths.empty())
        throw UsageError ("classify needs at least one file or folder (see sonotype classify --help)");
    const bool exporting = options.exporting();
    if (options.summary && (options.segments || exporting))
        throw UsageError ("--summary and segments (--segments, --format audacity|reaper|midi) do not go together");
    if (options.grid && options.toEndGiven)
        throw UsageError ("--grid and --to-end do not go together: --grid stops at the last full window, --to-end goes to the file's end");
    if (options.onsets && (options.summary || options.grid || options.segments))
        throw UsageError ("--onsets gives one row per hit: --summary, --segments and --grid do not go with it");
    if (options.embeddings && (options.summary || options.segments || options.onsets || exporting))
        throw UsageError ("--embeddings gives window rows: --summary, --segments, --onsets and --format audacity|reaper|midi do not go with it");
    if (! options.noteMap.empty() && options.format != timeline::ExportFormat::midi)
        throw UsageError ("--note-map sets the notes of a MIDI file: give --format midi");
    if (options.format == timeline::ExportFormat::midi && options.output.empty() && isatty (STDOUT_FILENO) != 0)
        throw UsageError ("--format midi writes a binary file: give --output FILE or redirect stdout");
}

ClassifyOptions parseClassifyOptions (const std::vector<std::string>& arguments)
{
    ClassifyOptions options;
    const auto app = makeApp();
    addClassifyOptions (*addCommand (*app, "classify", "", ""), options);
    parseCommandArguments (*app, "classify", arguments);
    completeClassifyOptions (options);
    checkClassifyUsage (options);
    return options;
}

} // namespace sonotype::cli
