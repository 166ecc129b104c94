// timeline::analyzeFile, the one file loop of `sonotype classify` and the app: its windows are the
// window analyzer's for the file's samples, its segments the timeline's for those windows and the
// samples' sound-change curve; a short file and a tail get their true times, by default; the tail is the analysis of the file's last window of
// samples, smoothed with the windows before it; each window comes with the model's embedding of it
// (classify --embeddings); a stop request ends the analysis early; a file that is not audio is
// refused; files through one analyzer cache (classify's jobs) get what a fresh analyzer gives each.
// A file's hits (analyzeHits) come as they are found, with the file's length first and the
// progress after each block, as the app's Files view shows them, and a stop ends that early too.
#include "dsp/SoundChange.h"
#include "formats/AudioFileReader.h"
#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"
#include "support/ExampleClips.h"
#include "timeline/FileAnalysis.h"
#include "timeline/HitAnalysis.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <unistd.h>

namespace sonotype::testing
{
namespace
{
    std::string scratch (const std::string& name)
    {
        return "/tmp/sonotype-file-analysis-test-" + std::to_string (::getpid()) + "-" + name;
    }

    /** Writes `samples` as a mono 32-bit float WAV (exact: the analysis sees these very samples). */
    void writeWav (const std::string& path, const std::vector<float>& samples, double rate)
    {
        juce::File file (path);
        file.deleteFile();
        juce::WavAudioFormat wav;
        std::unique_ptr<juce::AudioFormatWriter> writer (wav.createWriterFor (file.createOutputStream().release(), rate, 1, 32, {}, 0));
        REQUIRE (writer != nullptr);
        const float* channels[] = { samples.data() };
        REQUIRE (writer->writeFromFloatArrays (channels, 1, static_cast<int> (samples.size())));
    }

    struct Recorded
    {
        std::vector<runtime::WindowResult> windows;
        std::vector<timeline::WindowFlags> flags;   // embedding: cleared (the span lives only during the callback)
        std::vector<std::vector<float>> embeddings; // each window's, copied
        timeline::FileAnalysisResult result;
    };

