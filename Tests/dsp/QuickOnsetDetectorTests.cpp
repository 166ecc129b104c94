// dsp::QuickOnsetDetector, the per-hit mode's live onsets: clicks, 808-style sine kicks, snares and
// hats at -40...-3 dBFS found within 2 ms of their first sample at 16-96 kHz, kicks over the tails
// of kicks and hats over loud kicks too; the same onsets for any split into blocks; every onset
// reported by the push that brings the input to onset + latencySamples(); nothing from silence,
// room noise, a steady tone or noise, or a long decaying tail; reset() starts a fresh stream.
// (Its allocation count is in QuickOnsetDetectorRealtimeTests.cpp; its F-measure against the other
// detector and aubio on rendered loops in Training/sonotype/hits/onsets.py --command.)
#include "QuickOnsetSignals.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
struct Material
{
    std::vector<float> samples;
    std::vector<int64_t> hits;
};

/** 20 s of clicks, kicks, snares and hats in turn at -40...-3 dBFS, 0.5-0.8 s apart (no piece
    sounds into the next), over room noise at -70 dBFS. */
Material kitLine (double rate, unsigned seed)
{
    std::mt19937 random (seed);
    std::uniform_real_distribution<double> spacing (0.5, 0.8), level (-40.0, -3.0), pitch (60.0, 180.0);
    Material m;
    m.samples = noiseAt (rate, 20.0, -70.0, seed + 1);
    for (double t = 0.3; t < 19.0; t += spacing (random))
    {
        m.hits.push_back (static_cast<int64_t> (std::lround (t * rate)));
        // The draws one by one (a function's arguments are evaluated in an order the compiler picks:
        // GCC's right to left is kept, so that clang builds the same signal).
        const double hz = pitch (random), db = level (random);
        addPiece (m.samples, rate, m.hits.back(), static_cast<Piece> (m.hits.size() % 4), db, random, hz);
    }
    return m;
}

/** The loop: 60 kicks, snares and hats in random order at -15...-3 dBFS, 0.15-0.35 s apart
    (a kick sounds 0.45 s: later hits land on its tail), over room noise at -60 dBFS. */
Material kickLoop (double rate, unsigned seed)
{
    std::mt19937 random (seed);
    std::uniform_real_distribution<double> spacing (0.15, 0.35), level (-15.0, -3.0), pitch (120.0, 180.0);
    std::uniform_int_distribution<int> piece (1, 3);
    Material m;
    m.samples = noiseAt (rate, 20.0, -60.0, seed + 1);
    for (double t = 0.3; m.hits.size() < 60; t += spacing (random))
    {
        m.hits.push_back (static_cast<int64_t> (std::lround (t * rate)));
        const double hz = pitch (random), db = level (random); // (one by one, as above)
        const auto which = static_cast<Piece> (piece (random));
        addPiece (m.samples, rate, m.hits.back(), which, db, random, hz);
    }
    return m;
}

/** For each hit, the error of the nearest onset in seconds (1 s when there is none). */
std::vector<double> errorsOf (const std::vector<int64_t>& hits, const std::vector<int64_t>& onsets, double rate)
{
    std::vector<double> errors;
    for (const auto hit : hits)
    {
        double nearest = 1.0;
        for (const auto onset : onsets)
            nearest = std::min (nearest, std::abs (static_cast<double> (onset - hit)) / rate);
        errors.push_back (nearest);
    }
    return errors;
}

double median (std::vector<double> values)
{
    std::nth_element (values.begin(), values.begin() + static_cast<std::ptrdiff_t> (values.size() / 2), values.end());
    return values[values.size() / 2];
}

const std::vector<std::size_t> kBlock128 { 128 };
} // namespace

