// `sonotype learn`: new classes (or the model's own, adapted) from example files, written as one
// ordinary model file that `classify --model` (and the plugin) run.
#include "cli/AudioPaths.h"
#include "cli/Commands.h"
#include "cli/ModelLoading.h"
#include "engine/file/Text.h"
#include "formats/AudioFileReader.h"
#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"
#include "teach/HitEmbedding.h"
#include "teach/Lesson.h"
#include "timeline/NoteMap.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace sonotype::cli
{
namespace
{
    constexpr const char* kDescription = R"(Learns classes from examples: each --class NAME is followed by its example files or folders
(searched recursively). Every file is one example: the model's embedding of its windows, averaged
(with --hits, every hit in it is one example: drum-to-MIDI from your own kit; a hit is embedded from
the model's token sequence, before its transformer, when it has one). When every example file is
shorter than the model's window (one-shots), each is learned as a hit without --hits (--no-hits:
as a whole file). A class is the mean of its examples; a window is scored by its closeness (cosine)
to each class's mean. When every class is one of the base model's own (e.g. piano, guitar, drums),
the rule combines the model's own head over those classes with the closeness to your examples.

A window is "unknown" when it is far from every class or much quieter than every example: each
class's threshold is calibrated from its examples' spread (how close each is to the mean of the
others), and a window more than 30 dB under the quietest example is unknown (--unknown-below sets
one threshold for every class instead; -1: never unknown).

Before writing, each file is classified by what the other files teach (leave one file out), and the
table shows how often it comes out right: a class that is often wrong needs more, or more varied,
examples. The result is one model file, the base model plus what was learned: give it to
`sonotype classify --model` or load it in the plugin.)";

    struct Options
    {
        std::vector<std::vector<std::string>> classes; // each: NAME PATH...
        std::vector<std::string> notes;                // --note CLASS=NOTE
        std::string model, output;
        double hopSeconds = 0.25, unknownBelow = teach::kCalibratedUnknown, clipSeconds = 0.12;
        bool hits = false, noHits = false;
        ModelLimitOptions limits;
    };

    std::string padded (std::string text, std::size_t width)
    {
        if (text.size() < width)
            text.append (width - text.size(), ' ');
        return text;
    }

    /** Each class's examples, from its files and folders; false when a file could not be read (each
        error said as it comes). */
    bool gatherExamples (const Options& options, teach::Lesson& lesson, std::vector<teach::TaughtClass>& classes)
    {
        const bool hits = lesson.settings().hits;
        bool failed = false;
        for (const auto& group : options.classes)
        {
            teach::TaughtClass taught { group[0], {} };
            std::vector<PathProblem> errors, skipped;
            const auto files = collectFiles ({ group.begin() + 1, group.end() }, errors, skipped);
            for (const auto& error : errors)
            {
                std::cerr << engine::printable ("error: " + error.path + ": " + error.message) << "\n";
                failed = true;
            }
            for (const auto& file : files)
                try
                {
                    auto examples = lesson.examplesOfFile (file);
                    if (examples.empty())
                        std::cerr << engine::printable ("warning: " + file + ": no hits found") << "\n";
                    std::move (examples.begin(), examples.end(), std::back_inserter (taught.examples));
                }
                catch (const std::exception& e)
                {
                    std::cerr << engine::printable ("error: " + file + ": " + e.what()) << "\n";
                    failed = true;
                }
            std::cerr << engine::printable (taught.name) << ": " << taught.examples.size() << (hits ? " hits" : " examples") << " from "
                      << files.size() << " files\n";
            classes.push_back (std::move (taught));
        }
        return ! failed;
    }

    /** Hits or whole files, when the user did not say: hits when every example file that can be
        read is shorter than the model's window (one-shots), said on stderr. */
    bool learnsHits (const Options& options, const engine::Model& model)
    {
        if (options.hits || options.noHits)
            return options.hits;
        const auto& frontend = runtime::frontendOf (model);
        const double window = frontend.windowSamples / frontend.sampleRate;
        int shorter = 0, files = 0;
        for (const auto& group : options.classes)
        {
            std::vector<PathProblem> errors, skipped; // said when the examples are read
            for (const auto& file : collectFiles ({ group.begin() + 1, group.end() }, errors, skipped))
                try
                {
                    formats::AudioFileReader reader (file);
                    ++files;
                    shorter += static_cast<double> (reader.lengthInSamples()) < window * reader.sampleRate() ? 1 : 0;
                }
                catch (const std::exception&) // said when the examples are read
                {
                }
        }
        if (files == 0 || shorter < files)
            return false;
        std::cerr << "hits: every example is shorter than the model's window (" << window
                  << " s), so each is learned as a hit, as classify --onsets classifies hits (--no-hits: each file as a whole)\n";
        return true;
    }

    /** What makes a window unknown: each class's threshold, and the level gate. */
    void printGates (const teach::Head& head)
    {
        if (! head.hasUnknown())
            return;
        std::cout << "Unknown: a window closer to no class than its threshold (cosine";
        for (std::size_t c = 0; c < head.prototypes.size(); ++c)
        {
            std::cout << (c ? ", " : ": ") << engine::printable (head.labels[c]) << " " << std::fixed << std::setprecision (2) << head.cosineBelow[c];
            if (std::isnan (head.unknownBelow) && ! std::isnan (head.spread[c]))
                std::cout << " from a spread of " << std::setprecision (3) << head.spread[c];
        }
        std::cout << ")";
        if (! std::isnan (head.levelBelowDb))
            std::cout << ", or quieter than " << std::setprecision (1) << head.levelBelowDb << " dB (" << teach::Head::kLevelMarginDb
                      << " dB under the quietest example)";
        std::cout << std::defaultfloat << std::setprecision (6) << "\n";
    }

    /** --note's notes, by class; UsageError for one that is not CLASS=NOTE or names no class given. */
    teach::ChosenNotes chosenNotes (const Options& options)
    {
        std::vector<std::string> names;
        for (const auto& group : options.classes)
            if (! group.empty())
                names.push_back (group[0]);
        names.push_back ("unknown");
        teach::ChosenNotes notes;
        for (const auto& text : options.notes)
            try
            {
                const auto [name, note] = timeline::parseClassNote (text);
                timeline::withChosenNotes ({}, { { name, note } }, names); // a class given, or unknown
                notes[name] = note;
            }
            catch (const std::invalid_argument& e)
            {
                throw UsageError (std::string ("--note: ") + e.what());
            }
        return notes;
    }

    /** The note each class plays (the plugin's MIDI, classify --format midi): chosen, by its name, or base note + index. */
    void printNotes (const teach::Head& head, const teach::ChosenNotes& notes)
    {
        std::vector<int> chosen;
        for (const auto& label : head.labels)
            chosen.push_back (notes.count (label) != 0 ? notes.at (label) : timeline::kNoNote);
        std::cout << "Notes (C1 = 36; --note CLASS=NOTE chooses one):\n";
        for (const auto& line : timeline::describeNoteMap (head.labels, timeline::noteMap (head.labels, chosen, 36)))
            std::cout << "  " << engine::printable (line) << "\n";
    }

    /** Leave one file out: the table people read to see whether their classes are separable. */
    void printConfusion (const std::vector<teach::TaughtClass>& classes, const teach::Lesson::Learned& learned)
    {
        const auto& confusion = learned.confusion;
        std::size_t width = 8;
        for (const auto& label : confusion.labels)
            width = std::max (width, engine::printable (label).size() + 2);
        std::cout << "Leave one file out (" << (learned.head.adapted ? "the model's head and your examples" : "your examples")
                  << "): rows are the classes taught, columns what each example was taken for.\n"
                  << padded ("", width);
        for (const auto& label : confusion.labels)
            std::cout << padded (engine::printable (label), width);
        std::cout << "right\n";
        int correct = 0, checked = 0, unchecked = 0; // a class of one example has nothing to check it by
        for (std::size_t c = 0; c < classes.size(); ++c)
        {
            std::cout << padded (engine::printable (classes[c].name), width);
            int total = 0;
            for (const int n : confusion.counts[c])
            {
                std::cout << padded (std::to_string (n), width);
                total += n;
            }
            if (classes[c].examples.size() < 2)
            {
                std::cout << "-  (one example: nothing to check it by)\n";
                ++unchecked;
                continue;
            }
            std::cout << confusion.counts[c][c] << "/" << total << "\n";
            correct += confusion.counts[c][c];
            checked += total;
        }
        std::cout << "right: " << correct << " of " << checked << " examples";
        if (unchecked > 0)
            std::cout << " (" << unchecked << (unchecked == 1 ? " class" : " classes") << " of one example not checked: give two or more to check them)";
        std::cout << "\n";
        if (classes.size() == 1)
            std::cout << "One class: what is close to " << engine::printable (classes[0].name)
                      << "'s examples is " << engine::printable (classes[0].name)
                      << ", anything else unknown; nothing is chosen between. Teach a second class to tell sounds apart.\n";
        if (learned.liveCheck.has_value() && learned.head.live.has_value())
            std::cout << "Live (each hit from its first " << std::lround (learned.head.live->afterSeconds * 1000.0)
                      << " ms, the plugin's Live mode), each hit by the others: " << learned.liveCheck->correct << " of " << learned.liveCheck->total
                      << " hits right\n";
        else if (learned.head.hitClipSeconds > 0.0)
            std::cout << "Live: no hit of the examples was found by the live detector; the plugin plays these classes in its Exact mode only\n";
    }

    int learn (const Options& options)
    {
        if (options.classes.empty())
            throw UsageError ("learn needs at least one --class NAME PATH... (see sonotype learn --help)");
        if (options.output.empty())
            throw UsageError ("learn needs -o FILE: where to write the taught model");
        auto model = loadModelOrBuiltin (options.model, options.limits);
        std::vector<std::uint8_t> base; // the file the taught model extends
        if (options.model.empty())
        {
            const auto bytes = resources::builtinModelFile();
            base.assign (bytes.begin(), bytes.end());
        }
        else
        {
            std::ifstream in (options.model, std::ios::binary);
            base.assign (std::istreambuf_iterator<char> (in), {});
        }
        if (options.hits && options.noHits)
            throw UsageError ("--hits and --no-hits: give one of them");
        teach::LessonSettings settings;
        settings.hopSeconds = options.hopSeconds;
        settings.hits = learnsHits (options, *model);
        settings.clipSeconds = options.clipSeconds;
        settings.unknownBelow = options.unknownBelow;
        teach::Lesson lesson (std::move (base), model, options.model.empty() ? resources::kBuiltinModelName : options.model, settings,
                              options.limits.limits());
        if (settings.hits && lesson.embedsTokens()) // hits: from the model's tokens (teach/HitEmbedding.h)
        {
            model = lesson.embedder();
            std::ostringstream which; // (a file taught from hits before keeps its own description, which may say anything)
            if (const auto span = teach::hitEmbeddingOf (*model))
                which << ", tokens " << span->fromToken << "-" << span->toToken << " of " << span->numTokens << " (" << span->fromSeconds << "-"
                      << span->toSeconds << " s of each clip)";
            std::cerr << "hits: embedded from the model's token sequence" << which.str() << "\n";
        }
        if (! model->info().embeddingOutput.has_value())
            throw UsageError (std::string (options.model.empty() ? "the built-in model" : options.model)
                              + " has no embedding output, which learning needs: export it with export_model(..., embedding=...)");

        for (const auto& group : options.classes)
        {
            if (group.size() < 2)
                throw UsageError ("--class " + (group.empty() ? std::string() : group[0]) + ": give the class's name, then its example files or folders");
            try
            {
                engine::checkDisplayText (group[0], 256, "class name"); // before any file is read
            }
            catch (const std::exception& e)
            {
                throw UsageError (e.what());
            }
        }
        const auto notes = chosenNotes (options);
        std::vector<teach::TaughtClass> classes;
        if (! gatherExamples (options, lesson, classes))
            return 1;
        teach::Lesson::Learned learned;
        try
        {
            learned = lesson.learn (classes);
        }
        catch (const std::exception& e) // a class without examples, a name given twice or not a label (engine::checkDisplayText)
        {
            throw UsageError (e.what());
        }
        printConfusion (classes, learned);
        printGates (learned.head);
        printNotes (learned.head, notes);

        const auto file = lesson.build (learned.head, {}, notes).bytes;
        std::ofstream out (options.output, std::ios::binary | std::ios::trunc);
        out.write (reinterpret_cast<const char*> (file.data()), static_cast<std::streamsize> (file.size()));
        if (! out)
        {
            std::cerr << "error: " << options.output << ": cannot write this file\n";
            return 1;
        }
        std::cout << "wrote " << options.output << ": " << learned.head.labels.size() << " classes (";
        for (std::size_t c = 0; c < learned.head.labels.size(); ++c)
            std::cout << (c ? ", " : "") << engine::printable (learned.head.labels[c]);
        std::cout << ")\n";
        return 0;
    }
} // namespace

