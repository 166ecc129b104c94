// The front end's streaming properties: incremental log-mel windows equal fresh ones while reusing
// frames; the resampler's output does not depend on how its input is split into blocks.
#include "dsp/LogMelSpectrogram.h"
#include "dsp/Resampler.h"
#include "support/TestSignals.h"

#include <catch2/catch.hpp>

#include <random>

using namespace sonotype;
using namespace sonotype::dsp;
using engine::FrontendSettings;

namespace
{
FrontendSettings settings16k()
{
    return FrontendSettings::fromJson (R"({"sample_rate": 16000, "n_fft": 400, "hop_length": 160, "n_mels": 40,
                                           "log": {"type": "db", "top_db": 80}, "window_samples": 16000})");
}
} // namespace

TEST_CASE ("overlapping windows reuse interior frames and give the same features as fresh ones", "[dsp]")
{
    const auto settings = settings16k();
    const auto signal = testing::testSignal (16000.0, 4.0);
    LogMelSpectrogram incremental (settings), fresh (settings);
    const int frames = settings.numFrames (settings.windowSamples);
    REQUIRE (frames == 101);
    std::vector<float> a (static_cast<std::size_t> (frames * settings.nMels)), b (a.size());
    for (int k = 0; k <= 12; ++k) // 1 s windows every 0.25 s
    {
        const int64_t start = k * 4000;
        incremental.computeWindow (signal.data() + start, settings.windowSamples, start, a.data());
        fresh.compute (signal.data() + start, settings.windowSamples, b.data());
        REQUIRE (a == b);
    }
    // Fresh: 13 windows x 101 frames. Incremental: after the first window, only the 25 new interior
    // frames plus the padded edge frames of each window are computed.
    CHECK (fresh.numFramesComputed() == 13 * 101);
    CHECK (incremental.numFramesComputed() < 13 * 101 / 2);
}

TEST_CASE ("the resampler's output does not depend on the input's block sizes", "[dsp]")
{
    const double inputRate = GENERATE (44100.0, 48000.0, 96000.0, 8000.0, 192000.0);
    INFO ("input rate " << inputRate);
    const auto signal = testing::testSignal (inputRate, 1.5);
    std::vector<float> whole, pieces;
    {
        Resampler resampler (inputRate, 16000.0);
        resampler.process (signal.data(), signal.size(), whole);
        resampler.flush (whole);
    }
    {
        Resampler resampler (inputRate, 16000.0);
        std::mt19937 random (3);
        for (std::size_t offset = 0; offset < signal.size();)
        {
            const auto count = std::min<std::size_t> (std::uniform_int_distribution<std::size_t> (1, 3000) (random), signal.size() - offset);
            resampler.process (signal.data() + offset, count, pieces);
            offset += count;
        }
        resampler.flush (pieces);
    }
    REQUIRE (whole.size() == pieces.size());
    CHECK (whole == pieces);
    // 1.5 s in, 1.5 s out: the resampler compensates its own delay.
    CHECK (std::abs (static_cast<double> (whole.size()) - 1.5 * 16000.0) <= 2.0);
}

TEST_CASE ("a 1 kHz tone keeps its level and frequency through resampling", "[dsp]")
{
    std::vector<float> tone (48000);
    for (std::size_t i = 0; i < tone.size(); ++i)
        tone[i] = static_cast<float> (0.5 * std::sin (2.0 * M_PI * 1000.0 * static_cast<double> (i) / 48000.0));
    Resampler resampler (48000.0, 16000.0);
    std::vector<float> out;
    resampler.process (tone.data(), tone.size(), out);
    resampler.flush (out);
    double worst = 0.0;
    for (std::size_t i = 1000; i + 1000 < out.size(); ++i)
        worst = std::max (worst, std::fabs (out[i] - 0.5 * std::sin (2.0 * M_PI * 1000.0 * static_cast<double> (i) / 16000.0)));
    CHECK (worst < 1e-4);
}

TEST_CASE ("front-end settings are validated with specific messages", "[dsp]")
{
    using Catch::Matchers::Contains;
    CHECK_THROWS_WITH (FrontendSettings::fromJson ("{}"), Contains ("lack sample_rate and n_mels"));
    CHECK_THROWS_WITH (FrontendSettings::fromJson (R"({"sample_rate": 16000, "n_mels": 8, "n_fft": 2.5})"), Contains ("'n_fft'"));
    CHECK_THROWS_WITH (FrontendSettings::fromJson (R"({"sample_rate": 16000, "n_mels": 8, "pad_mode": "circular"})"), Contains ("pad_mode"));
    CHECK_THROWS_WITH (FrontendSettings::fromJson (R"({"sample_rate": 16000, "n_mels": 8, "std": [1, 2]})"), Contains ("n_mels numbers"));
    CHECK_THROWS_WITH (FrontendSettings::fromJson (R"({"sample_rate": 16000, "n_mels": 8, "std": 0})"),
                       Contains ("frontend setting 'std' = 0 is outside its range [1e-09, 1e+09]"));
    CHECK_THROWS_WITH (FrontendSettings::fromJson (R"({"sample_rate": 16000, "n_mels": 8, "window_samples": 16000})", 50),
                       Contains ("gives 81 frames but the model takes 50"));
    CHECK (FrontendSettings::fromJson (R"({"sample_rate": 16000, "n_mels": 8, "hop_length": 160})", 101).windowSamples == 16000);
    CHECK_THROWS_AS (Resampler (44100.0, 100.0), FrontendError);
}