    Recorded analyze (const std::string& path, const timeline::FileAnalysisSettings& settings, timeline::ReusedAnalyzer* cache = nullptr)
    {
        Recorded recorded;
        timeline::FileAnalysisCallbacks callbacks;
        callbacks.onWindow = [&] (const runtime::WindowResult& window, timeline::WindowFlags flags) {
            recorded.windows.push_back (window);
            recorded.embeddings.emplace_back (flags.embedding.begin(), flags.embedding.end());
            flags.embedding = {};
            recorded.flags.push_back (flags);
        };
        recorded.result = cache != nullptr ? timeline::analyzeFile (path, resources::builtinModel(), settings, callbacks, *cache)
                                           : timeline::analyzeFile (path, resources::builtinModel(), settings, callbacks);
        return recorded;
    }
} // namespace

TEST_CASE ("a file's windows are the window analyzer's for its samples, its segments the timeline's for those windows and sound", "[timeline]")
{
    constexpr double kRate = 22050.0;
    const auto samples = exampleSequence ({ "speech", "drums", "piano" }, kRate, 1);
    const auto path = scratch ("sequence.wav");
    writeWav (path, samples, kRate);

    timeline::FileAnalysisSettings settings;
    settings.hopSeconds = 0.5;
    settings.smoothingSeconds = 0.3;
    settings.toEnd = false; // the windows on the grid alone: the analyzer's
    const auto recorded = analyze (path, settings);

    // The same samples through an analyzer of our own, in blocks of another size (1 s, not the file loop's 16384 samples).
    runtime::WindowAnalyzer analyzer (resources::builtinModel(), kRate, settings.hopSeconds, settings.smoothingSeconds);
    dsp::SoundChange change (kRate);
    std::vector<timeline::ScoredWindow> scored;
    std::vector<runtime::WindowResult> expected;
    std::vector<std::vector<float>> expectedEmbeddings;
    auto analyzeReady = [&] {
        for (auto k = analyzer.nextWindow(); k <= analyzer.newestCompleteWindow(); ++k)
        {
            runtime::WindowResult window;
            analyzer.analyze (k, window);
            scored.push_back ({ window.startSeconds, window.endSeconds, window.probabilities });
            expected.push_back (window);
            expectedEmbeddings.emplace_back (analyzer.embedding().begin(), analyzer.embedding().end());
        }
    };
    const auto block = static_cast<std::size_t> (kRate);
    for (std::size_t start = 0; start < samples.size(); start += block)
    {
        analyzer.push (samples.data() + start, std::min (block, samples.size() - start));
        change.push (samples.data() + start, std::min (block, samples.size() - start));
        analyzeReady();
    }
    analyzer.finish();
    analyzeReady();
    change.finish();
    const auto expectedSegments = timeline::timelineSegments (scored, change.novelty(), settings.segments);

    REQUIRE (recorded.windows.size() == expected.size());
    REQUIRE (recorded.result.numWindows == static_cast<int64_t> (expected.size()));
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        CHECK (recorded.windows[i].startSeconds == expected[i].startSeconds);
        CHECK (recorded.windows[i].probabilities == expected[i].probabilities); // the same numbers, bit for bit
        CHECK (recorded.embeddings[i].size() == 96);                            // the built-in model's embedding, never smoothed
        CHECK (recorded.embeddings[i] == expectedEmbeddings[i]);
        CHECK_FALSE (recorded.flags[i].padded);
        CHECK_FALSE (recorded.flags[i].tail);
    }
    REQUIRE (recorded.result.segments.size() == expectedSegments.size());
    REQUIRE (expectedSegments.size() >= 2); // speech, drums and piano: the test would not see a merge otherwise
    for (std::size_t i = 0; i < expectedSegments.size(); ++i)
    {
        CHECK (recorded.result.segments[i].classIndex == expectedSegments[i].classIndex);
        CHECK (recorded.result.segments[i].startSeconds == expectedSegments[i].startSeconds);
        CHECK (recorded.result.segments[i].endSeconds == expectedSegments[i].endSeconds);
        CHECK (recorded.result.segments[i].confidence == expectedSegments[i].confidence);
    }
    CHECK (recorded.result.durationSeconds == Approx (static_cast<double> (samples.size()) / kRate));
    CHECK (recorded.result.labels == resources::builtinModel()->info().labels);
    std::remove (path.c_str());
}

