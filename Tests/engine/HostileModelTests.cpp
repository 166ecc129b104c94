// Hostile model files: every class of crafted file is refused with its specific message before it
// can allocate, loop or touch memory it should not; budgets and checked sizes, tested directly.
#include "engine/Session.h"
#include "engine/file/CheckedArithmetic.h"
#include "engine/file/FrontendSettings.h"
#include "engine/file/LoadBudget.h"
#include "support/GraphBuilder.h"
#include "support/HostileModels.h"
#include "support/SafetensorsWriter.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <random>

using namespace sonotype;
using namespace sonotype::testing;
using Catch::Matchers::Contains;

namespace
{
std::string refusal (const HostileModel& hostile)
{
    try
    {
        engine::Model::load (hostile.path, hostile.limits);
    }
    catch (const engine::ModelError& e)
    {
        return e.what();
    }
    return "";
}

bool hasControlBytes (const std::string& text)
{
    return std::any_of (text.begin(), text.end(), [] (char c) { return static_cast<unsigned char> (c) < 0x20 || c == 0x7f; });
}

std::vector<std::uint8_t> modelBytes (const std::string& graph, const std::vector<TestTensor>& tensors = {})
{
    return safetensorsBytes (tensors, modelMetadata (graph));
}
} // namespace

TEST_CASE ("every file of the hostile corpus is refused with its own message", "[hostile]")
{
    const auto corpus = hostileModels();
    REQUIRE (corpus.size() >= 25);
    for (const auto& hostile : corpus)
    {
        INFO (hostile.path << ": " << hostile.description);
        const auto message = refusal (hostile);
        if (hostile.stage == "valid")
        {
            CHECK (message.empty());
            continue;
        }
        CHECK_THAT (message, Contains (hostile.expect));
        CHECK_FALSE (hasControlBytes (message));
    }
}

TEST_CASE ("the valid base of the corpus runs and gives finite outputs", "[hostile]")
{
    engine::Session session (engine::Model::load (hostileModelsDir() + "/valid_base.safetensors"));
    std::fill (session.input().begin(), session.input().end(), 0.5f);
    session.run();
    REQUIRE (session.output().size() == 3);
    for (float value : session.output())
        CHECK (std::isfinite (value));
}

TEST_CASE ("a 60 MiB header that would expand past the budget while parsing is refused", "[hostile]")
{
    // "[]," is three bytes of text and a JSON value of 40 bytes (more while its list grows): 60 MiB
    // would parse into ~1.7 GB, past a budget of 1 GiB.
    std::string header = "{\"__metadata__\":{},\"x\":[";
    header.reserve (60u << 20);
    while (header.size() < (60u << 20))
        header += "[],";
    header += "[]]}";
    const auto bytes = safetensorsBytes (header, {});
    engine::LoadLimits limits;
    limits.maxMemoryBytes = std::size_t { 1 } << 30;
    REQUIRE_THROWS_WITH (engine::Model::fromMemory (bytes.data(), bytes.size(), "bomb", limits), Contains ("the parsed JSON would take more than"));
}

TEST_CASE ("budgets are configurable and name the need", "[hostile]")
{
    // gemm [1, 64] x [64, 64]: 4096 multiply-adds (more with the micro-kernel's padding of the one
    // row), the passes over the operands and the call, weighed for the kernel path.
    const std::string graph = R"({"inputs":[0],"outputs":[2],"values":[{"shape":[1,64],"kind":"input"},
        {"shape":[64,64],"kind":"tensor","tensor":"w"},{"shape":[1,64],"kind":"node"}],
        "nodes":[{"op":"gemm","inputs":[0,1],"outputs":[2]}]})";
    const auto bytes = modelBytes (graph, { { "w", { 64, 64 }, std::vector<float> (64 * 64, 0.5f) } });
    const auto model = engine::Model::fromMemory (bytes.data(), bytes.size(), "gemm");
    CHECK (model->info().multiplyAdds == Approx (4096));
    CHECK (model->info().opsPerRun > 4096 + 64 + 4096 + 64);
    CHECK (model->info().opsPerRun < 100 * 4096);
    CHECK (model->info().loadBytes >= 64 * 64 * sizeof (float));

    engine::LoadLimits tight;
    tight.maxOpsPerRun = 5000;
    REQUIRE_THROWS_WITH (engine::Model::fromMemory (bytes.data(), bytes.size(), "gemm", tight),
                         Contains ("operations per run, more than the work budget of 5e+03 (node 0 (gemm) alone"));
    engine::LoadLimits small;
    small.maxMemoryBytes = 8 * 1024;
    REQUIRE_THROWS_WITH (engine::Model::fromMemory (bytes.data(), bytes.size(), "gemm", small),
                         Contains ("the weights (1 tensors) needs 16 KiB, more than the memory budget allows (8.0 KiB in all"));
}

