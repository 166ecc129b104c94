// The front end inside the memory budget: what a model's front end declares at load
// (engine::FrontendSettings::cost, claimed from the budget) is at least what an analyzer allocates
// for it while it runs: its log-mel buffers, FFTW's plan, the resampler and the stream of samples.
#include "runtime/WindowAnalyzer.h"
#include "support/AllocationCounter.h"
#include "support/GraphBuilder.h"
#include "support/TestSignals.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** A model that takes [1, n_mels, frames] (or a waveform) and averages it, with this front end. */
std::shared_ptr<const engine::Model> modelWithFrontend (const std::string& frontend, const GraphBuilder::Dims& input)
{
    GraphBuilder g;
    const int x = g.input (input);
    std::string axes;
    GraphBuilder::Dims ones;
    for (std::size_t i = 0; i < input.size(); ++i)
    {
        axes += (i ? "," : "") + std::to_string (i);
        ones.push_back (1);
    }
    const int y = g.node ("reduce_mean", { x }, { ones }, R"("axes":[)" + axes + R"(],"keepdim":true)");
    return g.load ({ y }, {}, { { "frontend", frontend } });
}
} // namespace

TEST_CASE ("a front end allocates no more than its model claimed at load", "[runtime][frontend]")
{
    struct Case
    {
        const char* name;
        std::string frontend;
        GraphBuilder::Dims input;
        double inputRate = 44100.0;
        std::size_t block = 512; // input samples per push
    };
    const Case cases[] = {
        { "16 kHz, 64 bands, 1 s", R"({"sample_rate":16000,"n_fft":400,"hop_length":160,"n_mels":64,"log":{"type":"db","top_db":80}})", { 1, 64, 101 } },
        { "n_fft 4096, 128 bands, 2 s", R"({"sample_rate":22050,"n_fft":4096,"hop_length":512,"n_mels":128})", { 1, 128, 87 } },
        { "hop 1, 20000 frames", R"({"sample_rate":16000,"n_fft":64,"hop_length":1,"n_mels":32,"log":{"type":"log"}})", { 1, 32, 20000 } },
        { "prime n_fft 4093", R"({"sample_rate":16000,"n_fft":4093,"hop_length":1000,"n_mels":40,"center":false})", { 40, 13 } },
        { "waveform, 2 s", R"({"type":"waveform","sample_rate":16000,"window_samples":32000})", { 1, 32000 } },
        // 8 kHz audio into a 192 kHz model, pushed in blocks of 2 s as classify pushes: 24 times as
        // many samples come out of the resampler as go in.
        { "8 kHz into 192 kHz, 2 s blocks", R"({"type":"waveform","sample_rate":192000,"window_samples":96000})", { 96000 }, 8000.0, 16000 },
    };
    for (const auto& c : cases)
    {
        INFO (c.name);
        const auto model = modelWithFrontend (c.frontend, c.input);
        const auto declared = model->info().frontendBytes;
        REQUIRE (declared > 0);
        const auto audio = testSignal (c.inputRate, 3.0);
        long long used = 0;
        {
            ScopedAllocationCounter counter;
            runtime::WindowAnalyzer analyzer (model, c.inputRate, 0.25);
            runtime::WindowResult result;
            result.probabilities.reserve (8);
            for (std::size_t i = 0; i < audio.size(); i += c.block)
            {
                analyzer.push (audio.data() + i, std::min<std::size_t> (c.block, audio.size() - i));
                for (auto k = analyzer.nextWindow(); k <= analyzer.newestCompleteWindow(); ++k)
                    analyzer.analyze (k, result);
            }
            used = counter.counts().peakBytes;
        }
        // The session's arena is claimed by the model's activations, not by the front end.
        used -= static_cast<long long> (model->info().activationBytes);
        INFO ("declared " << declared << " bytes, allocated " << used);
        CHECK (used <= static_cast<long long> (declared));
        CHECK (used * 8 >= static_cast<long long> (declared)); // and not a guess far above it
    }
}
