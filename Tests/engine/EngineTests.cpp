// Running models: hand-checked numbers on a tiny graph, and PyTorch's outputs on exported models.
#include "cli/Npy.h"
#include "engine/Session.h"
#include "support/Fixtures.h"
#include "support/SafetensorsWriter.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
float maxAbsDifference (std::span<const float> a, const std::vector<float>& b)
{
    REQUIRE (a.size() == b.size());
    float worst = 0.0f;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max (worst, std::fabs (a[i] - b[i]));
    return worst;
}
} // namespace

TEST_CASE ("a tiny linear + softmax graph gives hand-computed numbers", "[engine]")
{
    const std::string graph = R"({"inputs":[0],"outputs":[4],"values":[
        {"shape":[2,3],"kind":"input"},{"shape":[2,3],"kind":"tensor","tensor":"w"},{"shape":[2],"kind":"tensor","tensor":"b"},
        {"shape":[2,2],"kind":"node"},{"shape":[2,2],"kind":"node"}],
      "nodes":[{"op":"gemm","inputs":[0,1,2],"outputs":[3],"attrs":{"trans_b":true}},
               {"op":"softmax","inputs":[3],"outputs":[4],"attrs":{"axis":1}}]})";
    const std::vector<TestTensor> tensors { { "w", { 2, 3 }, { 1, 2, 3, -1, 0, 1 } }, { "b", { 2 }, { 0.5f, -0.5f } } };
    const auto bytes = safetensorsBytes (tensors, modelMetadata (graph));
    engine::Session session (engine::Model::fromMemory (bytes.data(), bytes.size(), "tiny"));
    const float x[] = { 1, 0, 0, 0, 1, 1 };
    std::copy (std::begin (x), std::end (x), session.input().begin());
    session.run();
    // logits: row 0 = [1 + 0.5, -1 - 0.5] = [1.5, -1.5]; row 1 = [5 + 0.5, 1 - 0.5] = [5.5, 0.5]
    const auto y = session.output();
    const auto softmax = [] (float a, float b) { return 1.0f / (1.0f + std::exp (b - a)); };
    CHECK (y[0] == Approx (softmax (1.5f, -1.5f)).margin (1e-6));
    CHECK (y[1] == Approx (1.0f - softmax (1.5f, -1.5f)).margin (1e-6));
    CHECK (y[2] == Approx (softmax (5.5f, 0.5f)).margin (1e-6));
    CHECK (y[3] == Approx (1.0f - softmax (5.5f, 0.5f)).margin (1e-6));
}

TEST_CASE ("exported models reproduce PyTorch's outputs", "[engine][fixtures]")
{
    const auto name = GENERATE (as<std::string> {}, "seed000", "large_transformer", "recurrent_tagger");
    const auto model = engine::Model::load (fixturePath (name + ".safetensors"));
    const auto input = cli::readNpy (fixturePath (name + ".input.npy"));
    const auto expected = cli::readNpy (fixturePath (name + ".expected.npy"));
    engine::Session session (model);
    REQUIRE (session.input().size() == input.data.size());
    std::copy (input.data.begin(), input.data.end(), session.input().begin());
    session.run();
    INFO (name);
    CHECK (maxAbsDifference (session.output(), expected.data) <= 1e-5f);

    SECTION ("running again, or in a second session, gives identical results")
    {
        const std::vector<float> first (session.output().begin(), session.output().end());
        session.run();
        CHECK (std::equal (first.begin(), first.end(), session.output().begin()));
        engine::Session other (model);
        std::copy (input.data.begin(), input.data.end(), other.input().begin());
        other.run();
        CHECK (std::equal (first.begin(), first.end(), other.output().begin()));
    }
}

TEST_CASE ("activation memory is reused across the graph", "[engine][fixtures]")
{
    const auto model = engine::Model::load (fixturePath ("large_transformer.safetensors"));
    // 6 layers x 256 tokens x 256 features: without reuse, every intermediate would need its own buffer.
    const auto& info = model->info();
    CHECK (info.activationBytes > 0);
    CHECK (info.activationBytes * 10 < info.activationBytesWithoutReuse);
}
