// `sonotype classify`: classifies audio files and folders, window by window, with the same analyzer
// the live runtime runs. Results go to stdout (CSV or JSON); messages and progress to stderr.
#include "cli/AudioFileReader.h"
#include "cli/Commands.h"
#include "cli/ModelLoading.h"
#include "engine/file/Text.h"
#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
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
    constexpr const char* kDescription = R"(Classifies audio files (WAV, AIFF, FLAC, Ogg Vorbis) and folders (searched recursively), one row per
analysis window: window k covers [k * hop, k * hop + window) seconds. A file shorter than one window
is zero-padded to one window.)";

    constexpr const char* kFooter = R"(CSV columns: file,start_s,end_s,label,confidence, then one probability per class in model order
(--summary: file,label,confidence, then the mean probabilities). Problems with a file are reported
on stderr, the other files are still classified, and the exit code is then 1.)";

    struct Options
    {
        std::string model;
        double hopSeconds = 0.25, smoothingSeconds = 0.0;
        bool json = false, summary = false;
        unsigned jobs = std::max (1u, std::thread::hardware_concurrency());
        std::size_t shardIndex = 0, shardCount = 1;
        std::vector<std::string> paths;
        ModelLimitOptions limits;
    };

    struct FileOutcome
    {
        std::vector<std::string> rows;     // formatted rows (CSV lines, or JSON objects)
        std::vector<std::string> messages; // for stderr
        bool failed = false;
    };

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

    std::string csvField (const std::string& text)
    {
        if (text.find_first_of (",\"\n\r") == std::string::npos)
            return text;
        std::string quoted = "\"";
        for (char c : text)
            quoted += c == '"' ? std::string ("\"\"") : std::string (1, c);
        return quoted + "\"";
    }

    /** `text` as a JSON string. Malformed UTF-8 (a Latin-1 file name, say) becomes U+FFFD, so
        that a row is always valid JSON. */
    std::string jsonString (const std::string& text)
    {
        return nlohmann::json (text).dump (-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }

    std::string number (double value, int decimals)
    {
        if (! std::isfinite (value))
            return "nan"; // CSV; JSON rows use jsonNumber
        char text[64];
        std::snprintf (text, sizeof text, "%.*f", decimals, value);
        return text;
    }

    std::string jsonNumber (double value, int decimals)
    {
        return std::isfinite (value) ? number (value, decimals) : "null"; // JSON has no NaN
    }

    std::string formatRow (const Options& options, const std::string& file, const std::vector<std::string>& labels, const double* times,
                           const std::vector<float>& probabilities)
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
            return row + "}}";
        }
        row = csvField (file);
        if (times != nullptr)
            row += "," + number (times[0], 3) + "," + number (times[1], 3);
        row += "," + csvField (labels[top]) + "," + number (probabilities[top], 6);
        for (float p : probabilities)
            row += "," + number (p, 6);
        return row + "\n";
    }

    FileOutcome classifyFile (const std::string& path, const std::shared_ptr<const engine::Model>& model, const Options& options)
    {
        FileOutcome outcome;
        try
        {
            AudioFileReader reader (path);
            if (! reader.truncationWarning().empty())
            {
                outcome.messages.push_back ("warning: " + path + ": " + reader.truncationWarning());
                outcome.failed = true;
            }
            runtime::WindowAnalyzer analyzer (model, reader.sampleRate(), options.hopSeconds, options.smoothingSeconds);
            const auto& labels = analyzer.labels();
            std::vector<double> sums (static_cast<std::size_t> (analyzer.numClasses()), 0.0);
            int64_t numWindows = 0, numNonFiniteWindows = 0;
            runtime::WindowResult result;
            std::vector<std::string> rows;
            auto emit = [&] {
                ++numWindows;
                if (! std::all_of (result.probabilities.begin(), result.probabilities.end(), [] (float p) { return std::isfinite (p); }))
                    ++numNonFiniteWindows;
                for (std::size_t c = 0; c < sums.size(); ++c)
                    sums[c] += result.probabilities[c];
                if (! options.summary)
                {
                    const double times[] = { result.startSeconds, result.endSeconds };
                    rows.push_back (formatRow (options, path, labels, times, result.probabilities));
                }
            };
            // Blocks of at most 2 s: the analyzer's memory (claimed at load) holds a few seconds of
            // audio before the windows in it are analyzed.
            std::vector<float> block (static_cast<std::size_t> (std::clamp (2.0 * reader.sampleRate(), 1024.0, 65536.0)));
            while (const auto count = reader.readMono (block.data(), block.size()))
            {
                analyzer.push (block.data(), count);
                for (auto k = analyzer.nextWindow(); k <= analyzer.newestCompleteWindow(); ++k)
                {
                    analyzer.analyze (k, result);
                    emit();
                }
            }
            analyzer.finish();
            for (auto k = analyzer.nextWindow(); k <= analyzer.newestCompleteWindow(); ++k)
            {
                analyzer.analyze (k, result);
                emit();
            }
            if (numWindows == 0 && analyzer.analyzePaddedFirstWindow (result))
                emit();
            if (analyzer.numNonFiniteSamples() > 0)
            {
                outcome.messages.push_back ("warning: " + path + ": " + std::to_string (analyzer.numNonFiniteSamples())
                                            + " NaN or infinite samples were replaced by 0");
                outcome.failed = true;
            }
            if (numNonFiniteWindows > 0)
            {
                outcome.messages.push_back ("warning: " + path + ": the model's output was not finite (NaN or infinite) in "
                                            + std::to_string (numNonFiniteWindows) + " of " + std::to_string (numWindows) + " windows");
                outcome.failed = true;
            }
            if (options.summary && numWindows > 0)
            {
                std::vector<float> means (sums.size());
                for (std::size_t c = 0; c < sums.size(); ++c)
                    means[c] = static_cast<float> (sums[c] / static_cast<double> (numWindows));
                rows.push_back (formatRow (options, path, labels, nullptr, means));
            }
            outcome.rows = std::move (rows);
        }
        catch (const std::exception& e)
        {
            outcome.messages.push_back ("error: " + path + ": " + e.what());
            outcome.failed = true;
        }
        return outcome;
    }

    /** Files to classify: named files as given, folders searched for audio files; sorted. */
    std::vector<std::string> collectFiles (const std::vector<std::string>& paths, std::vector<std::string>& errors)
    {
        namespace fs = std::filesystem;
        std::vector<std::string> files;
        for (const auto& path : paths)
        {
            std::error_code error;
            const auto status = fs::status (path, error);
            if (error || ! fs::exists (status))
            {
                errors.push_back ("error: " + path + ": no such file or folder");
                continue;
            }
            if (! fs::is_directory (status))
            {
                files.push_back (path);
                continue;
            }
            std::size_t found = 0;
            for (auto it = fs::recursive_directory_iterator (path, fs::directory_options::skip_permission_denied, error);
                 ! error && it != fs::recursive_directory_iterator(); it.increment (error))
                if (it->is_regular_file (error) && hasAudioExtension (it->path().string()))
                {
                    files.push_back (it->path().string());
                    ++found;
                }
            if (error)
                errors.push_back ("error: " + path + ": " + error.message());
            if (found == 0)
                errors.push_back ("error: " + path + ": no audio files (.wav .aif .aiff .flac .ogg) in this folder");
        }
        std::sort (files.begin(), files.end());
        files.erase (std::unique (files.begin(), files.end()), files.end());
        return files;
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
    int classify (const Options& options);
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
            "--format", [options] (const std::string& format) { options->json = format == "json"; }, "csv (default) or json")
        ->type_name ("csv|json")
        ->check (CLI::Validator (
            [] (std::string& format) { return format == "csv" || format == "json" ? std::string() : "must be csv or json, not '" + format + "'"; },
            "", "format"));
    command->add_flag ("--summary", options->summary, "one row per file: the mean probability of each class over its windows");
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
    return [options] { return classify (*options); };
}

