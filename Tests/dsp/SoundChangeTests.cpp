// dsp::SoundChange, the novelty curve timeline edges move to: it peaks where one sound gives way to
// another (within a frame or two), stays low inside one sound and in silence, and is the same
// however the stream is split into blocks.
#include "dsp/SoundChange.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

namespace sonotype::testing
{
namespace
{
    /** Noise (0.1 RMS) until `change` seconds, then a 440 Hz tone (0.3 peak), `seconds` long. */
    std::vector<float> noiseThenTone (double rate, double change, double seconds)
    {
        std::mt19937 random (3);
        std::normal_distribution<float> noise (0.0f, 0.1f);
        std::vector<float> samples (static_cast<std::size_t> (seconds * rate));
        for (std::size_t i = 0; i < samples.size(); ++i)
        {
            const double t = static_cast<double> (i) / rate;
            samples[i] = t < change ? noise (random) : static_cast<float> (0.3 * std::sin (2.0 * M_PI * 440.0 * t));
        }
        return samples;
    }

    std::vector<float> noveltyOf (const std::vector<float>& samples, double rate, std::size_t block)
    {
        dsp::SoundChange change (rate);
        for (std::size_t start = 0; start < samples.size(); start += block)
            change.push (samples.data() + start, std::min (block, samples.size() - start));
        change.finish();
        return change.novelty();
    }
} // namespace

TEST_CASE ("sound change: the curve peaks where one sound gives way to another", "[dsp][timeline]")
{
    for (const double rate : { 16000.0, 44100.0, 48000.0 })
    {
        INFO (rate);
        const double change = 1.37, seconds = 3.0;
        const auto novelty = noveltyOf (noiseThenTone (rate, change, seconds), rate, 4096);
        // One value per 10 ms frame of the stream.
        CHECK (novelty.size() == static_cast<std::size_t> (std::ceil (seconds / dsp::SoundChange::kFrameSeconds)));
        const auto peak = std::max_element (novelty.begin(), novelty.end()) - novelty.begin();
        CHECK (std::abs (static_cast<double> (peak) * dsp::SoundChange::kFrameSeconds - change) <= 0.02 + 1e-9); // two frames
        // Inside each sound, far from the change, the curve is a fraction of its peak.
        const auto inside = [&] (double t) { return novelty[static_cast<std::size_t> (t / dsp::SoundChange::kFrameSeconds)]; };
        CHECK (inside (0.6) < 0.2f * novelty[static_cast<std::size_t> (peak)]);
        CHECK (inside (2.3) < 0.2f * novelty[static_cast<std::size_t> (peak)]);
    }
}

TEST_CASE ("sound change: the same curve for any split into blocks, zeros for silence", "[dsp][timeline]")
{
    constexpr double kRate = 22050.0;
    const auto samples = noiseThenTone (kRate, 0.8, 2.0);
    const auto whole = noveltyOf (samples, kRate, samples.size());
    for (const std::size_t block : { 1u, 100u, 441u, 5000u })
        CHECK (noveltyOf (samples, kRate, block) == whole);

    const auto silent = noveltyOf (std::vector<float> (static_cast<std::size_t> (kRate), 0.0f), kRate, 1024);
    CHECK (std::all_of (silent.begin(), silent.end(), [] (float v) { return v == 0.0f; }));
    CHECK_THROWS_AS (dsp::SoundChange (500.0), std::invalid_argument);

    // A stream after restart() is a new stream.
    dsp::SoundChange change (kRate);
    change.push (samples.data(), samples.size() / 3);
    change.restart();
    change.push (samples.data(), samples.size());
    change.finish();
    CHECK (change.novelty() == whole);
}

} // namespace sonotype::testing
