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

TEST_CASE ("every form of gemm gives the same numbers on every run (whether it writes its output whole or adds into it)", "[engine]")
{
    // x [3, 4] @ w [4, 5] (w^T stored when trans_b), then alpha and beta * c as each form has them.
    struct Form
    {
        const char* attrs;
        std::vector<int64_t> biasShape; // none when empty
        float alpha, beta;
        bool transB;
    };
    const Form forms[] = {
        { R"({"alpha":0.5})", {}, 0.5f, 1.0f, false },                 // scaled, no bias: adds into a zeroed output
        { R"({})", {}, 1.0f, 1.0f, false },                            // no bias: written whole
        { R"({"trans_b":true})", { 5 }, 1.0f, 1.0f, true },            // a bias per column: written whole
        { R"({})", { 3, 1 }, 1.0f, 1.0f, false },                      // a bias per row: adds into it
        { R"({"alpha":2.0,"beta":0.5})", { 3, 5 }, 2.0f, 0.5f, false } // scaled, a bias per element
    };
    const std::vector<float> x { 1, -2, 3, 0.5f, -1, 0, 2, 1, 0.25f, 4, -3, 2 };
    std::vector<float> w (20);
    for (std::size_t i = 0; i < w.size(); ++i)
        w[i] = 0.1f * static_cast<float> (i) - 0.7f;
    for (const auto& form : forms)
    {
        INFO ("gemm attrs " << form.attrs << ", bias of " << form.biasShape.size() << " axes");
        const bool hasBias = ! form.biasShape.empty();
        std::string biasShape;
        for (const auto d : form.biasShape)
            biasShape += (biasShape.empty() ? "" : ",") + std::to_string (d);
        const std::string biasValue = hasBias ? R"({"shape":[)" + biasShape + R"(],"kind":"tensor","tensor":"c"},)"
                                              : R"({"shape":[1],"kind":"tensor","tensor":"unused"},)";
        const std::string graph = R"({"inputs":[0],"outputs":[3],"values":[
            {"shape":[3,4],"kind":"input"},{"shape":)"
                                  + std::string (form.transB ? "[5,4]" : "[4,5]") + R"(,"kind":"tensor","tensor":"w"},)"
                                  + biasValue + R"({"shape":[3,5],"kind":"node"}],
            "nodes":[{"op":"gemm","inputs":[0,1)"
                                  + std::string (hasBias ? ",2" : "") + R"(],"outputs":[3],"attrs":)" + form.attrs + "}]}";
        std::vector<float> bias (hasBias ? static_cast<std::size_t> (form.biasShape.size() == 1 ? 5 : form.biasShape[0] * form.biasShape[1]) : 1);
        for (std::size_t i = 0; i < bias.size(); ++i)
            bias[i] = 0.3f * static_cast<float> (i) - 1.0f;
        std::vector<TestTensor> tensors { { "w", form.transB ? std::vector<int64_t> { 5, 4 } : std::vector<int64_t> { 4, 5 }, w } };
        tensors.push_back (hasBias ? TestTensor { "c", form.biasShape, bias } : TestTensor { "unused", { 1 }, { 0.0f } });
        const auto bytes = safetensorsBytes (tensors, modelMetadata (graph));
        engine::Session session (engine::Model::fromMemory (bytes.data(), bytes.size(), "gemm forms"));
        std::copy (x.begin(), x.end(), session.input().begin());
        std::vector<float> expected (15);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 5; ++j)
            {
                double sum = 0.0;
                for (int p = 0; p < 4; ++p)
                    sum += static_cast<double> (x[static_cast<std::size_t> (i * 4 + p)])
                           * w[static_cast<std::size_t> (form.transB ? j * 4 + p : p * 5 + j)];
                double c = 0.0;
                if (form.biasShape.size() == 1)
                    c = bias[static_cast<std::size_t> (j)];
                else if (hasBias)
                    c = bias[static_cast<std::size_t> (form.biasShape[1] == 1 ? i : i * 5 + j)];
                expected[static_cast<std::size_t> (i * 5 + j)] = static_cast<float> (form.alpha * sum + form.beta * c);
            }
        for (int run = 0; run < 3; ++run)
        {
            INFO ("run " << run);
            session.run();
            CHECK (maxAbsDifference (session.output(), expected) <= 1e-5f);
        }
    }
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
