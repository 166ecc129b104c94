// dsp::OnsetDetector on hits at known times: kick-like, snare-like and hat-like bursts over a noise
// floor, at the rates producers use, in any block sizes; silence and a steady tone start nothing
// after their start; hits under the silence gate are not hits; settings out of range are named.
// (Rendered drum kits, and their F-measure, are in Training/tests/test_classify_onsets.py.)
#include "dsp/OnsetDetector.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace sonotype;

namespace
{
struct Material
{
    std::vector<float> samples;
    std::vector<int64_t> hits;
};

/** 10 s of hits 0.21-0.5 s apart (kick, snare, hat in turn) over noise at -66 dBFS, scaled by gain. */
Material drumLine (double rate, float gain)
{
    std::mt19937 random (7);
    std::normal_distribution<float> noise (0.0f, 1.0f);
    std::uniform_real_distribution<double> spacing (0.21, 0.5);
    Material m;
    m.samples.assign (static_cast<std::size_t> (10.0 * rate), 0.0f);
    for (double t = 0.3; t < 9.5; t += spacing (random))
    {
        const auto start = static_cast<int64_t> (std::lround (t * rate));
        const int kind = static_cast<int> (m.hits.size() % 3);
        m.hits.push_back (start);
        for (int64_t i = 0; i < static_cast<int64_t> (0.8 * rate) && start + i < static_cast<int64_t> (m.samples.size()); ++i)
        {
            const double s = static_cast<double> (i) / rate;
            const double v = kind == 0   ? 0.8 * std::sin (2.0 * M_PI * (50.0 + 80.0 * std::exp (-s * 30.0)) * s) * std::exp (-s * 18.0)
                             : kind == 1 ? 0.4 * noise (random) * std::exp (-s * 25.0) + 0.3 * std::sin (2.0 * M_PI * 190.0 * s) * std::exp (-s * 30.0)
                                         : 0.15 * noise (random) * std::exp (-s * 90.0);
            m.samples[static_cast<std::size_t> (start + i)] += static_cast<float> (v);
        }
    }
    for (auto& x : m.samples)
        x = gain * (x + 0.0005f * noise (random));
    return m;
}

std::vector<int64_t> detect (const std::vector<float>& samples, double rate, std::size_t block, dsp::OnsetSettings settings = {})
{
    dsp::OnsetDetector detector (rate, settings);
    std::vector<int64_t> onsets;
    for (std::size_t i = 0; i < samples.size(); i += block)
        detector.push (samples.data() + i, std::min (block, samples.size() - i), onsets);
    detector.finish (onsets);
    return onsets;
}

/** Hits matched within `tolerance` seconds (each onset at most once), and the largest error. */
std::pair<int, double> match (const std::vector<int64_t>& hits, const std::vector<int64_t>& onsets, double rate, double tolerance)
{
    std::vector<bool> used (onsets.size(), false);
    int matched = 0;
    double worst = 0.0;
    for (const auto hit : hits)
        for (std::size_t i = 0; i < onsets.size(); ++i)
            if (! used[i] && std::abs (static_cast<double> (onsets[i] - hit)) / rate <= tolerance)
            {
                used[i] = true;
                ++matched;
                worst = std::max (worst, std::abs (static_cast<double> (onsets[i] - hit)) / rate);
                break;
            }
    return { matched, worst };
}
} // namespace

TEST_CASE ("onsets: every hit found within 10 ms, nothing else, at any rate and level", "[dsp][onsets]")
{
    for (const double rate : { 16000.0, 44100.0, 48000.0, 96000.0 })
        for (const float gain : { 1.0f, 0.1f })
        {
            INFO (rate << " Hz, gain " << gain);
            const auto material = drumLine (rate, gain);
            const auto onsets = detect (material.samples, rate, 4096);
            const auto [matched, worst] = match (material.hits, onsets, rate, 0.010);
            CHECK (matched == static_cast<int> (material.hits.size()));
            CHECK (onsets.size() == material.hits.size());
            for (const auto onset : onsets)
            {
                const bool near = std::any_of (material.hits.begin(), material.hits.end(), [&] (int64_t h) { return std::abs (static_cast<double> (h - onset)) / rate <= 0.01; });
                if (! near)
                    WARN ("unmatched onset at " << static_cast<double> (onset) / rate);
            }
            CHECK (worst <= 0.010);
            CHECK (std::is_sorted (onsets.begin(), onsets.end()));
        }
}

