// `sonotype inspect MODEL`: what a model file holds, without running it.
#include "cli/Commands.h"
#include "cli/ModelLoading.h"
#include "engine/CpuDispatch.h"
#include "engine/Model.h"
#include "engine/OpTable.h"
#include "engine/file/FrontendSettings.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFileKeys.h"
#include "engine/file/Text.h"
#include "runtime/WindowAnalyzer.h"
#include "timeline/NoteMap.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string_view>

namespace sonotype::cli
{
namespace
{
    const char* describeScores (engine::OutputScores scores)
    {
        switch (scores)
        {
            case engine::OutputScores::probabilities: return "output 0 ends in a softmax: classify and the plugin show it as it is";
            case engine::OutputScores::logProbabilities: return "output 0 ends in a log-softmax: classify and the plugin show exp() of it";
            case engine::OutputScores::independentProbabilities:
                return "output 0 ends in a sigmoid (one probability per class): classify and the plugin show it as it is";
            case engine::OutputScores::logits: break;
        }
        return "output 0 is logits: classify and the plugin show their softmax";
    }

    constexpr const char* kDescription = R"(Prints a model file's (default: the built-in model's) input and output shapes (and which output is the embedding, if any), class labels,
front-end settings, op counts, parameter count and size. --ops lists the operations this engine runs:
their names (text), or the engine's op table (json: name, inputs and outputs each as [min, max],
or null where the op counts them itself, and how many leading inputs must be present).)";

    struct Options
    {
        std::vector<std::string> models;
        bool ops = false;
        std::string format; // of --ops; empty: not given (text)
        ModelLimitOptions limits;
    };

    int inspect (const Options& options);

    /** The engine's op table: names sorted (text), or every row as a JSON object (json). */
    void printOps (const std::string& format)
    {
        if (format == "text")
        {
            std::vector<std::string_view> names;
            for (const auto& spec : engine::opTable())
                names.push_back (spec.name);
            std::sort (names.begin(), names.end());
            for (const auto name : names)
                std::cout << name << "\n";
            return;
        }
        if (format != "json")
            throw UsageError ("--format must be text or json, not " + engine::quote (format));
        // Input and output counts as [min, max]; null where the op counts them itself (rnn: by its attributes).
        const auto range = [] (unsigned low, unsigned high) {
            return high == engine::kCountedByOp ? nlohmann::ordered_json() : nlohmann::ordered_json::array ({ low, high });
        };
        // One op a line.
        const char* separator = "[\n ";
        for (const auto& spec : engine::opTable())
        {
            const nlohmann::ordered_json row { { "name", std::string (spec.name) },
                                               { "inputs", range (spec.minInputs, spec.maxInputs) },
                                               { "required_inputs", spec.requiredInputs },
                                               { "outputs", range (spec.minOutputs, spec.maxOutputs) } };
            std::cout << separator << row.dump();
            separator = ",\n ";
        }
        std::cout << "\n]\n";
    }

    std::string metadataOr (const engine::ModelInfo& info, const std::string& key, const std::string& fallback)
    {
        const auto it = info.metadata.find (key);
        return it == info.metadata.end() ? fallback : engine::printable (it->second);
    }

    /** Where the model's features come from: the runtime's log-mel front end, or the model itself
        (a waveform front end: the runtime feeds raw audio to the model's input). */
    void describeFeatures (const engine::Model& model)
    {
        const auto& info = model.info();
        int spectralNodes = 0;
        for (const auto& [op, count] : info.opCounts)
            if (op == "stft")
                spectralNodes += static_cast<int> (count);
        std::cout << "features:    ";
        try
        {
            const auto& settings = runtime::frontendOf (model);
            char seconds[64];
            std::snprintf (seconds, sizeof seconds, "%.3f s", settings.windowSamples / settings.sampleRate);
            if (settings.isWaveform())
                std::cout << "computed inside the model (" << spectralNodes << " stft node" << (spectralNodes == 1 ? "" : "s")
                          << "); waveform input 0 " << info.inputShapes.front().toString() << " takes raw mono audio at "
                          << settings.sampleRate << " Hz, " << settings.windowSamples << " samples (" << seconds << ") per window\n";
            else
                std::cout << "computed by the runtime's log-mel front end (" << settings.nMels << " mel bands at " << settings.sampleRate
                          << " Hz, " << settings.windowSamples << " samples (" << seconds << ") per window) for input 0 "
                          << info.inputShapes.front().toString() << "\n";
        }
        catch (const dsp::FrontendError& error)
        {
            if (spectralNodes > 0)
                std::cout << "computed inside the model (" << spectralNodes << " stft nodes), but classify and the plugin cannot feed it: ";
            else
                std::cout << "no usable front end (classify and the plugin need one): ";
            std::cout << error.what() << "\n";
        }
    }

    /** Each class's MIDI note (the plugin's, classify --format midi's) at the default base note. */
    void printNotes (const engine::Model& model)
    {
        const auto labels = runtime::classLabels (model);
        std::cout << "notes:       as MIDI out and classify --format midi play them (C1 = 36; base note 36, the default)\n";
        for (const auto& line : timeline::describeNoteMap (labels, timeline::noteMap (labels, model.info().classNotes, 36)))
            std::cout << "             " << engine::printable (line) << "\n";
    }

    std::string kibibytes (std::size_t bytes)
    {
        char text[64];
        std::snprintf (text, sizeof text, "%.1f KiB", static_cast<double> (bytes) / 1024.0);
        return text;
    }
} // namespace

