// The streaming runtime: same windows as the offline analyzer, real-time-safe push, skipping when
// late, lock-free readers.
#include "runtime/StreamingRuntime.h"
#include "support/Fixtures.h"
#include "support/ManualWorker.h"
#include "support/TestSignals.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <random>
#include <thread>

using namespace sonotype;
using namespace sonotype::runtime;
using namespace sonotype::testing;

namespace
{
std::shared_ptr<const engine::Model> tinyModel()
{
    static const auto model = engine::Model::load (fixturePath ("tiny_classifier.safetensors"));
    return model;
}

/** Every complete window of the whole signal, as the offline path computes them. */
std::vector<WindowResult> offlineWindows (const std::vector<float>& signal, double rate, double hop)
{
    WindowAnalyzer analyzer (tinyModel(), rate, hop);
    std::vector<WindowResult> results;
    for (std::size_t offset = 0; offset < signal.size(); offset += 4096)
    {
        analyzer.push (signal.data() + offset, std::min<std::size_t> (4096, signal.size() - offset));
        for (auto k = analyzer.nextWindow(); k <= analyzer.newestCompleteWindow(); ++k)
            analyzer.analyze (k, results.emplace_back());
    }
    analyzer.finish();
    for (auto k = analyzer.nextWindow(); k <= analyzer.newestCompleteWindow(); ++k)
        analyzer.analyze (k, results.emplace_back());
    return results;
}
} // namespace

TEST_CASE ("live and offline analysis give the same windows", "[runtime]")
{
    const double rate = GENERATE (44100.0, 48000.0, 96000.0);
    INFO ("host rate " << rate);
    const auto signal = testSignal (rate, 4.0);
    const auto offline = offlineWindows (signal, rate, 0.25);
    REQUIRE (offline.size() == 13); // windows k = 0..12 of 1 s every 0.25 s fit in 4 s

    StreamingRuntime runtime (tinyModel(), { 0.25, 0.0, 4.0, 64 }, std::make_unique<ManualWorker>());
    runtime.prepare (rate);
    std::mt19937 random (static_cast<unsigned> (rate));
    std::vector<float> left, right;
    std::size_t offset = 0;
    while (offset < signal.size())
    {
        const auto count = std::min<std::size_t> (std::uniform_int_distribution<std::size_t> (1, 4096) (random), signal.size() - offset);
        left.assign (signal.begin() + static_cast<std::ptrdiff_t> (offset), signal.begin() + static_cast<std::ptrdiff_t> (offset + count));
        right = left; // stereo with equal channels downmixes to the same mono signal
        const float* channels[] = { left.data(), right.data() };
        runtime.push (channels, 2, static_cast<int> (count));
        while (runtime.processPending())
        {
        }
        offset += count;
    }
    const auto live = runtime.history (64);
    const auto stats = runtime.stats();
    CHECK (stats.windowsSkipped == 0);
    CHECK (stats.fifoOverruns == 0);
    // Live stops where the resampler still holds samples back; every window it has, offline has.
    REQUIRE (live.size() >= offline.size() - 1);
    for (const auto& window : live)
    {
        REQUIRE (window.windowIndex < static_cast<int64_t> (offline.size()));
        const auto& reference = offline[static_cast<std::size_t> (window.windowIndex)];
        CHECK (window.startSeconds == reference.startSeconds);
        CHECK (window.topClass == reference.topClass);
        float worst = 0.0f;
        for (std::size_t c = 0; c < window.probabilities.size(); ++c)
            worst = std::max (worst, std::fabs (window.probabilities[c] - reference.probabilities[c]));
        CHECK (worst <= 1e-6f);
    }
}

TEST_CASE ("a late worker skips to the newest window and counts what it skipped", "[runtime]")
{
    StreamingRuntime runtime (tinyModel(), { 0.25, 0.0, 8.0, 64 }, std::make_unique<ManualWorker>());
    runtime.prepare (16000.0);
    const auto signal = testSignal (16000.0, 3.0);
    const float* channels[] = { signal.data() };
    runtime.push (channels, 1, static_cast<int> (signal.size())); // 3 s arrive while the worker sleeps
    REQUIRE (runtime.processPending());
    WindowResult newest;
    REQUIRE (runtime.latest (newest));
    CHECK (newest.windowIndex == 8); // [2.0, 3.0) is the newest complete window
    CHECK (runtime.stats().windowsSkipped == 8);
    CHECK (runtime.stats().windowsRun == 1);
    CHECK_FALSE (runtime.processPending());
}