TEST_CASE ("files through one analyzer cache get a fresh analyzer's results, whatever the file, rate and settings before", "[timeline]")
{
    // Different audio at the same rate (cached frames and the resampler's delay line must not carry
    // over), a change of rate, a file shorter than a window, tails (a file of a little more than a
    // window caches the frames of window 0, its tail those of its own window 0: neither may reach the
    // next), NaN samples (counted per file), smoothing and classes in play switched on and off.
    struct File
    {
        std::string name;
        std::vector<std::string> clips;
        double rate, seconds;
        bool toEnd;
        double smoothing;
        std::vector<std::string> classes;
        int nans = 0;
    };
    const std::vector<File> files = { { "a.wav", { "speech", "drums", "piano" }, 22050.0, 0.0, true, 0.3, {} },
                                      { "b.wav", { "piano", "speech" }, 22050.0, 0.0, false, 0.0, { "speech", "piano" } },
                                      { "c.wav", { "drums" }, 48000.0, 0.4, true, 0.0, {} },
                                      { "d.wav", { "drums", "speech" }, 48000.0, 0.0, true, 0.5, {} },
                                      { "e.wav", { "speech", "drums", "piano" }, 16000.0, 0.0, false, 0.0, {} },
                                      { "f.wav", { "speech" }, 22050.0, 1.3, true, 0.0, {}, 3 },
                                      { "g.wav", { "piano" }, 22050.0, 1.1, true, 0.0, {} },
                                      { "h.wav", { "drums" }, 22050.0, 1.2, false, 0.0, {} } };
    timeline::ReusedAnalyzer cache;
    for (const auto& file : files)
    {
        INFO ("file " << file.name);
        auto samples = exampleSequence (file.clips, file.rate, 2);
        if (file.seconds > 0.0)
            samples.resize (static_cast<std::size_t> (file.seconds * file.rate));
        for (int i = 0; i < file.nans; ++i)
            samples[samples.size() / 2 + static_cast<std::size_t> (i)] = std::numeric_limits<float>::quiet_NaN();
        const auto path = scratch (file.name);
        writeWav (path, samples, file.rate);
        timeline::FileAnalysisSettings settings;
        settings.hopSeconds = 0.25;
        settings.toEnd = file.toEnd;
        settings.smoothingSeconds = file.smoothing;
        settings.classes = file.classes;
        const auto fresh = analyze (path, settings);
        const auto reused = analyze (path, settings, &cache);
        REQUIRE (reused.windows.size() == fresh.windows.size());
        REQUIRE_FALSE (fresh.windows.empty());
        for (std::size_t i = 0; i < fresh.windows.size(); ++i)
        {
            CHECK (reused.windows[i].startSeconds == fresh.windows[i].startSeconds);
            CHECK (reused.windows[i].endSeconds == fresh.windows[i].endSeconds);
            CHECK (reused.windows[i].probabilities == fresh.windows[i].probabilities); // bit for bit
            CHECK (reused.embeddings[i] == fresh.embeddings[i]);
            CHECK (reused.flags[i].padded == fresh.flags[i].padded);
            CHECK (reused.flags[i].tail == fresh.flags[i].tail);
        }
        CHECK (reused.result.meanProbabilities == fresh.result.meanProbabilities);
        CHECK (reused.result.numNonFiniteSamples == fresh.result.numNonFiniteSamples);
        CHECK (fresh.result.numNonFiniteSamples == file.nans);
        if (fresh.flags.back().tail && file.smoothing == 0.0)
        {
            // The tail is a new analyzer's window 0 of the file's last samples (with the frames of
            // the file's own window 0 still cached, it would be a mix of the two).
            runtime::WindowAnalyzer own (resources::builtinModel(), file.rate, settings.hopSeconds, 0.0);
            own.setClassesInPlay (runtime::classesInPlay (own.labels(), file.classes));
            const auto tailSamples = static_cast<std::size_t> (std::ceil (fresh.result.windowSeconds * file.rate)) + 1;
            REQUIRE (tailSamples < samples.size());
            own.push (samples.data() + samples.size() - tailSamples, tailSamples);
            own.finish();
            runtime::WindowResult tail;
            own.analyze (0, tail);
            CHECK (fresh.windows.back().probabilities == tail.probabilities);
            CHECK (reused.windows.back().probabilities == tail.probabilities);
        }
        REQUIRE (reused.result.segments.size() == fresh.result.segments.size());
        for (std::size_t i = 0; i < fresh.result.segments.size(); ++i)
        {
            CHECK (reused.result.segments[i].classIndex == fresh.result.segments[i].classIndex);
            CHECK (reused.result.segments[i].startSeconds == fresh.result.segments[i].startSeconds);
            CHECK (reused.result.segments[i].confidence == fresh.result.segments[i].confidence);
        }
        std::remove (path.c_str());
    }
}