TEST_CASE ("a graph of 600,000 values loads: planning is not quadratic", "[hostile]")
{
    // A chain of relu nodes as long as the 64 MiB header allows: the old all-pairs planner took
    // minutes on such a graph.
    constexpr int kValues = 600'000;
    std::string graph = R"({"inputs":[0],"outputs":[)" + std::to_string (kValues - 1) + R"(],"values":[{"shape":[4],"kind":"input"})";
    for (int v = 1; v < kValues; ++v)
        graph += R"(,{"shape":[4],"kind":"node"})";
    graph += R"(],"nodes":[)";
    for (int v = 1; v < kValues; ++v)
        graph += (v > 1 ? "," : "") + std::string (R"({"op":"relu","inputs":[)") + std::to_string (v - 1) + R"(],"outputs":[)" + std::to_string (v) + "]}";
    graph += "]}";
    const auto bytes = modelBytes (graph);
    const auto model = engine::Model::fromMemory (bytes.data(), bytes.size(), "chain");
    CHECK (model->info().numNodes == kValues - 1);
    // Two buffers of 16 floats (rounded to 64 bytes) take turns along the chain, plus the input.
    CHECK (model->info().activationBytes <= 3 * 64);
    engine::Session session (model);
    session.input()[0] = -1.0f;
    session.input()[1] = 2.0f;
    session.run();
    CHECK (session.output()[0] == 0.0f);
    CHECK (session.output()[1] == 2.0f);

    const auto tooMany = modelBytes (R"({"inputs":[0],"outputs":[0],"values":[)" + std::string (1'048'577 * 3, ' ').replace (0, 1, "0") + "]}");
    CHECK_THROWS (engine::Model::fromMemory (tooMany.data(), tooMany.size(), "many"));
}

TEST_CASE ("the planner never lets two live buffers overlap (random graphs)", "[hostile][planner]")
{
    // Random DAGs over values of one random size, computed by the engine and by a plain double
    // reference: memory shared by two live values would change the results.
    std::mt19937 random (1234);
    for (int trial = 0; trial < 40; ++trial)
    {
        const auto width = static_cast<std::size_t> (1 + random() % 40);
        const int numNodes = 5 + static_cast<int> (random() % 60);
        const auto shape = R"({"shape":[)" + std::to_string (width) + R"(],"kind":)";
        std::string values = shape + R"("input"})", nodes;
        std::vector<std::vector<double>> reference (1, std::vector<double> (width));
        for (std::size_t i = 0; i < width; ++i)
            reference[0][i] = 0.25 * static_cast<double> (i % 7) - 0.5;
        for (int n = 1; n <= numNodes; ++n)
        {
            const auto a = random() % reference.size(), b = random() % reference.size();
            const char* ops[] = { "add", "maximum", "minimum", "neg", "tanh" };
            const int op = static_cast<int> (random() % 5);
            std::vector<double> result (width);
            for (std::size_t i = 0; i < width; ++i)
            {
                const double x = reference[a][i], y = reference[b][i];
                result[i] = op == 0 ? x + y : op == 1 ? std::max (x, y)
                                          : op == 2   ? std::min (x, y)
                                          : op == 3   ? -x
                                                      : std::tanh (x);
            }
            reference.push_back (result);
            values += "," + shape + R"("node"})";
            nodes += std::string (n > 1 ? "," : "") + R"({"op":")" + ops[op] + R"(","inputs":[)" + std::to_string (a)
                     + (op < 3 ? "," + std::to_string (b) : std::string()) + R"(],"outputs":[)" + std::to_string (n) + "]}";
        }
        const std::size_t outputs[] = { reference.size() - 1, reference.size() / 2 };
        const auto bytes = modelBytes (R"({"inputs":[0],"outputs":[)" + std::to_string (outputs[0]) + "," + std::to_string (outputs[1])
                                       + R"(],"values":[)" + values + R"(],"nodes":[)" + nodes + "]}");
        engine::Session session (engine::Model::fromMemory (bytes.data(), bytes.size(), "random"));
        for (std::size_t i = 0; i < width; ++i)
            session.input()[i] = static_cast<float> (reference[0][i]);
        session.run();
        for (std::size_t o = 0; o < 2; ++o)
            for (std::size_t i = 0; i < width; ++i)
                CHECK (session.output (o)[i] == Approx (reference[outputs[o]][i]).margin (1e-4).epsilon (1e-4));
    }
}

TEST_CASE ("shapes and sizes refuse to overflow", "[hostile]")
{
    engine::Shape shape { 1 << 20, 1 << 20 };
    CHECK_THROWS_WITH (shape.push (2), Contains ("more than 2^40 elements"));
    CHECK (engine::Shape ({ 0, int64_t { 1 } << 40 }).loopCount() == int64_t { 1 } << 40);
    CHECK_THROWS_WITH (engine::Shape ({ 0, int64_t { 1 } << 40, 2 }), Contains ("more than 2^40 elements"));
    CHECK_THROWS_WITH (engine::Shape ({ 4, 5 }).with (0, int64_t { 1 } << 39), Contains ("more than 2^40 elements"));
    CHECK_THROWS_WITH (engine::checkedMul (int64_t { 1 } << 40, int64_t { 1 } << 40, "a product"), Contains ("a product overflows"));
    CHECK_THROWS_WITH (engine::checkedAdd (INT64_MAX, 1, "a sum"), Contains ("a sum overflows"));
    engine::LoadBudget budget (engine::LoadLimits {});
    CHECK_THROWS_WITH (budget.claim (uint64_t { 1 } << 62, 8, "a table"), Contains ("a table needs"));
    CHECK (budget.usedBytes() == 0);
}

