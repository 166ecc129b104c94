// Google Benchmark programs for the runtime layer, with the built-in model (run by
// Benchmarks/python/driver.py with --benchmark_format=json; the counters carry the figures it reports):
//   BM_Push/B             StreamingRuntime::push() of stereo blocks of B frames, FIFO included:
//                         counter ns_per_frame (one stereo frame = one sample per channel)
//   BM_LogMelStream       the log-mel front end at the default hop (0.25 s), frames shared between
//                         overlapping windows as the runtime computes them: counter us_per_audio_second
//   BM_LogMelWindow       one 1 s window computed from scratch (no frame reuse): us_per_audio_second
//   BM_AnalyzerPath       WindowAnalyzer at 48 kHz: resampling + front end + model, one window per
//                         hop, as the live worker and `sonotype classify` run it: us_per_audio_second
#include "dsp/LogMelSpectrogram.h"
#include "engine/file/FrontendSettings.h"
#include "resources/BuiltinModel.h"
#include "runtime/StreamingRuntime.h"
#include "runtime/WindowAnalyzer.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

namespace
{

using namespace sonotype;

constexpr double kHostRate = 48000.0;
constexpr double kHopSeconds = 0.25;

std::vector<float> testSignal (std::size_t numSamples, double rate, unsigned seed)
{
    std::mt19937 random (seed);
    std::normal_distribution<float> noise (0.0f, 0.05f);
    std::vector<float> signal (numSamples);
    for (std::size_t i = 0; i < numSamples; ++i)
    {
        const auto t = static_cast<double> (i) / rate;
        signal[i] = 0.3f * static_cast<float> (std::sin (2.0 * M_PI * 220.0 * t) + 0.5 * std::sin (2.0 * M_PI * 660.0 * t)) + noise (random);
    }
    return signal;
}

/** A worker that runs nothing: the benchmark drains the FIFO itself (processPending(), timing paused). */
class ManualWorker final : public runtime::WorkerThread
{
public:
    void start (std::function<void()>) override {}
    void join() override {}
};

void BM_Push (benchmark::State& state)
{
    const auto blockSize = static_cast<int> (state.range (0));
    // The default FIFO (4 s); a long hop only makes the untimed drains cheaper (fewer inferences), so
    // that the benchmark spends its time in push(). push() does the same work at any hop.
    runtime::RuntimeOptions options;
    options.hopSeconds = 3.0;
    runtime::StreamingRuntime streaming (resources::builtinModel(), options, std::make_unique<ManualWorker>());
    streaming.prepare (kHostRate);
    const auto left = testSignal (static_cast<std::size_t> (blockSize), kHostRate, 1);
    const auto right = testSignal (static_cast<std::size_t> (blockSize), kHostRate, 2);
    const float* channels[] = { left.data(), right.data() };
    // Drain well before the FIFO (4 s) fills, so that every push copies its block in (no overruns).
    const auto drainEvery = static_cast<int64_t> (kHostRate * 2.0);
    int64_t sinceDrain = 0;
    for (auto _ : state)
    {
        streaming.push (channels, 2, blockSize);
        sinceDrain += blockSize;
        if (sinceDrain >= drainEvery)
        {
            state.PauseTiming();
            streaming.processPending();
            sinceDrain = 0;
            state.ResumeTiming();
        }
    }
    const auto stats = streaming.stats();
    if (stats.fifoOverruns != 0)
        state.SkipWithError ("the FIFO overran: the figure would include dropped blocks");
    state.SetItemsProcessed (state.iterations() * blockSize);
    state.counters["ns_per_frame"] = benchmark::Counter (static_cast<double> (state.iterations()) * blockSize * 1e-9,
                                                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
// The untimed drains (resampling, an inference every 3 s) cost ~30x the timed pushes: a short
// timed minimum (0.02 s = ~10^7 frames pushed) keeps the wall time to seconds.
BENCHMARK (BM_Push)->Arg (32)->Arg (128)->Arg (512)->Arg (4096)->MinTime (0.02);

void BM_LogMelStream (benchmark::State& state)
{
    const auto model = resources::builtinModel(); // its stored window and filterbank are viewed by the settings
    const auto& settings = *model->info().frontend;
    dsp::LogMelSpectrogram logMel (settings);
    const auto hop = static_cast<int64_t> (settings.sampleRate * kHopSeconds);
    const auto window = settings.windowSamples;
    const auto signal = testSignal (static_cast<std::size_t> (settings.sampleRate * 60.0), settings.sampleRate, 3);
    std::vector<float> features (static_cast<std::size_t> (settings.nMels * settings.numFrames (window)));
    int64_t start = 0;
    for (auto _ : state)
    {
        if (start + window > static_cast<int64_t> (signal.size()))
            start = 0; // (frames of the new stream position are not in the cache: a few recomputed)
        logMel.computeWindow (signal.data() + start, window, start, features.data());
        benchmark::DoNotOptimize (features.data());
        start += hop;
    }
    state.counters["us_per_audio_second"] = benchmark::Counter (static_cast<double> (state.iterations()) * kHopSeconds * 1e-6,
                                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK (BM_LogMelStream);

void BM_LogMelWindow (benchmark::State& state)
{
    const auto model = resources::builtinModel(); // its stored window and filterbank are viewed by the settings
    const auto& settings = *model->info().frontend;
    dsp::LogMelSpectrogram logMel (settings);
    const auto window = settings.windowSamples;
    const auto signal = testSignal (static_cast<std::size_t> (window), settings.sampleRate, 4);
    std::vector<float> features (static_cast<std::size_t> (settings.nMels * settings.numFrames (window)));
    for (auto _ : state)
    {
        logMel.compute (signal.data(), window, features.data());
        benchmark::DoNotOptimize (features.data());
    }
    const auto windowSeconds = window / settings.sampleRate;
    state.counters["us_per_audio_second"] = benchmark::Counter (static_cast<double> (state.iterations()) * windowSeconds * 1e-6,
                                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK (BM_LogMelWindow);

void BM_AnalyzerPath (benchmark::State& state)
{
    runtime::WindowAnalyzer analyzer (resources::builtinModel(), kHostRate, kHopSeconds);
    const auto hop = static_cast<std::size_t> (kHostRate * kHopSeconds);
    const auto signal = testSignal (static_cast<std::size_t> (kHostRate * 30.0), kHostRate, 5);
    std::size_t offset = 0;
    runtime::WindowResult result;
    for (auto _ : state)
    {
        if (offset + hop > signal.size())
            offset = 0; // the stream goes on (the same samples again)
        analyzer.push (signal.data() + offset, hop);
        offset += hop;
        for (auto k = analyzer.nextWindow(); k <= analyzer.newestCompleteWindow(); ++k)
            analyzer.analyze (k, result);
        benchmark::DoNotOptimize (result);
    }
    state.counters["us_per_audio_second"] = benchmark::Counter (static_cast<double> (state.iterations()) * kHopSeconds * 1e-6,
                                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK (BM_AnalyzerPath);

} // namespace

BENCHMARK_MAIN();
