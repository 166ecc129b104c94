// libFuzzer target: a model file from a stranger. Bytes -> engine::Model::fromMemory -> one
// Session::run on zeros -> the outputs read; then, for a model with a log-mel front end, one window
// of audio through dsp::LogMelSpectrogram into the model's input and another run (the front end's
// settings, buffers and work are validated and claimed at load: they must hold). Anything but a
// ModelError on the way is a finding (crash, sanitizer report, uncaught exception, out-of-memory,
// timeout).
//
// The inputs are whole model files (safetensors), so a finding is also a file that the CLI
// reproduces: `sonotype inspect FILE`. ModelMutator.h adds a structure-aware mutator that edits the
// graph JSON inside the header and keeps the header length right.
#include "dsp/LogMelSpectrogram.h"
#include "engine/Model.h"
#include "engine/Session.h"
#include "engine/file/LoadLimits.h"
#include "engine/file/ModelError.h"

#include "ModelMutator.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace
{
// ----- the memory and work budgets ----------------------------------------------------------------
// What a hostile file may make the engine spend, small enough that libFuzzer's limits
// (scripts/fuzz.sh: -malloc_limit_mb, -rss_limit_mb, -timeout) catch anything that gets past them.
constexpr std::size_t kFuzzMemoryBytes = std::size_t { 256 } << 20; // 256 MiB
constexpr double kFuzzOpsPerRun = 1e8;

std::shared_ptr<const sonotype::engine::Model> load (const std::uint8_t* data, std::size_t size)
{
    sonotype::engine::LoadLimits limits;
    limits.maxMemoryBytes = kFuzzMemoryBytes;
    limits.maxOpsPerRun = kFuzzOpsPerRun;
    return sonotype::engine::Model::fromMemory (data, size, "fuzz input", limits);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput (const std::uint8_t* data, std::size_t size)
{
    std::shared_ptr<const sonotype::engine::Model> model;
    try
    {
        model = load (data, size);
    }
    catch (const sonotype::engine::ModelError&)
    {
        return 0; // refused with a message: the expected outcome for nearly every input
    }
    if (model == nullptr)
    {
        std::fprintf (stderr, "Model::fromMemory returned null without an error\n");
        std::abort();
    }

    sonotype::engine::Session session (model);
    const auto& info = model->info();
    for (std::size_t i = 0; i < info.inputShapes.size(); ++i)
        for (auto& value : session.input (i))
            value = 0.0f;
    session.run();

    // Read every output value, so that an output placed outside the arena is caught here.
    volatile float sink = 0.0f;
    const auto readOutputs = [&] {
        for (std::size_t i = 0; i < info.outputShapes.size(); ++i)
            for (const float value : session.output (i))
                sink = sink + value;
    };
    readOutputs();

    // The front end, as the runtime feeds the model: one window of a tone, every frame computed.
    if (info.frontend.has_value() && ! info.frontend->isWaveform())
    {
        const auto& settings = *info.frontend;
        sonotype::dsp::LogMelSpectrogram logMel (settings);
        std::vector<float> samples (static_cast<std::size_t> (settings.windowSamples));
        for (std::size_t i = 0; i < samples.size(); ++i)
            samples[i] = (i % 64 < 32) ? 0.25f : -0.25f;
        auto input = session.input (0);
        if (input.size() != static_cast<std::size_t> (settings.nMels) * static_cast<std::size_t> (settings.numFrames (settings.windowSamples)))
        {
            std::fprintf (stderr, "the front end's features do not fill the model's input\n");
            std::abort();
        }
        logMel.computeWindow (samples.data(), settings.windowSamples, 0, input.data());
        session.run();
        readOutputs();
    }
    (void) sink;
    return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator (std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned int seed)
{
    return sonotype::fuzz::mutateModelFile (data, size, maxSize, seed);
}