namespace
{
int classify (const Options& options)
{
    if (options.paths.empty())
        throw UsageError ("classify needs at least one file or folder (see sonotype classify --help)");

    const auto model = options.model.empty() ? resources::builtinModel() : loadModel (options.model, options.limits);
    runtime::frontendOf (*model); // a model without a front end is refused now, before any file is read
    runtime::WindowAnalyzer::checkSettings (options.hopSeconds, options.smoothingSeconds);
    std::vector<std::string> errors;
    auto files = collectFiles (options.paths, errors);
    for (const auto& error : errors)
        std::cerr << error << "\n";
    std::vector<std::string> shard;
    for (std::size_t i = 0; i < files.size(); ++i)
        if (i % options.shardCount == options.shardIndex)
            shard.push_back (files[i]);

    // Header.
    const auto labels = runtime::classLabels (*model);
    if (options.json)
        std::cout << "[";
    else
    {
        std::cout << (options.summary ? "file,label,confidence" : "file,start_s,end_s,label,confidence");
        for (const auto& label : labels)
            std::cout << "," << csvField (label);
        std::cout << "\n";
    }

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
            for (auto i = nextFile++; i < shard.size(); i = nextFile++)
            {
                auto outcome = classifyFile (shard[i], model, options);
                const std::lock_guard<std::mutex> lock (mutex);
                outcomes[i] = std::move (outcome);
                ready.notify_all();
            }
        });
    const bool progress = isatty (STDERR_FILENO) != 0 && ! shard.empty();
    bool failed = ! errors.empty() || (files.empty() && ! options.paths.empty());
    bool firstJsonRow = true;
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
        for (const auto& row : outcome.rows)
        {
            if (options.json)
                std::cout << (firstJsonRow ? "\n" : ",\n");
            std::cout << row;
            firstJsonRow = false;
        }
        std::cout.flush();
        if (progress)
            drawProgress (i + 1, shard.size());
    }
    for (auto& worker : workers)
        worker.join();
    if (options.json)
        std::cout << (firstJsonRow ? "]\n" : "\n]\n");
    return failed ? 1 : 0;
}
} // namespace

} // namespace sonotype::cli
