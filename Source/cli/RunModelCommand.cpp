// `sonotype run-model MODEL --input IN.npy --output OUT.npy`: runs the raw graph on one input.
#include "cli/Commands.h"
#include "cli/ModelLoading.h"
#include "cli/ModelProfile.h"
#include "cli/Npy.h"
#include "engine/Session.h"
#include "engine/file/ModelError.h"

#include <algorithm>
#include <chrono>
#include <iostream>

namespace sonotype::cli
{
namespace
{
    constexpr const char* kDescription = R"(Runs the model's graph on a float32 .npy array of the model's input shape and writes
output N (default 0) as a float32 .npy array. Used to check parity with PyTorch, and to
time a model and see where its time goes.)";

    struct Options
    {
        std::vector<std::string> models;
        std::string inputPath, outputPath;
        std::size_t outputIndex = 0;
        int benchmarkRuns = 0; // 0: no --benchmark
        bool profile = false;
        ModelLimitOptions limits;
    };

    int runModel (const Options& options);
} // namespace

CommandRun addRunModelCommand (CLI::App& app)
{
    auto options = std::make_shared<Options>();
    auto* command = addCommand (app, "run-model", "run a model's graph on a .npy input, write the output as .npy", kDescription);
    command->add_option ("--input", options->inputPath, "float32 array, shape exactly the exported input shape")->type_name ("IN.npy")->required();
    command->add_option ("--output", options->outputPath, "where to write the output (none written without it)")->type_name ("OUT.npy");
    addWholeOption (*command, "--output-index", options->outputIndex, std::size_t { 0 }, std::size_t { 1 } << 20, "N", "which model output to write (default 0)");
    addWholeOption (*command, "--benchmark", options->benchmarkRuns, 1, 1000000, "N",
                    "also run the model N more times and print the mean time per run to stderr");
    command->add_flag ("--profile", options->profile,
                       "time every node over the benchmark's runs (100 without --benchmark) and\n"
                       "print the time per op kind and the slowest nodes to stdout");
    command->add_option ("MODEL", options->models, "the model file (.safetensors)")->option_text ("MODEL.safetensors");
    addModelLimitOptions (*command, options->limits);
    return [options] { return runModel (*options); };
}

namespace
{
    int runModel (const Options& options)
    {
        if (options.models.size() != 1)
            throw UsageError ("run-model needs exactly one MODEL file (see sonotype run-model --help)");
        const auto& inputPath = options.inputPath;
        const auto& outputPath = options.outputPath;
        const auto outputIndex = options.outputIndex;

        const auto model = loadModel (options.models[0], options.limits);
        const auto& info = model->info();
        if (info.inputShapes.size() != 1)
            throw engine::ModelError ("run-model handles models with one input; this one has " + std::to_string (info.inputShapes.size()));
        if (outputIndex >= info.outputShapes.size())
            throw UsageError ("--output-index " + std::to_string (outputIndex) + ": the model has " + std::to_string (info.outputShapes.size()) + " outputs");

        const auto input = readNpy (inputPath);
        const auto& expected = info.inputShapes[0];
        bool shapeMatches = static_cast<int> (input.shape.size()) == expected.rank();
        for (int axis = 0; shapeMatches && axis < expected.rank(); ++axis)
            shapeMatches = input.shape[static_cast<std::size_t> (axis)] == expected[axis];
        if (! shapeMatches)
        {
            std::string got = "[";
            for (std::size_t i = 0; i < input.shape.size(); ++i)
                got += (i ? ", " : "") + std::to_string (input.shape[i]);
            throw NpyError ("input '" + inputPath + "' has shape " + got + "], the model expects " + expected.toString());
        }

        engine::Session session (model);
        std::copy (input.data.begin(), input.data.end(), session.input (0).begin());
        session.run();
        const int runs = options.benchmarkRuns > 0 ? options.benchmarkRuns : 100;
        if (options.profile)
            printProfile (session, runs, std::cout);
        else if (options.benchmarkRuns > 0)
        {
            const auto started = std::chrono::steady_clock::now();
            for (int i = 0; i < runs; ++i)
                session.run();
            const auto elapsed = std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now() - started).count();
            std::cerr << "benchmark: " << runs << " runs, mean " << elapsed / runs << " ms per run (one thread)\n";
        }
        if (outputPath.empty())
            return 0;
        const auto output = session.output (outputIndex);
        NpyArray result;
        const auto& shape = info.outputShapes[outputIndex];
        for (int axis = 0; axis < shape.rank(); ++axis)
            result.shape.push_back (shape[axis]);
        result.data.assign (output.begin(), output.end());
        writeNpy (outputPath, result);
        return 0;
    }
} // namespace

} // namespace sonotype::cli