TEST_CASE ("to the end: the tail window ends at the file's end and is smoothed with the windows before it", "[timeline]")
{
    constexpr double kRate = 16000.0;
    auto samples = exampleSequence ({ "speech", "guitar" }, kRate, 1);
    samples.resize (samples.size() - 1234); // not on the hop grid: a tail
    const auto path = scratch ("tail.wav");
    writeWav (path, samples, kRate);
    const double duration = static_cast<double> (samples.size()) / kRate;

    timeline::FileAnalysisSettings settings;
    settings.hopSeconds = 0.25;
    settings.toEnd = true;
    const auto raw = analyze (path, settings);
    settings.smoothingSeconds = 0.5;
    const auto smoothed = analyze (path, settings);

    for (const auto* recorded : { &raw, &smoothed })
    {
        REQUIRE (recorded->windows.size() >= 3);
        CHECK (recorded->flags.back().tail);
        CHECK (recorded->windows.back().endSeconds == duration);
        CHECK (recorded->windows.back().startSeconds == Approx (duration - recorded->result.windowSeconds));
        CHECK (recorded->windows[recorded->windows.size() - 2].endSeconds < duration);
    }
    // Smoothing: the tail's probabilities are the exponential average, over the time between the
    // two windows' starts, of the last smoothed window and the tail's own (unsmoothed) result.
    const auto& tail = smoothed.windows.back();
    const auto& before = smoothed.windows[smoothed.windows.size() - 2];
    const auto& tailRaw = raw.windows.back().probabilities;
    const double keep = std::exp (-(tail.startSeconds - before.startSeconds) / settings.smoothingSeconds);
    double difference = 0.0;
    for (std::size_t c = 0; c < tail.probabilities.size(); ++c)
    {
        CHECK (tail.probabilities[c] == Approx (keep * before.probabilities[c] + (1.0 - keep) * tailRaw[c]).margin (1e-6));
        difference += std::abs (tail.probabilities[c] - tailRaw[c]);
    }
    CHECK (difference > 1e-3); // smoothing changed it: the check above is not raw == raw
    std::remove (path.c_str());
}

TEST_CASE ("to the end: the tail window is the analysis of the file's last window of samples, however long the file", "[timeline]")
{
    // Long enough that the file loop reads many blocks and trims the samples it keeps for the tail
    // more than once; not on the hop grid.
    constexpr double kRate = 44100.0;
    auto samples = exampleSequence ({ "piano", "drums", "speech", "guitar" }, kRate, 2);
    samples.resize (samples.size() - 777);
    REQUIRE (samples.size() > static_cast<std::size_t> (5.0 * kRate));
    const auto path = scratch ("long-tail.wav");
    writeWav (path, samples, kRate);
    timeline::FileAnalysisSettings settings;
    settings.toEnd = true;
    const auto recorded = analyze (path, settings);
    REQUIRE (recorded.flags.back().tail);

    // The file's last ceil(window x rate) + 1 samples through a fresh analyzer, smoothing off.
    runtime::WindowAnalyzer analyzer (resources::builtinModel(), kRate, settings.hopSeconds, 0.0);
    const auto tailSamples = static_cast<std::size_t> (std::ceil (analyzer.windowSeconds() * kRate)) + 1;
    analyzer.push (samples.data() + samples.size() - tailSamples, tailSamples);
    analyzer.finish();
    REQUIRE (analyzer.newestCompleteWindow() >= 0);
    runtime::WindowResult expected;
    analyzer.analyze (0, expected);
    CHECK (recorded.windows.back().probabilities == expected.probabilities); // bit for bit
    std::remove (path.c_str());
}

TEST_CASE ("a file shorter than one window gets one padded window, ending at the file's end with toEnd", "[timeline]")
{
    constexpr double kRate = 44100.0;
    auto samples = exampleClip ("speech", kRate);
    samples.resize (static_cast<std::size_t> (0.3 * kRate));
    const auto path = scratch ("short.wav");
    writeWav (path, samples, kRate);

    timeline::FileAnalysisSettings settings; // to the end by default
    const auto toEnd = analyze (path, settings);
    settings.toEnd = false;
    const auto plain = analyze (path, settings);
    for (const auto* recorded : { &plain, &toEnd })
    {
        REQUIRE (recorded->windows.size() == 1);
        CHECK (recorded->flags[0].padded);
        CHECK_FALSE (recorded->flags[0].tail);
        CHECK (recorded->windows[0].startSeconds == 0.0);
    }
    CHECK (plain.windows[0].endSeconds == Approx (plain.result.windowSeconds));
    CHECK (toEnd.windows[0].endSeconds == Approx (0.3));
    CHECK (toEnd.windows[0].probabilities == plain.windows[0].probabilities);
    std::remove (path.c_str());
}