TEST_CASE ("onsets: the same in any block sizes", "[dsp][onsets]")
{
    const auto material = drumLine (44100.0, 0.5f);
    const auto reference = detect (material.samples, 44100.0, 65536);
    REQUIRE (reference.size() == material.hits.size());
    for (const std::size_t block : { std::size_t { 1 }, std::size_t { 7 }, std::size_t { 220 }, std::size_t { 221 }, std::size_t { 1000 } })
        CHECK (detect (material.samples, 44100.0, block) == reference);
}

TEST_CASE ("onsets: silence, a steady tone and hits under the silence gate start nothing", "[dsp][onsets]")
{
    const double rate = 48000.0;
    CHECK (detect (std::vector<float> (static_cast<std::size_t> (3 * rate), 0.0f), rate, 512).empty());
    std::vector<float> tone (static_cast<std::size_t> (3 * rate));
    for (std::size_t i = 0; i < tone.size(); ++i)
        tone[i] = 0.5f * static_cast<float> (std::sin (2.0 * M_PI * 440.0 * static_cast<double> (i) / rate));
    const auto toneOnsets = detect (tone, rate, 512);
    REQUIRE (toneOnsets.size() == 1); // the tone's own start, at 0
    CHECK (toneOnsets[0] < static_cast<int64_t> (0.01 * rate));
    const auto quiet = drumLine (rate, 0.001f); // hits at -62 dBFS and below
    CHECK (detect (quiet.samples, rate, 512).empty());
    dsp::OnsetSettings sensitive;
    sensitive.silenceDb = -90.0;
    CHECK (detect (quiet.samples, rate, 512, sensitive).size() >= quiet.hits.size() / 2);
}

TEST_CASE ("onsets: NaN samples are silence, settings out of range are named", "[dsp][onsets]")
{
    auto material = drumLine (44100.0, 0.5f);
    const auto reference = detect (material.samples, 44100.0, 512);
    for (std::size_t i = 0; i < 100; ++i)
        material.samples[i] = std::nanf ("");
    CHECK (detect (material.samples, 44100.0, 512) == reference);
    CHECK_THROWS_WITH (dsp::OnsetDetector (500.0), Catch::Contains ("sample rate"));
    dsp::OnsetSettings bad;
    bad.minGapSeconds = -1.0;
    CHECK_THROWS_WITH (dsp::OnsetDetector (44100.0, bad), Catch::Contains ("minimum gap"));
    bad = {};
    bad.threshold = std::nan ("");
    CHECK_THROWS_WITH (dsp::OnsetDetector (44100.0, bad), Catch::Contains ("threshold"));
}

TEST_CASE ("onsets: the minimum gap holds at every rate (a second transient 43 ms on is the same hit)", "[dsp][onsets]")
{
    for (const double rate : { 44100.0, 48000.0, 88200.0 })
    {
        INFO (rate << " Hz");
        std::vector<float> samples (static_cast<std::size_t> (rate), 0.0f);
        std::mt19937 random (3);
        std::normal_distribution<float> noise (0.0f, 1.0f);
        for (const double at : { 0.3, 0.343 })
            for (int64_t i = 0; i < static_cast<int64_t> (0.3 * rate); ++i)
                samples[static_cast<std::size_t> (static_cast<int64_t> (at * rate) + i)] += 0.5f * noise (random)
                                                                                            * static_cast<float> (std::exp (-static_cast<double> (i) / rate * 40.0));
        const auto found = detect (samples, rate, 512);
        for (const auto onset : found)
            UNSCOPED_INFO ("onset at " << static_cast<double> (onset) / rate);
        CHECK (found.size() == 1);
        dsp::OnsetSettings closer;
        closer.minGapSeconds = 0.03;
        CHECK (detect (samples, rate, 512, closer).size() == 2);
    }
}