CommandRun addLearnCommand (CLI::App& app)
{
    auto options = std::make_shared<Options>();
    auto* command = addCommand (app, "learn", "learn classes from example files, into a model file classify and the plugin run", kDescription);
    command->add_option ("--class", options->classes, "a class: its name, then its example files or folders (repeat for each class)")
        ->type_name ("NAME PATH...")
        ->expected (2, CLI::detail::expected_max_vector_size);
    command->add_option ("-o,--output", options->output, "the taught model file to write")->type_name ("FILE");
    command->add_option ("--model", options->model, "the model to teach (default: the built-in model); it needs an embedding output")->type_name ("FILE");
    command->add_flag ("--hits", options->hits,
                       "every hit in an example file is one example (drum pieces, one-shots), as classify --onsets classifies them (the default when "
                       "every file is shorter than the model's window)");
    command->add_flag ("--no-hits", options->noHits, "every example file is one example, even when all are shorter than the model's window");
    addNumberOption (*command, "--unknown-below", options->unknownBelow, -1.0, 1.0, false, "a number from -1 to 1", "COSINE",
                     "one threshold for every class: a window closer than this to no class is \"unknown\" (default: each class's own, from "
                     "its examples' spread; -1: never unknown)");
    addNumberOption (*command, "--hop", options->hopSeconds, 0.0, 3600.0, true, "a number of seconds", "SECONDS",
                     "time between the windows of an example (default 0.25)");
    addNumberOption (*command, "--onset-window", options->clipSeconds, 0.01, 60.0, false, "a number of seconds", "SECONDS",
                     "--hits: the seconds after an onset a hit is learned from (default 0.12; classify --onsets then uses the same)");
    command->add_option ("--note", options->notes,
                         "the MIDI note of a class, e.g. kick=36 or snare=D1 (C1 is 36; repeat for each class), kept in the model file: "
                         "without one a class plays the General MIDI drum its name says (kick 36, snare 38, hat 42, ...), else base note + "
                         "its index")
        ->type_name ("CLASS=NOTE")
        ->allow_extra_args (false);
    addModelLimitOptions (*command, options->limits);
    return [options] { return learn (*options); };
}

} // namespace sonotype::cli
