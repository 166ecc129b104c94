// The stft op and the pad op's reflect / replicate modes on tiny graphs, against numbers computed
// here by hand or by a direct DFT (the parity tests compare them with PyTorch at scale).
#include "engine/Session.h"
#include "engine/file/ModelError.h"
#include "support/SafetensorsWriter.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
engine::Session sessionFor (const std::string& graph, const std::vector<TestTensor>& tensors = {})
{
    const auto bytes = safetensorsBytes (tensors, modelMetadata (graph));
    return engine::Session (engine::Model::fromMemory (bytes.data(), bytes.size(), "spectral-test"));
}

std::string padGraph (const std::string& mode, const std::string& pads, const std::string& outShape)
{
    return R"({"inputs":[0],"outputs":[1],"values":[{"shape":[2,3],"kind":"input"},{"shape":)" + outShape
           + R"(,"kind":"node"}],"nodes":[{"op":"pad","inputs":[0],"outputs":[1],"attrs":{"pads":)" + pads + R"(,"mode":")" + mode + R"("}}]})";
}
} // namespace

TEST_CASE ("pad reflects and replicates each axis, corners from both", "[engine][pad]")
{
    // x = [[1, 2, 3], [4, 5, 6]], padded by 1 row before and 2 columns on each side.
    const float x[] = { 1, 2, 3, 4, 5, 6 };
    SECTION ("reflect")
    {
        auto session = sessionFor (padGraph ("reflect", "[[1,0],[2,2]]", "[3,7]"));
        std::copy (std::begin (x), std::end (x), session.input().begin());
        session.run();
        const std::vector<float> expected { 6, 5, 4, 5, 6, 5, 4, //
                                            3, 2, 1, 2, 3, 2, 1, //
                                            6, 5, 4, 5, 6, 5, 4 };
        CHECK (std::vector<float> (session.output().begin(), session.output().end()) == expected);
    }
    SECTION ("replicate")
    {
        auto session = sessionFor (padGraph ("replicate", "[[1,0],[2,2]]", "[3,7]"));
        std::copy (std::begin (x), std::end (x), session.input().begin());
        session.run();
        const std::vector<float> expected { 1, 1, 1, 2, 3, 3, 3, //
                                            1, 1, 1, 2, 3, 3, 3, //
                                            4, 4, 4, 5, 6, 6, 6 };
        CHECK (std::vector<float> (session.output().begin(), session.output().end()) == expected);
    }
    using Catch::Matchers::Contains;
    CHECK_THROWS_WITH (sessionFor (padGraph ("reflect", "[[0,0],[3,0]]", "[2,6]")), Contains ("reflect padding of 3 must be less than the size 3"));
    CHECK_THROWS_WITH (sessionFor (padGraph ("circular", "[[0,0],[1,1]]", "[2,5]")), Contains ("pad mode must be constant, reflect or replicate"));
}

TEST_CASE ("stft frames, windows and transforms: a direct DFT of each frame", "[engine][stft]")
{
    // x [1, 12], n_fft 6, hop 3: frames at 0, 3, 6; a window; onesided: 4 bins.
    const std::string graph = R"({"inputs":[0],"outputs":[2],"values":[{"shape":[1,12],"kind":"input"},{"shape":[6],"kind":"tensor","tensor":"w"},
        {"shape":[1,4,3,2],"kind":"node"}],"nodes":[{"op":"stft","inputs":[0,1],"outputs":[2],"attrs":{"n_fft":6,"hop_length":3,"scale":0.5}}]})";
    const std::vector<float> window { 0.1f, 0.5f, 1.0f, 1.0f, 0.5f, 0.1f };
    auto session = sessionFor (graph, { { "w", { 6 }, window } });
    std::vector<float> x (12);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float> (std::sin (0.7 * static_cast<double> (i)) + 0.1 * static_cast<double> (i));
    std::copy (x.begin(), x.end(), session.input().begin());
    session.run();
    const auto y = session.output();
    for (int f = 0; f < 4; ++f)
        for (int t = 0; t < 3; ++t)
        {
            double re = 0.0, im = 0.0;
            for (int j = 0; j < 6; ++j)
            {
                const double v = static_cast<double> (x[static_cast<std::size_t> (3 * t + j)]) * window[static_cast<std::size_t> (j)];
                re += v * std::cos (2.0 * std::numbers::pi * j * f / 6.0);
                im -= v * std::sin (2.0 * std::numbers::pi * j * f / 6.0);
            }
            const auto cell = static_cast<std::size_t> ((f * 3 + t) * 2);
            CHECK (y[cell] == Approx (0.5 * re).margin (1e-6));
            CHECK (y[cell + 1] == Approx (0.5 * im).margin (1e-6));
        }
}