TEST_CASE ("quick onsets: the latency is at most 6 ms at 44.1 and 48 kHz, the same for a detector and its rate", "[dsp][onsets][quick]")
{
    for (const double rate : { 16000.0, 44100.0, 48000.0, 96000.0, 192000.0 })
    {
        INFO (rate << " Hz");
        const dsp::QuickOnsetDetector detector (rate);
        CHECK (detector.latencySamples() == dsp::QuickOnsetDetector::latencySamples (rate));
        CHECK (detector.latencySamples() > 0);
        CHECK (static_cast<double> (detector.latencySamples()) / rate <= 0.006);
    }
    CHECK (dsp::QuickOnsetDetector::latencySamples (48000.0) <= 288);
}

TEST_CASE ("quick onsets: every click, kick, snare and hat at -40...-3 dBFS within 2 ms, at 16-96 kHz", "[dsp][onsets][quick]")
{
    for (const double rate : { 16000.0, 44100.0, 48000.0, 96000.0 })
    {
        INFO (rate << " Hz");
        const auto material = kitLine (rate, 11);
        const auto found = runQuick (material.samples, rate, kBlock128);
        CHECK (found.onsets.size() == material.hits.size());
        const auto errors = errorsOf (material.hits, found.onsets, rate);
        for (std::size_t i = 0; i < errors.size(); ++i)
        {
            INFO ("hit " << i << " at " << static_cast<double> (material.hits[i]) / rate << " s");
            CHECK (errors[i] <= 0.002);
        }
        CHECK (median (errors) <= 0.0005);
    }
}

TEST_CASE ("quick onsets: the issue's loop, kicks over kick tails and hats under them, found on their first sample", "[dsp][onsets][quick]")
{
    for (const double rate : { 44100.0, 48000.0 })
        for (const unsigned seed : { 1u, 2u, 3u })
        {
            INFO (rate << " Hz, seed " << seed);
            const auto material = kickLoop (rate, seed);
            const auto found = runQuick (material.samples, rate, kBlock128);
            auto errors = errorsOf (material.hits, found.onsets, rate);
            const auto missed = std::count_if (errors.begin(), errors.end(), [] (double e) { return e > 0.025; });
            CHECK (missed <= 1); // F >= 0.99
            CHECK (found.onsets.size() <= material.hits.size());
            errors.erase (std::remove_if (errors.begin(), errors.end(), [] (double e) { return e > 0.025; }), errors.end());
            CHECK (median (errors) <= 0.001);
            CHECK (*std::max_element (errors.begin(), errors.end()) <= 0.005);
        }
}

TEST_CASE ("quick onsets: a soft hat under a loud kick, a soft snare after a loud kick, a kick over a kick", "[dsp][onsets][quick]")
{
    const double rate = 48000.0;
    std::mt19937 random (5);
    auto samples = noiseAt (rate, 3.0, -60.0, 6);
    const std::vector<int64_t> hits { 24000, 28800, 72000, 76800, 120000, 129600 };
    addPiece (samples, rate, hits[0], Piece::kick, -3.0, random, 120.0);
    addPiece (samples, rate, hits[1], Piece::hat, -25.0, random);
    addPiece (samples, rate, hits[2], Piece::kick, -3.0, random, 150.0);
    addPiece (samples, rate, hits[3], Piece::snare, -25.0, random);
    addPiece (samples, rate, hits[4], Piece::kick, -6.0, random, 100.0);
    addPiece (samples, rate, hits[5], Piece::kick, -6.0, random, 160.0);
    const auto found = runQuick (samples, rate, kBlock128);
    CHECK (found.onsets.size() == hits.size());
    for (const double error : errorsOf (hits, found.onsets, rate))
        CHECK (error <= 0.002);
}