TEST_CASE ("messages quote file text printably", "[hostile]")
{
    CHECK (engine::printable ("plain text, ünïcödé") == "plain text, ünïcödé");
    CHECK (engine::printable ("\x1b[2J\x07\x7f") == "\\x1b[2J\\x07\\x7f");
    CHECK (engine::printable ("\xff\xc3") == "\\xff\\xc3"); // not UTF-8
    CHECK (std::string (engine::ModelError ("name '\x1b]0;x\x07'").what()) == "name '\\x1b]0;x\\x07'");
}

TEST_CASE ("folders, devices and pipes are not read as model files", "[hostile]")
{
    CHECK_THROWS_WITH (engine::Model::load (hostileModelsDir()), Contains ("is a folder, not a model file"));
    CHECK_THROWS_WITH (engine::Model::load ("/dev/zero"), Contains ("is not a regular file, not a model file"));
}

TEST_CASE ("every number attribute of every op is refused outside its range, naming it, its value and the range", "[hostile]")
{
    struct Case
    {
        const char* op;
        const char* attrs;
        int inputs;
        const char* message;
    };
    const Case cases[] = {
        { "clamp", R"("min":1e39)", 1, "attribute 'min' = 1e+39 is outside its range [-3.40282347e+38, 3.40282347e+38]" },
        { "clamp", R"("max":-1e39)", 1, "attribute 'max' = -1e+39 is outside its range" },
        { "leaky_relu", R"("negative_slope":1e300)", 1, "attribute 'negative_slope' = 1e+300 is outside its range [-1e+09, 1e+09]" },
        { "elu", R"("alpha":-1e12)", 1, "attribute 'alpha' = -1e+12 is outside its range" },
        { "elu", R"("input_scale":1e20)", 1, "attribute 'input_scale' = 1e+20 is outside its range" },
        { "softplus", R"("beta":0)", 1, "attribute 'beta' = 0 is outside its range [1e-06, 1000000]" },
        { "softplus", R"("threshold":1e9)", 1, "attribute 'threshold' = 1e+09 is outside its range [-1000000, 1000000]" },
        { "layer_norm", R"("axis":1,"eps":1e300)", 1, "attribute 'eps' = 1e+300 is outside its range [0, 1]" },
        { "layer_norm", R"("axis":1,"eps":-1)", 1, "attribute 'eps' = -1 is outside its range [0, 1]" },
        { "pad", R"("pads":[[0,0],[1,1]],"value":-1e39)", 1, "attribute 'value' = -1e+39 is outside its range" },
        { "var", R"("axes":[1],"correction":1e30)", 1, "attribute 'correction' = 1e+30 is outside its range" },
        { "gemm", R"("alpha":1e30)", 2, "attribute 'alpha' = 1e+30 is outside its range" },
        { "attention", R"("scale":1e30)", 3, "attribute 'scale' = 1e+30 is outside its range" },
    };
    for (const auto& c : cases)
    {
        INFO (c.op << " {" << c.attrs << "}");
        GraphBuilder g;
        std::vector<int> inputs;
        for (int i = 0; i < c.inputs; ++i)
            inputs.push_back (g.input ({ 4, 4 }));
        const std::string op = c.op;
        const GraphBuilder::Dims out = op == "pad" ? GraphBuilder::Dims { 4, 6 } : op == "var" ? GraphBuilder::Dims { 4 }
                                                                                               : GraphBuilder::Dims { 4, 4 };
        const int y = g.node (c.op, inputs, { out }, c.attrs);
        try
        {
            g.load ({ y });
            FAIL ("loaded");
        }
        catch (const engine::ModelError& e)
        {
            CHECK_THAT (std::string (e.what()), Contains (c.message));
        }
    }
}

TEST_CASE ("the engine fuzzer's findings load and run without harm (under the sanitizers: no report)", "[hostile]")
{
    // Tests/fuzz/regressions/engine: inputs that once crashed the engine (scripts/fuzz.sh replays
    // them first too). Each is refused with a message or loads and runs on zeros.
    const std::filesystem::path folder = std::string (SONOTYPE_SOURCE_DIR) + "/Tests/fuzz/regressions/engine";
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator (folder))
    {
        INFO (entry.path().string());
        ++files;
        std::shared_ptr<const engine::Model> model;
        try
        {
            model = engine::Model::load (entry.path().string());
        }
        catch (const engine::ModelError&)
        {
            continue;
        }
        engine::Session session (model);
        for (std::size_t i = 0; i < model->info().inputShapes.size(); ++i)
            std::fill (session.input (i).begin(), session.input (i).end(), 0.0f);
        session.run();
        for (float value : session.output())
            CHECK_FALSE (std::isnan (value));
    }
    CHECK (files >= 2);
}
