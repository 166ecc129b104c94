// `sonotype run-model MODEL --input IN.npy --output OUT.npy`: runs the raw graph on one input.
#include "cli/Arguments.h"
#include "cli/Commands.h"
#include "cli/ModelLoading.h"
#include "cli/ModelProfile.h"
#include "cli/Npy.h"
#include "engine/file/ModelError.h"
#include "engine/Session.h"

#include <algorithm>
#include <chrono>
#include <iostream>

namespace sonotype::cli
{
namespace
{
    constexpr const char* kHelp = R"(usage: sonotype run-model MODEL.safetensors --input IN.npy [--output OUT.npy] [--output-index N]
                          [--benchmark N] [--profile]

Runs the model's graph on a float32 .npy array of the model's input shape and writes
output N (default 0) as a float32 .npy array. Used to check parity with PyTorch, and to
time a model and see where its time goes.

options:
  --input IN.npy       float32 array, shape exactly the exported input shape
  --output OUT.npy     where to write the output (none written without it)
  --output-index N     which model output to write (default 0)
  --benchmark N        also run the model N more times and print the mean time per run to stderr
  --profile            time every node over the benchmark's runs (100 without --benchmark) and
                       print the time per op kind and the slowest nodes to stdout
  --help               show this help
)";
} // namespace

int runModelCommand (const std::vector<std::string>& args)
{
    const Arguments arguments (args, withModelLimitOptions ({ "--input", "--output", "--output-index", "--benchmark" }), { "--help", "--profile" });
    if (arguments.flag ("--help"))
    {
        std::cout << kHelp << kModelLimitHelp;
        return 0;
    }
    if (arguments.positionals().size() != 1)
        throw UsageError ("run-model needs exactly one MODEL file (see sonotype run-model --help)");
    const auto& inputPath = arguments.value ("--input");
    const auto outputPath = arguments.valueOr ("--output", "");
    std::size_t outputIndex = 0;
    try
    {
        outputIndex = static_cast<std::size_t> (std::stoul (arguments.valueOr ("--output-index", "0")));
    }
    catch (const std::exception&)
    {
        throw UsageError ("--output-index must be a non-negative integer");
    }

    const auto model = loadModel (arguments.positionals()[0], arguments);
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
    int runs = arguments.has ("--benchmark") ? 0 : 100;
    if (arguments.has ("--benchmark"))
    {
        try
        {
            runs = std::stoi (arguments.value ("--benchmark"));
        }
        catch (const std::exception&)
        {
        }
        if (runs < 1 || runs > 1000000)
            throw UsageError ("--benchmark must be a number of runs from 1 to 1000000");
    }
    if (arguments.flag ("--profile"))
        printProfile (session, runs, std::cout);
    else if (arguments.has ("--benchmark"))
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

} // namespace sonotype::cli