TEST_CASE ("quick onsets: the same onsets for any split into blocks, each reported by onset + latency", "[dsp][onsets][quick]")
{
    const double rate = 44100.0;
    const auto latency = dsp::QuickOnsetDetector::latencySamples (rate);
    for (const auto& material : { kitLine (rate, 21), kickLoop (rate, 22) })
    {
        const auto reference = runQuick (material.samples, rate, { 4096 });
        REQUIRE (reference.onsets.size() >= material.hits.size() - 3);
        CHECK (std::is_sorted (reference.onsets.begin(), reference.onsets.end()));
        CHECK (std::adjacent_find (reference.onsets.begin(), reference.onsets.end()) == reference.onsets.end());
        for (const auto& blocks : std::vector<std::vector<std::size_t>> { { 1 }, { 7 }, { 128 }, { 0 }, { 1, 4096, 13, 480, 2 } })
        {
            INFO ("blocks of " << blocks.front() << " (0: random sizes)");
            const auto found = runQuick (material.samples, rate, blocks);
            CHECK (found.onsets == reference.onsets);
            // The push that brings the input to onset + latency reports it: it starts before then.
            for (std::size_t i = 0; i < found.onsets.size(); ++i)
                CHECK (found.pushedFrom[i] < found.onsets[i] + latency);
        }
    }
}

TEST_CASE ("quick onsets: maxOnsets is enough for any block (dense clicks, no minimum gap)", "[dsp][onsets][quick]")
{
    // Groups of clicks 3 ms apart, each 7 dB louder than the one before (a rise each), 0.1 s apart.
    const double rate = 48000.0;
    std::mt19937 random (8);
    auto samples = noiseAt (rate, 2.0, -90.0, 9);
    std::vector<int64_t> clicks;
    for (int64_t group = 4800; group < 86400; group += 4800)
        for (int k = 0; k < 7; ++k)
        {
            clicks.push_back (group + k * 144);
            addPiece (samples, rate, clicks.back(), Piece::click, -48.0 + 7.0 * k, random);
        }
    dsp::OnsetSettings settings;
    settings.minGapSeconds = 0.0;
    settings.silenceDb = -90.0;
    const auto one = runQuick (samples, rate, { 1 }, settings);
    CHECK (one.onsets.size() >= clicks.size());
    for (const double error : errorsOf (clicks, one.onsets, rate))
        CHECK (error <= 0.0005);
    CHECK (runQuick (samples, rate, { 4096 }, settings).onsets == one.onsets);
    CHECK (runQuick (samples, rate, { 0 }, settings).onsets == one.onsets);
}

TEST_CASE ("quick onsets: nothing from silence, room noise, a steady tone or noise, or a long decaying tail", "[dsp][onsets][quick]")
{
    for (const double rate : { 44100.0, 96000.0 })
    {
        INFO (rate << " Hz");
        CHECK (runQuick (std::vector<float> (static_cast<std::size_t> (5.0 * rate), 0.0f), rate, kBlock128).onsets.empty());
        CHECK (runQuick (noiseAt (rate, 10.0, -60.0, 1), rate, kBlock128).onsets.empty());
        // Steady sounds may start one onset, at their start, and nothing after.
        auto tone = noiseAt (rate, 10.0, -70.0, 2);
        for (std::size_t i = 0; i < tone.size(); ++i)
            tone[i] += static_cast<float> (0.3 * std::sin (2.0 * M_PI * 440.0 * static_cast<double> (i) / rate) + 0.2 * std::sin (2.0 * M_PI * 55.0 * static_cast<double> (i) / rate));
        for (const auto onset : runQuick (tone, rate, kBlock128).onsets)
            CHECK (onset < static_cast<int64_t> (0.01 * rate));
        for (const auto onset : runQuick (noiseAt (rate, 10.0, -20.0, 3), rate, kBlock128).onsets)
            CHECK (onset < static_cast<int64_t> (0.01 * rate));
        // A tail: two low partials beating and noise, dying away over seconds (a tom's ring, a room).
        auto tail = noiseAt (rate, 6.0, -70.0, 4);
        std::mt19937 random (5);
        std::normal_distribution<double> noise (0.0, 1.0);
        const auto start = static_cast<std::size_t> (0.5 * rate);
        for (std::size_t i = start; i < tail.size(); ++i)
        {
            const double s = static_cast<double> (i - start) / rate;
            const double decay = std::min (1.0, s / 0.002) * std::exp (-s * 1.5);
            tail[i] += static_cast<float> (decay * (0.4 * std::sin (2.0 * M_PI * 80.0 * s) + 0.3 * std::sin (2.0 * M_PI * 83.0 * s) + 0.05 * noise (random)));
        }
        const auto found = runQuick (tail, rate, kBlock128).onsets;
        REQUIRE (found.size() == 1);
        CHECK (std::abs (static_cast<double> (found[0]) - static_cast<double> (start)) / rate <= 0.002);
    }
}