TEST_CASE ("a full FIFO drops samples on the audio thread and counts them", "[runtime]")
{
    StreamingRuntime runtime (tinyModel(), { 0.25, 0.0, 0.5, 16 }, std::make_unique<ManualWorker>());
    runtime.prepare (16000.0);
    const auto signal = testSignal (16000.0, 3.0);
    const float* channels[] = { signal.data() };
    runtime.push (channels, 1, static_cast<int> (signal.size()));
    CHECK (runtime.stats().fifoOverruns > 0);
    CHECK (runtime.stats().fifoOverruns < static_cast<int64_t> (signal.size()));
}

TEST_CASE ("NaN and infinite samples become silence and are counted", "[runtime]")
{
    StreamingRuntime runtime (tinyModel(), {}, std::make_unique<ManualWorker>());
    runtime.prepare (16000.0);
    auto signal = testSignal (16000.0, 1.5);
    signal[100] = std::nanf ("");
    signal[200] = INFINITY;
    signal[300] = -INFINITY;
    const float* channels[] = { signal.data() };
    runtime.push (channels, 1, static_cast<int> (signal.size()));
    while (runtime.processPending())
    {
    }
    WindowResult result;
    REQUIRE (runtime.latest (result));
    CHECK (runtime.stats().nonFiniteSamples == 3);
    for (float p : result.probabilities)
        CHECK (std::isfinite (p));
}

TEST_CASE ("a clip's NaN and infinite samples are analyzed as the silence they become", "[runtime]")
{
    WindowAnalyzer analyzer (tinyModel(), 44100.0, 0.25);
    auto silenced = testSignal (44100.0, 0.8, 7);
    auto hostile = silenced;
    for (const std::size_t i : { std::size_t { 5 }, std::size_t { 1000 }, std::size_t { 20000 }, silenced.size() - 1 })
        silenced[i] = 0.0f;
    hostile[5] = std::nanf ("");
    hostile[1000] = INFINITY;
    hostile[20000] = -INFINITY;
    hostile.back() = std::nanf ("");
    WindowResult expected, got;
    analyzer.analyzeClip (silenced.data(), silenced.size(), expected);
    analyzer.analyzeClip (hostile.data(), hostile.size(), got);
    CHECK (got.probabilities == expected.probabilities); // bit for bit
}

TEST_CASE ("each clip is analyzed as by a fresh analyzer, whatever clips came before it", "[runtime]")
{
    const auto first = testSignal (44100.0, 0.6, 3), second = testSignal (44100.0, 0.3, 4);
    WindowAnalyzer used (tinyModel(), 44100.0, 0.25), fresh (tinyModel(), 44100.0, 0.25);
    WindowResult expected, got;
    used.analyzeClip (first.data(), first.size(), got);
    used.analyzeClip (second.data(), second.size(), got);
    fresh.analyzeClip (second.data(), second.size(), expected);
    CHECK (got.probabilities == expected.probabilities); // bit for bit
}