CommandRun addInspectCommand (CLI::App& app)
{
    auto options = std::make_shared<Options>();
    auto* command = addCommand (app, "inspect", "show what a model file holds", kDescription);
    command->add_flag ("--ops", options->ops, "list the operations this engine runs");
    command->add_option ("--format", options->format, "how --ops lists them: text (default) or json")
        ->type_name ("text|json")
        ->check (CLI::Validator (
            [] (std::string& format) { return format == "text" || format == "json" ? std::string() : "must be text or json, not '" + format + "'"; },
            "", "format"));
    command->add_option ("MODEL", options->models, "the model file (.safetensors; default: the built-in model)")
        ->option_text ("[MODEL.safetensors]");
    addModelLimitOptions (*command, options->limits);
    return [options] { return inspect (*options); };
}

namespace
{
    int inspect (const Options& options)
    {
        if (options.ops)
        {
            printOps (options.format.empty() ? "text" : options.format);
            return 0;
        }
        if (! options.format.empty())
            throw UsageError ("--format is for --ops (sonotype inspect --ops --format json)");
        if (options.models.size() > 1)
            throw UsageError ("inspect takes at most one MODEL file (see sonotype inspect --help)");

        const auto model = loadModelOrBuiltin (options.models.empty() ? std::string() : options.models[0], options.limits);
        const auto& info = model->info();
        std::cout << "model:       " << engine::printable (info.name) << "\n";
        std::cout << "format:      sonotype " << metadataOr (info, engine::keys::formatVersion, "?") << " (exporter "
                  << metadataOr (info, engine::keys::exporterVersion, "?") << ", torch " << metadataOr (info, engine::keys::torchVersion, "?")
                  << ", class " << metadataOr (info, engine::keys::modelClass, "?") << ")\n";
        for (std::size_t i = 0; i < info.inputShapes.size(); ++i)
            std::cout << "input " << i << ":     " << info.inputShapes[i].toString() << "\n";
        for (std::size_t i = 0; i < info.outputShapes.size(); ++i)
            std::cout << "output " << i << ":    " << info.outputShapes[i].toString() << "\n";
        if (info.embeddingOutput.has_value())
            std::cout << "embedding:   output " << *info.embeddingOutput << " "
                      << info.outputShapes[static_cast<std::size_t> (*info.embeddingOutput)].toString() << "\n";
        if (const auto taught = info.metadata.find (engine::keys::taught); taught != info.metadata.end())
            std::cout << "taught:      " << engine::printable (taught->second) << "\n"; // by sonotype learn: the base model and the rule
        std::cout << "labels:      ";
        if (info.labels.empty())
            std::cout << "(none)";
        for (std::size_t i = 0; i < info.labels.size(); ++i)
            std::cout << (i ? ", " : "") << info.labels[i];
        std::cout << "\n";
        printNotes (*model);
        std::cout << "scores:      " << describeScores (model->info().scores) << "\n";
        std::cout << "frontend:    " << engine::printable (info.frontendJson) << "\n";
        describeFeatures (*model);
        std::cout << "ops:         " << info.numNodes << " nodes:";
        for (const auto& [op, count] : info.opCounts)
            std::cout << " " << op << " " << count;
        std::size_t frontendFloats = 0;
        for (const char* name : { "frontend.window", "frontend.mel_fbanks" })
            if (const auto* tensor = model->storedTensor (name))
                frontendFloats += static_cast<std::size_t> (tensor->shape.numElements());
        const auto weights = info.numParameters - frontendFloats;
        std::cout << "\nparameters:  " << weights << " floats (" << kibibytes (weights * sizeof (float)) << ")";
        if (frontendFloats > 0)
            std::cout << " + front end window and mel filterbank " << frontendFloats << " floats";
        std::cout << "\n";
        std::cout << "activations: " << kibibytes (info.activationBytes) << " per session\n";
        char work[64];
        std::snprintf (work, sizeof work, "%.1f M", info.opsPerRun / 1e6);
        std::cout << "work:        " << work << " operations per run (multiply-adds of this path's matrix product; other steps weighed by their time)\n";
        if (info.frontend.has_value())
        {
            char line[160];
            std::snprintf (line, sizeof line, "%.1f M operations per window with every frame computed, %s of buffers per analyzer",
                           info.frontendOpsPerWindow / 1e6, kibibytes (info.frontendBytes).c_str());
            std::cout << "front end:   " << line << "\n";
        }
        std::snprintf (work, sizeof work, "%.1f", 2.0 * info.multiplyAdds / 1e6);
        std::cout << "flops:       " << work << " MFLOP per run (2 x multiply-adds of products and convolutions)\n";
        const auto& path = engine::activeKernelPath();
        std::cout << "kernels:     " << path.name << " (" << path.description << "; this CPU runs:";
        for (const auto& supported : engine::supportedKernelPaths())
            std::cout << " " << supported.name;
        std::cout << "; SONOTYPE_KERNELS picks a lower one)\n";
        if (! engine::kernelPathNote().empty())
            std::cout << "             " << engine::kernelPathNote() << "\n";
        std::cout << "load memory: " << kibibytes (info.loadBytes) << " (header, weights, tables, one session" << (info.frontend.has_value() ? ", one front end" : "") << ")\n";
        return 0;
    }
} // namespace

} // namespace sonotype::cli