TEST_CASE ("a stop request ends the analysis where it is: the windows so far, no tail", "[timeline]")
{
    constexpr double kRate = 16000.0;
    const auto samples = exampleSequence ({ "speech", "drums", "piano", "guitar" }, kRate, 2);
    const auto path = scratch ("long.wav");
    writeWav (path, samples, kRate);

    timeline::FileAnalysisSettings settings;
    settings.toEnd = true;
    const auto whole = analyze (path, settings);
    int calls = 0;
    double lastFraction = 0.0;
    timeline::FileAnalysisCallbacks callbacks;
    callbacks.onProgress = [&] (double fraction) {
        CHECK (fraction >= lastFraction);
        lastFraction = fraction;
        return ++calls < 2;
    };
    const auto stopped = timeline::analyzeFile (path, resources::builtinModel(), settings, callbacks);
    CHECK (stopped.stopped);
    CHECK_FALSE (whole.result.stopped);
    CHECK (calls == 2);
    CHECK (lastFraction < 0.5);
    CHECK (stopped.numWindows > 0);
    CHECK (stopped.numWindows < whole.result.numWindows / 2);
    CHECK (stopped.durationSeconds < whole.result.durationSeconds / 2);
    std::remove (path.c_str());
}

TEST_CASE ("a file that is not audio is refused with the reader's message", "[timeline]")
{
    const auto path = scratch ("not-audio.wav");
    std::ofstream (path) << "this is text, not a WAV file";
    CHECK_THROWS_AS (timeline::analyzeFile (path, resources::builtinModel(), {}), formats::AudioFileError);
    CHECK_THROWS_WITH (timeline::analyzeFile (path, resources::builtinModel(), {}), Catch::Contains ("not a readable audio file"));
    CHECK_THROWS_WITH (timeline::analyzeFile (scratch ("missing.wav"), resources::builtinModel(), {}), Catch::Contains ("no such file"));
    std::remove (path.c_str());
}

} // namespace sonotype::testing

