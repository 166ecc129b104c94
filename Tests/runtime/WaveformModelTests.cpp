// Models with a waveform front end (features computed inside the model): the analyzer
// feeds each window's raw samples at the model's rate, offline and live.
#include "cli/Npy.h"
#include "runtime/StreamingRuntime.h"
#include "support/Fixtures.h"
#include "support/ManualWorker.h"
#include "support/TestSignals.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

using namespace sonotype;
using namespace sonotype::runtime;
using namespace sonotype::testing;

namespace
{
std::shared_ptr<const engine::Model> waveformModel()
{
    static const auto model = engine::Model::load (fixturePath ("waveform_classifier.safetensors"));
    return model;
}
} // namespace

TEST_CASE ("a waveform model's window is its raw samples: PyTorch's output on the same samples", "[runtime][waveform]")
{
    WindowAnalyzer analyzer (waveformModel(), 16000.0, 0.25);
    CHECK (analyzer.settings().isWaveform());
    CHECK (analyzer.settings().sampleRate == 16000.0);
    CHECK (analyzer.windowSeconds() == 1.0);
    const auto input = cli::readNpy (fixturePath ("waveform_classifier.input.npy"));
    const auto expected = cli::readNpy (fixturePath ("waveform_classifier.expected.npy"));
    REQUIRE (input.data.size() == 16000);
    REQUIRE (expected.data.size() == 4);
    analyzer.push (input.data.data(), input.data.size());
    REQUIRE (analyzer.newestCompleteWindow() == 0);
    WindowResult result;
    analyzer.analyze (0, result);

    // PyTorch's softmax of its logits on exactly these samples.
    const float maximum = *std::max_element (expected.data.begin(), expected.data.end());
    std::vector<double> probabilities;
    double sum = 0.0;
    for (float logit : expected.data)
        sum += probabilities.emplace_back (std::exp (static_cast<double> (logit - maximum)));
    REQUIRE (result.probabilities.size() == 4);
    for (std::size_t c = 0; c < 4; ++c)
        CHECK (std::fabs (result.probabilities[c] - probabilities[c] / sum) <= 1e-5);
    CHECK (result.topClass == static_cast<int> (std::max_element (expected.data.begin(), expected.data.end()) - expected.data.begin()));
}

TEST_CASE ("a waveform model runs live at host rates, resampled to its rate, as offline", "[runtime][waveform]")
{
    const double rate = GENERATE (44100.0, 48000.0);
    INFO ("host rate " << rate);
    const auto signal = testSignal (rate, 3.0);
    WindowAnalyzer offlineAnalyzer (waveformModel(), rate, 0.25);
    std::vector<WindowResult> offline;
    offlineAnalyzer.push (signal.data(), signal.size());
    offlineAnalyzer.finish();
    for (auto k = offlineAnalyzer.nextWindow(); k <= offlineAnalyzer.newestCompleteWindow(); ++k)
        offlineAnalyzer.analyze (k, offline.emplace_back());
    REQUIRE (offline.size() == 9); // windows k = 0..8 of 1 s every 0.25 s fit in 3 s

    StreamingRuntime runtime (waveformModel(), { 0.25, 0.0, 4.0, 64 }, std::make_unique<ManualWorker>());
    runtime.prepare (rate);
    std::mt19937 random (static_cast<unsigned> (rate));
    std::vector<float> block;
    for (std::size_t offset = 0; offset < signal.size();)
    {
        const auto count = std::min<std::size_t> (std::uniform_int_distribution<std::size_t> (1, 2048) (random), signal.size() - offset);
        block.assign (signal.begin() + static_cast<std::ptrdiff_t> (offset), signal.begin() + static_cast<std::ptrdiff_t> (offset + count));
        const float* channels[] = { block.data() };
        runtime.push (channels, 1, static_cast<int> (count));
        while (runtime.processPending())
        {
        }
        offset += count;
    }
    const auto live = runtime.history (64);
    CHECK (runtime.stats().windowsSkipped == 0);
    REQUIRE (live.size() >= offline.size() - 1);
    float spread = 0.0f;
    for (const auto& window : live)
    {
        REQUIRE (window.windowIndex < static_cast<int64_t> (offline.size()));
        const auto& reference = offline[static_cast<std::size_t> (window.windowIndex)];
        CHECK (window.topClass == reference.topClass);
        float worst = 0.0f;
        for (std::size_t c = 0; c < window.probabilities.size(); ++c)
            worst = std::max (worst, std::fabs (window.probabilities[c] - reference.probabilities[c]));
        CHECK (worst <= 1e-6f);
        spread = std::max (spread, std::fabs (window.probabilities[0] - live.front().probabilities[0]));
    }
    CHECK (spread > 1e-3f); // the windows differ: the signal's content changes every 0.7 s
}