TEST_CASE ("quick onsets: hits under the silence gate and under the threshold are not hits", "[dsp][onsets][quick]")
{
    const double rate = 48000.0;
    const auto material = kitLine (rate, 31);
    dsp::OnsetSettings quiet;
    quiet.silenceDb = 0.0;
    CHECK (runQuick (material.samples, rate, kBlock128, quiet).onsets.empty());
    dsp::OnsetSettings strict;
    strict.threshold = 20.0;
    CHECK (runQuick (material.samples, rate, kBlock128, strict).onsets.empty());
    dsp::OnsetSettings gap;
    gap.minGapSeconds = 1.0;
    const auto sparse = runQuick (material.samples, rate, kBlock128, gap).onsets;
    CHECK (! sparse.empty());
    for (std::size_t i = 1; i < sparse.size(); ++i)
        CHECK (sparse[i] - sparse[i - 1] >= static_cast<int64_t> (rate));
}

TEST_CASE ("quick onsets: reset() starts a fresh stream", "[dsp][onsets][quick]")
{
    const double rate = 44100.0;
    const auto material = kickLoop (rate, 41);
    const auto fresh = runQuick (material.samples, rate, kBlock128).onsets;
    dsp::QuickOnsetDetector detector (rate);
    std::vector<int64_t> out (detector.maxOnsets (material.samples.size()));
    // Cut off in the middle of a hit, the detector starts the next stream with nothing of it.
    detector.push (material.samples.data(), material.samples.size() / 2 + 333, out.data(), out.size());
    detector.reset();
    const auto count = detector.push (material.samples.data(), material.samples.size(), out.data(), out.size());
    CHECK (std::vector<int64_t> (out.begin(), out.begin() + static_cast<std::ptrdiff_t> (count)) == fresh);
}

TEST_CASE ("quick onsets: rates and settings out of range are refused", "[dsp][onsets][quick]")
{
    CHECK_THROWS_AS (dsp::QuickOnsetDetector (999.0), std::invalid_argument);
    CHECK_THROWS_AS (dsp::QuickOnsetDetector (800000.0), std::invalid_argument);
    dsp::OnsetSettings settings;
    settings.threshold = -1.0;
    CHECK_THROWS_AS (dsp::QuickOnsetDetector (48000.0, settings), std::invalid_argument);
    settings = {};
    settings.minGapSeconds = 11.0;
    CHECK_THROWS_AS (dsp::QuickOnsetDetector (48000.0, settings), std::invalid_argument);
    settings = {};
    settings.silenceDb = 1.0;
    CHECK_THROWS_AS (dsp::QuickOnsetDetector (48000.0, settings), std::invalid_argument);
}

TEST_CASE ("quick onsets: the extreme rates run, a kick found at each", "[dsp][onsets][quick]")
{
    for (const double rate : { 1000.0, 8000.0, 192000.0, 768000.0 })
    {
        INFO (rate << " Hz");
        std::mt19937 random (2);
        auto samples = noiseAt (rate, 1.0, -70.0, 3);
        const auto hit = static_cast<int64_t> (0.5 * rate);
        addPiece (samples, rate, hit, Piece::kick, -6.0, random, 120.0);
        const auto found = runQuick (samples, rate, kBlock128);
        REQUIRE (found.onsets.size() == 1);
        CHECK (std::abs (static_cast<double> (found.onsets[0] - hit)) / rate <= 0.002);
    }
}