TEST_CASE ("the worker thread publishes results that readers take concurrently", "[runtime][threads]")
{
    StreamingRuntime runtime (tinyModel(), { 0.1, 0.5, 4.0, 32 });
    runtime.prepare (48000.0);
    std::atomic<bool> done { false };
    std::atomic<int> reads { 0 }, badReads { 0 };
    std::thread reader ([&] {
        WindowResult result;
        while (! done.load())
        {
            if (runtime.latest (result))
            {
                ++reads;
                float sum = 0.0f;
                for (float p : result.probabilities)
                    sum += p;
                if (std::fabs (sum - 1.0f) > 1e-4f || std::fabs (result.endSeconds - result.startSeconds - runtime.windowSeconds()) > 1e-9)
                    ++badReads;
            }
            (void) runtime.history (32);
        }
    });
    const auto signal = testSignal (48000.0, 3.0);
    for (std::size_t offset = 0; offset < signal.size(); offset += 480)
    {
        const float* channels[] = { signal.data() + offset };
        runtime.push (channels, 1, static_cast<int> (std::min<std::size_t> (480, signal.size() - offset)));
        std::this_thread::sleep_for (std::chrono::microseconds (500)); // 10 ms of audio every 0.5 ms
    }
    // Until the worker has analyzed everything (the event itself, not a time).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds (30);
    while (runtime.stats().analyzedSamples < static_cast<int64_t> (signal.size()) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for (std::chrono::milliseconds (1));
    done = true;
    reader.join();
    const auto stats = runtime.stats();
    REQUIRE (stats.analyzedSamples == static_cast<int64_t> (signal.size()));
    CHECK (stats.error.empty());
    CHECK (stats.windowsRun >= 1);
    // Every window complete in the 3 s (1 s every 0.1 s, as far as the resampler has let out) was
    // analyzed or counted as skipped.
    WindowAnalyzer all (tinyModel(), 48000.0, 0.1);
    all.push (signal.data(), signal.size());
    CHECK (stats.windowsRun + stats.windowsSkipped == all.newestCompleteWindow() + 1);
    CHECK (stats.meanInferenceMs > 0.0);
    CHECK (stats.maxInferenceMs >= stats.meanInferenceMs);
    CHECK (badReads == 0);
    const auto history = runtime.history (32);
    REQUIRE_FALSE (history.empty());
    for (std::size_t i = 1; i < history.size(); ++i)
        CHECK (history[i].windowIndex > history[i - 1].windowIndex);
    runtime.stop();
}

TEST_CASE ("reconfigure swaps the model between windows while audio keeps coming", "[runtime]")
{
    StreamingRuntime runtime (tinyModel(), { 0.25, 0.0, 8.0, 64 }, std::make_unique<ManualWorker>());
    std::vector<std::pair<uint64_t, double>> heard; // generation, hop of each listened result
    runtime.setResultListener ([&] (const WindowResult& result, const AnalysisInfo& info) {
        CHECK (result.generation == info.generation);
        heard.emplace_back (info.generation, info.hopSeconds);
    });
    runtime.prepare (48000.0);
    const auto first = runtime.info()->generation;
    const auto signal = testSignal (48000.0, 6.0);
    auto pushSeconds = [&] (double from, double to) {
        for (auto offset = static_cast<std::size_t> (from * 48000); offset < static_cast<std::size_t> (to * 48000); offset += 480)
        {
            const float* channels[] = { signal.data() + offset };
            runtime.push (channels, 1, 480);
            while (runtime.processPending())
            {
            }
        }
    };
    pushSeconds (0.0, 2.0);
    WindowResult before;
    REQUIRE (runtime.latest (before));
    CHECK (before.generation == first);

    const auto other = engine::Model::load (fixturePath ("tiny_classifier.safetensors")); // another model instance
    runtime.reconfigure (other, 0.5, 0.0);
    pushSeconds (2.0, 4.0);
    const auto second = runtime.info()->generation;
    CHECK (second > first);
    CHECK (runtime.info()->model == other);
    CHECK (runtime.info()->hopSeconds == 0.5);
    const auto results = runtime.history (64);
    REQUIRE (results.size() >= 2);
    for (const auto& result : results)
    {
        CHECK (result.generation == second);
        CHECK (result.startSeconds >= 2.0 - 1e-9); // stream time, not time since the swap
        CHECK (result.endSeconds <= 4.0 + 1e-9);
    }
    CHECK (results[1].startSeconds - results[0].startSeconds == Approx (0.5));
    CHECK (heard.front().first == first);
    CHECK (heard.back() == std::make_pair (second, 0.5));
    CHECK (runtime.stats().pushedSamples == 4 * 48000);
    CHECK (runtime.stats().error.empty());
}

TEST_CASE ("changing hop or smoothing keeps the model, the features, the history and the flow of results", "[runtime]")
{
    StreamingRuntime runtime (tinyModel(), { 0.25, 0.0, 8.0, 256 }, std::make_unique<ManualWorker>());
    std::vector<WindowResult> heard;
    runtime.setResultListener ([&] (const WindowResult& result, const AnalysisInfo&) { heard.push_back (result); });
    runtime.prepare (48000.0);
    const auto generation = runtime.info()->generation;
    const auto model = runtime.info()->model;
    const auto signal = testSignal (48000.0, 8.0);
    std::size_t offset = 0;
    auto pushUntil = [&] (double seconds) {
        for (; offset + 480 <= static_cast<std::size_t> (seconds * 48000); offset += 480)
        {
            const float* channels[] = { signal.data() + offset };
            runtime.push (channels, 1, 480);
            while (runtime.processPending())
            {
            }
        }
    };
    pushUntil (2.0);
    const auto historyBefore = runtime.history (256);
    REQUIRE (historyBefore.size() == 4); // windows [0,1) ... [0.75,1.75) (the resampler holds back [1,2)'s last samples)

    // Automation: the hop and the smoothing change every 0.3 s of audio, six times.
    const double hops[] = { 0.1, 0.5, 0.05, 0.3, 0.25, 0.07 };
    const double smoothings[] = { 0.5, 0.0, 1.0, 0.2, 0.0, 2.0 };
    double until = 2.0;
    for (int i = 0; i < 6; ++i)
    {
        runtime.reconfigure (nullptr, hops[i], smoothings[i]);
        until += 0.6;
        pushUntil (until);
        CHECK (runtime.info()->hopSeconds == hops[i]);
        CHECK (runtime.info()->smoothingSeconds == smoothings[i]);
    }
    CHECK (runtime.info()->generation == generation); // same model, same stream: same generation
    CHECK (runtime.info()->model == model);
    const auto history = runtime.history (256);
    REQUIRE (history.size() > historyBefore.size());
    for (std::size_t i = 0; i < historyBefore.size(); ++i) // the history before the changes is kept
    {
        CHECK (history[i].windowIndex == historyBefore[i].windowIndex);
        CHECK (history[i].endSeconds == historyBefore[i].endSeconds);
    }
    // Results kept coming: no gap longer than the largest hop in force around it (plus the
    // resampler's output bursts, ~70 ms), every window one window long and later than the one
    // before; the windows between two results are exactly those counted as skipped (live, the
    // worker analyses the newest window: soxr delivers ~70 ms at once, more than a 50 ms hop).
    int64_t skipped = 0;
    for (std::size_t i = 1; i < heard.size(); ++i)
    {
        INFO ("result " << i << ": window " << heard[i].windowIndex << " [" << heard[i].startSeconds << ", " << heard[i].endSeconds << ")");
        CHECK (heard[i].windowIndex > heard[i - 1].windowIndex);
        skipped += heard[i].windowIndex - heard[i - 1].windowIndex - 1;
        CHECK (heard[i].endSeconds > heard[i - 1].endSeconds);
        CHECK (heard[i].endSeconds - heard[i - 1].endSeconds <= 0.5 + 0.1);
        CHECK (heard[i].endSeconds - heard[i].startSeconds == Approx (runtime.windowSeconds()));
    }
    CHECK (heard.back().endSeconds >= until - 0.07 - 0.1); // up to date (the last hop, plus the resampler's delay)
    CHECK (runtime.stats().windowsSkipped == skipped);
    CHECK (runtime.stats().error.empty());
}

TEST_CASE ("prepare on one control thread and reconfigure on another take turns", "[runtime][threads]")
{
    // A standalone app: the device thread re-prepares (new rate) while the message thread applies
    // parameter changes or swaps models. The runtime must come out consistent, with the last hop.
    StreamingRuntime runtime (tinyModel(), { 0.25, 0.0, 4.0, 32 });
    runtime.prepare (48000.0);
    std::thread device ([&] {
        for (int i = 0; i < 40; ++i)
            runtime.prepare (i % 2 == 0 ? 44100.0 : 48000.0);
    });
    for (int i = 0; i < 40; ++i)
        runtime.reconfigure (nullptr, i % 2 == 0 ? 0.2 : 0.1, 0.0);
    device.join();
    runtime.prepare (48000.0); // the last device start
    CHECK (runtime.info()->hopSeconds == 0.1);
    const auto signal = testSignal (48000.0, 2.0);
    for (std::size_t offset = 0; offset + 480 <= signal.size(); offset += 480)
    {
        const float* channels[] = { signal.data() + offset };
        runtime.push (channels, 1, 480);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds (20);
    WindowResult result;
    while (! (runtime.latest (result) && result.endSeconds >= 1.9) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for (std::chrono::milliseconds (5));
    REQUIRE (runtime.latest (result));
    CHECK (result.generation == runtime.info()->generation);
    CHECK (result.endSeconds == Approx (2.0).margin (0.1));
    CHECK (runtime.stats().error.empty());
    runtime.stop();
}

TEST_CASE ("prepare at a rate the front end refuses throws and leaves the runtime stopped, the next prepare works", "[runtime]")
{
    StreamingRuntime runtime (tinyModel(), { 0.25, 0.0, 4.0, 32 }, std::make_unique<ManualWorker>());
    runtime.prepare (48000.0);
    CHECK_THROWS_AS (runtime.prepare (1234567.8), dsp::FrontendError);
    const auto signal = testSignal (48000.0, 2.0);
    const float* channels[] = { signal.data() };
    runtime.push (channels, 1, 480); // ignored: not prepared
    CHECK (runtime.stats().pushedSamples == 0);
    // Afterwards it runs like a runtime that never saw the bad rate.
    StreamingRuntime fresh (tinyModel(), { 0.25, 0.0, 4.0, 32 }, std::make_unique<ManualWorker>());
    runtime.prepare (48000.0);
    fresh.prepare (48000.0);
    for (auto* r : { &runtime, &fresh })
        for (std::size_t offset = 0; offset + 480 <= signal.size(); offset += 480)
        {
            const float* block[] = { signal.data() + offset };
            r->push (block, 1, 480);
            while (r->processPending())
            {
            }
        }
    WindowResult result, expected;
    REQUIRE (runtime.latest (result));
    REQUIRE (fresh.latest (expected));
    CHECK (result.windowIndex == expected.windowIndex);
    CHECK (result.endSeconds == expected.endSeconds);
    CHECK (result.probabilities == expected.probabilities);
}

TEST_CASE ("reconfigure rejects a bad hop and keeps the running settings", "[runtime]")
{
    StreamingRuntime runtime (tinyModel(), {}, std::make_unique<ManualWorker>());
    runtime.prepare (48000.0);
    const auto generation = runtime.info()->generation;
    CHECK_THROWS (runtime.reconfigure (nullptr, 0.0, 0.0));
    CHECK_THROWS (runtime.reconfigure (nullptr, -1.0, 0.0));
    CHECK (runtime.info()->generation == generation);
    CHECK (runtime.info()->hopSeconds == 0.25);
}

TEST_CASE ("a result is stale once more than two hops of audio arrived after it", "[runtime]")
{
    StreamingRuntime runtime (tinyModel(), { 0.25, 0.0, 8.0, 64 }, std::make_unique<ManualWorker>());
    runtime.prepare (16000.0);
    const auto signal = testSignal (16000.0, 3.0);
    const float* channels[] = { signal.data() };
    runtime.push (channels, 1, 16000 + 4000); // 1.25 s
    while (runtime.processPending())
    {
    }
    WindowResult result;
    REQUIRE (runtime.latest (result));
    CHECK_FALSE (runtime.isStale (result));
    // The worker stalls while 0.6 s more arrive: the newest result is now 0.6 s behind (> 2 hops).
    const float* more[] = { signal.data() + 20000 };
    runtime.push (more, 1, 9600);
    CHECK (runtime.isStale (result));
    while (runtime.processPending())
    {
    }
    REQUIRE (runtime.latest (result));
    CHECK_FALSE (runtime.isStale (result));
}

TEST_CASE ("a settings change right after a model swap builds on the pending swap, not on the running model", "[runtime]")
{
    // The plugin's state restore: the saved model is queued, then the restored hop and smoothing
    // are applied with "the current model" (null). The queued model must survive.
    StreamingRuntime runtime (tinyModel(), { 0.25, 0.0, 8.0, 64 }, std::make_unique<ManualWorker>());
    runtime.prepare (48000.0);
    const auto other = engine::Model::load (fixturePath ("tiny_classifier.safetensors")); // another instance
    REQUIRE (other != tinyModel());
    runtime.reconfigure (other, 0.25, 0.0);
    runtime.reconfigure (nullptr, 0.5, 0.2);
    runtime.processPending();
    CHECK (runtime.info()->model == other);
    CHECK (runtime.info()->hopSeconds == 0.5);
    CHECK (runtime.info()->smoothingSeconds == Approx (0.2));
    CHECK (runtime.stats().error.empty());
}

TEST_CASE ("after a FIFO overrun the timeline keeps the host's time and results are live again once the worker catches up", "[runtime]")
{
    StreamingRuntime runtime (tinyModel(), { 0.25, 0.0, 0.5, 64 }, std::make_unique<ManualWorker>());
    runtime.prepare (16000.0);
    const auto signal = testSignal (16000.0, 6.0);
    const float* all[] = { signal.data() };
    runtime.push (all, 1, 16000 * 3); // 3 s while the worker stalls: the FIFO takes ~2 s, the rest is dropped
    const auto dropped = runtime.stats().fifoOverruns;
    REQUIRE (dropped > 0);
    while (runtime.processPending())
    {
    }
    // The worker caught up: its stream position counts the dropped samples as time that passed.
    CHECK (runtime.stats().inputSamples == runtime.stats().pushedSamples);
    for (int offset = 16000 * 3; offset + 160 <= 16000 * 6; offset += 160)
    {
        const float* block[] = { signal.data() + offset };
        runtime.push (block, 1, 160);
        while (runtime.processPending())
        {
        }
    }
    WindowResult result;
    REQUIRE (runtime.latest (result));
    INFO ("newest window ends at " << result.endSeconds << " s of 6 s pushed, " << dropped << " samples dropped");
    CHECK (result.endSeconds <= 6.0 + 1e-9);
    CHECK (result.endSeconds >= 6.0 - 0.25 - 1e-9); // the host's time, not 6 s minus what was dropped
    CHECK_FALSE (runtime.isStale (result));
    CHECK (runtime.stats().fifoOverruns == dropped);
    CHECK (runtime.stats().inputSamples == 16000 * 6);
    const auto history = runtime.history (64);
    for (std::size_t i = 1; i < history.size(); ++i)
        CHECK (history[i].startSeconds > history[i - 1].startSeconds);
}

TEST_CASE ("a worker that runs out of memory reports it, and an offline audio thread stops waiting for it", "[runtime][threads]")
{
    StreamingRuntime runtime (tinyModel(), { 0.25, 0.0, 4.0, 16 });
    runtime.setResultListener ([] (const WindowResult&, const AnalysisInfo&) { throw std::bad_alloc(); });
    runtime.setNonRealtime (true);
    runtime.prepare (16000.0);
    const auto signal = testSignal (16000.0, 2.0);
    const float* channels[] = { signal.data() };
    runtime.push (channels, 1, static_cast<int> (signal.size()));
    CHECK_FALSE (runtime.waitUntilAnalyzed (30.0)); // the worker is gone: no result will come
    CHECK (runtime.stats().error.find ("bad_alloc") != std::string::npos);
    runtime.push (channels, 1, static_cast<int> (signal.size())); // a full FIFO: dropped at once, no waiting on a dead worker
    CHECK (runtime.stats().fifoOverruns >= 0);
    runtime.stop();
}

TEST_CASE ("the analyzer says how much audio its next window still needs, as newestCompleteWindow() counts it", "[runtime]")
{
    // What an idle worker sleeps by: 0 exactly when the window is complete, and otherwise the audio
    // still to come, which shrinks by what arrives.
    const double rate = GENERATE (16000.0, 44100.0);
    INFO ("host rate " << rate);
    const auto signal = testSignal (rate, 3.0);
    WindowAnalyzer analyzer (tinyModel(), rate, 0.25);
    double before = analyzer.secondsUntilComplete (0);
    CHECK (before == Approx (analyzer.windowSeconds()));
    int complete = 0;
    for (std::size_t offset = 0; offset < signal.size(); offset += 1000)
    {
        analyzer.push (signal.data() + offset, std::min<std::size_t> (1000, signal.size() - offset));
        const auto k = analyzer.nextWindow();
        const double missing = analyzer.secondsUntilComplete (k);
        CHECK ((missing == 0.0) == (analyzer.newestCompleteWindow() >= k));
        CHECK (missing <= before);
        if (missing == 0.0)
        {
            WindowResult result;
            analyzer.analyze (k, result);
            ++complete;
            CHECK (analyzer.secondsUntilComplete (k + 1) <= 0.25 + 1e-9); // the next one is a hop later at most
            before = analyzer.secondsUntilComplete (k + 1);
        }
        else
            before = missing;
    }
    CHECK (complete >= 6);
}