TEST_CASE ("stft attributes and shapes are checked at load", "[engine][stft]")
{
    using Catch::Matchers::Contains;
    auto graph = [] (const std::string& input, const std::string& output, const std::string& attrs) {
        return R"({"inputs":[0],"outputs":[1],"values":[{"shape":)" + input + R"(,"kind":"input"},{"shape":)" + output
               + R"(,"kind":"node"}],"nodes":[{"op":"stft","inputs":[0],"outputs":[1],"attrs":)" + attrs + "}]}";
    };
    CHECK_NOTHROW (sessionFor (graph ("[1,16]", "[1,5,3,2]", R"({"n_fft":8,"hop_length":4})")));
    CHECK_NOTHROW (sessionFor (graph ("[1,16]", "[1,8,3,2]", R"({"n_fft":8,"hop_length":4,"onesided":false})")));
    CHECK_THROWS_WITH (sessionFor (graph ("[1,16]", "[1,5,3,2]", R"({"n_fft":0,"hop_length":4})")), Contains ("n_fft must be between 1 and"));
    CHECK_THROWS_WITH (sessionFor (graph ("[1,16]", "[1,5,3,2]", R"({"n_fft":8,"hop_length":0})")), Contains ("hop_length must be between"));
    CHECK_THROWS_WITH (sessionFor (graph ("[1,4]", "[1,5,1,2]", R"({"n_fft":8,"hop_length":4})")), Contains ("fewer than n_fft = 8"));
    CHECK_THROWS_WITH (sessionFor (graph ("[16]", "[1,5,3,2]", R"({"n_fft":8,"hop_length":4})")), Contains ("must be [batch, samples]"));
    CHECK_THROWS_AS (sessionFor (graph ("[1,16]", "[1,5,4,2]", R"({"n_fft":8,"hop_length":4})")), engine::ModelError);
}

TEST_CASE ("complex_abs gives the magnitude or the power of [real, imaginary] pairs", "[engine][stft]")
{
    auto graph = [] (bool squared) {
        return std::string (R"({"inputs":[0],"outputs":[1],"values":[{"shape":[3,2],"kind":"input"},{"shape":[3],"kind":"node"}],
            "nodes":[{"op":"complex_abs","inputs":[0],"outputs":[1],"attrs":{"squared":)")
               + (squared ? "true" : "false") + "}}]}";
    };
    const float z[] = { 3, 4, -5, 12, 1e-30f, 0 };
    for (const bool squared : { false, true })
    {
        auto session = sessionFor (graph (squared));
        std::copy (std::begin (z), std::end (z), session.input().begin());
        session.run();
        const auto y = session.output();
        CHECK (y[0] == (squared ? 25.0f : 5.0f));
        CHECK (y[1] == (squared ? 169.0f : 13.0f));
        CHECK (y[2] == (squared ? 0.0f : 1e-30f)); // no underflow to 0 in the magnitude: sums in double
    }
    using Catch::Matchers::Contains;
    CHECK_THROWS_WITH (sessionFor (R"({"inputs":[0],"outputs":[1],"values":[{"shape":[3,3],"kind":"input"},{"shape":[3],"kind":"node"}],
        "nodes":[{"op":"complex_abs","inputs":[0],"outputs":[1]}]})"),
                       Contains ("must end in an axis of 2"));
}