namespace sonotype::testing
{
TEST_CASE ("hits: one per onset, the level from the hit alone, whatever clip classifies it", "[timeline][onsets]")
{
    constexpr double kRate = 44100.0;
    // Short noise bursts at known times, one of them 45 ms before a read block's boundary (65536).
    std::vector<float> samples (static_cast<std::size_t> (4.0 * kRate), 0.0f);
    std::mt19937 random (5);
    std::normal_distribution<float> noise (0.0f, 1.0f);
    const double times[] = { 0.25, 65536.0 / kRate - 0.045, 2.2, 3.1 };
    const float peaks[] = { 0.9f, 0.5f, 0.25f, 0.7f };
    for (int h = 0; h < 4; ++h)
        for (int64_t i = 0; i < static_cast<int64_t> (0.2 * kRate); ++i)
            samples[static_cast<std::size_t> (static_cast<int64_t> (times[h] * kRate) + i)] +=
                std::clamp (peaks[h] * 0.3f * noise (random), -peaks[h], peaks[h]) * static_cast<float> (std::exp (-static_cast<double> (i) / kRate * 30.0));
    const auto path = scratch ("hits.wav");
    writeWav (path, samples, kRate);

    timeline::HitAnalysisSettings settings;
    const auto reference = timeline::analyzeHits (path, resources::builtinModel(), settings);
    REQUIRE (reference.hits.size() == 4);
    for (int h = 0; h < 4; ++h)
    {
        CHECK (reference.hits[static_cast<std::size_t> (h)].seconds == Approx (times[h]).margin (0.01));
        CHECK (reference.hits[static_cast<std::size_t> (h)].levelDb <= 20.0f * std::log10 (peaks[h]) + 0.01f);
        CHECK (reference.hits[static_cast<std::size_t> (h)].levelDb > 20.0f * std::log10 (peaks[h]) - 6.0f);
    }
    settings.clipSeconds = 0.01; // shorter than the level's 50 ms: the level must not change
    const auto shortClips = timeline::analyzeHits (path, resources::builtinModel(), settings);
    REQUIRE (shortClips.hits.size() == 4);
    for (std::size_t h = 0; h < 4; ++h)
    {
        CHECK (shortClips.hits[h].seconds == reference.hits[h].seconds);
        CHECK (shortClips.hits[h].levelDb == reference.hits[h].levelDb);
    }
    settings.clipSeconds = 30.0; // far longer than the model's window: what is past it is not even resampled
    const auto longClips = timeline::analyzeHits (path, resources::builtinModel(), settings);
    settings.clipSeconds = 1.5;
    const auto oneWindow = timeline::analyzeHits (path, resources::builtinModel(), settings);
    REQUIRE (longClips.hits.size() == 4);
    for (std::size_t h = 0; h < 4; ++h)
        CHECK (longClips.hits[h].probabilities == oneWindow.hits[h].probabilities);
    std::remove (path.c_str());
}
TEST_CASE ("hits as they come: the length first, the progress, the same hits as a plain call, and a stop ends it early", "[timeline][onsets]")
{
    constexpr double kRate = 44100.0;
    constexpr int kHits = 16; // one every half second: 8 s, several read blocks
    std::vector<float> samples (static_cast<std::size_t> (8.0 * kRate), 0.0f);
    std::mt19937 random (7);
    std::normal_distribution<float> noise (0.0f, 0.2f);
    for (int h = 0; h < kHits; ++h)
        for (int64_t i = 0; i < static_cast<int64_t> (0.1 * kRate); ++i)
            samples[static_cast<std::size_t> (static_cast<int64_t> ((0.2 + 0.5 * h) * kRate) + i)] =
                noise (random) * static_cast<float> (std::exp (-static_cast<double> (i) / kRate * 40.0));
    const auto path = scratch ("hits-as-they-come.wav");
    writeWav (path, samples, kRate);
    const timeline::HitAnalysisSettings settings;
    const auto plain = timeline::analyzeHits (path, resources::builtinModel(), settings);
    REQUIRE (plain.hits.size() == kHits);

    double length = -1.0;
    std::vector<double> progress;
    std::vector<double> heard;
    timeline::HitAnalysisCallbacks callbacks;
    callbacks.onOpen = [&] (double seconds) {
        CHECK (heard.empty());
        CHECK (progress.empty());
        length = seconds;
    };
    callbacks.onHit = [&] (const timeline::Hit& hit, std::span<const float>) { heard.push_back (hit.seconds); };
    callbacks.onProgress = [&] (double fraction) {
        progress.push_back (fraction);
        return true;
    };
    const auto watched = timeline::analyzeHits (path, resources::builtinModel(), settings, callbacks);
    CHECK (length == Approx (8.0).margin (1e-6));
    CHECK_FALSE (watched.stopped);
    REQUIRE (watched.hits.size() == plain.hits.size());
    REQUIRE (heard.size() == plain.hits.size());
    for (std::size_t h = 0; h < plain.hits.size(); ++h)
    {
        CHECK (watched.hits[h].seconds == plain.hits[h].seconds);
        CHECK (watched.hits[h].probabilities == plain.hits[h].probabilities);
        CHECK (heard[h] == plain.hits[h].seconds);
    }
    REQUIRE (progress.size() >= 2);
    CHECK (std::is_sorted (progress.begin(), progress.end()));
    CHECK (progress.back() == 1.0);

    // Stopped at the first block: the hits found so far, and it says it stopped.
    callbacks.onProgress = [] (double) { return false; };
    heard.clear();
    progress.clear();
    const auto stopped = timeline::analyzeHits (path, resources::builtinModel(), settings, callbacks);
    CHECK (stopped.stopped);
    CHECK (stopped.hits.size() < plain.hits.size());
    CHECK (stopped.durationSeconds < 8.0);
    std::remove (path.c_str());
}
} // namespace sonotype::testing
