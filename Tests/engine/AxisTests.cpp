// Axis attributes: one rule for every op (valid axes of a rank-r value are -r..r-1; a 0-d value
// has none), except where PyTorch takes dim 0 or -1 of a 0-d value: there the engine computes
// what PyTorch computes. A 0-d value reached ops that indexed a dimension it does not have (a
// concat wrote past the arena; softmax and cumsum returned zeros).
#include "engine/Session.h"
#include "engine/file/ModelError.h"
#include "support/GraphBuilder.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace sonotype;
using namespace sonotype::testing;
using Catch::Matchers::Contains;

namespace
{
/** The graph input [1] holding `value`, reshaped to a 0-d value; returns the 0-d value's id. */
int scalarFrom (GraphBuilder& g)
{
    return g.node ("reshape", { g.input ({ 1 }) }, { {} });
}

std::vector<float> runOn (const GraphBuilder& g, const std::vector<int>& outputs, float value)
{
    engine::Session session (g.load (outputs));
    session.input()[0] = value;
    session.run();
    std::vector<float> values;
    for (std::size_t i = 0; i < outputs.size(); ++i)
        for (float v : session.output (i))
            values.push_back (v);
    return values;
}

std::string refusal (const GraphBuilder& g, const std::vector<int>& outputs)
{
    try
    {
        g.load (outputs);
    }
    catch (const engine::ModelError& e)
    {
        return e.what();
    }
    return "";
}
} // namespace

TEST_CASE ("ops PyTorch runs on a 0-d value with dim 0 or -1 compute what PyTorch computes", "[engine][axes]")
{
    // torch 1.13: softmax(tensor(3.), 0) = 1, log_softmax = 0, cumsum = 3, sum/mean/amax/amin = 3,
    // var (correction 1) = nan, var (correction 0) = 0, argmax = 0, topk(k=1 or 0) = (3, 0),
    // index_select(dim 0, [0]) = 3; every result 0-d.
    struct Case
    {
        const char* op;
        const char* attrs;
        std::vector<float> expected; // NaN: expect NaN
        int numOutputs = 1;
    };
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const Case cases[] = {
        { "softmax", R"("axis":0)", { 1.0f } },
        { "softmax", R"("axis":-1)", { 1.0f } },
        { "log_softmax", R"("axis":0)", { 0.0f } },
        { "cumsum", R"("axis":0)", { 3.0f } },
        { "reduce_sum", R"("axes":[0])", { 3.0f } },
        { "reduce_mean", R"("axes":[-1],"keepdim":true)", { 3.0f } },
        { "reduce_max", R"("axes":[0])", { 3.0f } },
        { "reduce_min", R"("axes":[0])", { 3.0f } },
        { "var", R"("axes":[0])", { nan } },
        { "var", R"("axes":[0],"correction":0)", { 0.0f } },
        { "argmax", R"("axis":0)", { 0.0f } },
        { "argmin", R"("axis":-1,"keepdim":true)", { 0.0f } },
        { "topk", R"("axis":0,"k":1)", { 3.0f, 0.0f }, 2 },
        { "topk", R"("axis":0,"k":0)", { 3.0f, 0.0f }, 2 },
        { "index_select", R"("axis":0,"indices":[0])", { 3.0f } },
    };
    for (const auto& c : cases)
    {
        INFO (c.op << " {" << c.attrs << "}");
        GraphBuilder g;
        const int x = scalarFrom (g);
        const int y = g.node (c.op, { x }, std::vector<GraphBuilder::Dims> (static_cast<std::size_t> (c.numOutputs), GraphBuilder::Dims {}), c.attrs);
        std::vector<int> outputs { y };
        if (c.numOutputs == 2)
            outputs.push_back (y + 1);
        const auto values = runOn (g, outputs, 3.0f);
        REQUIRE (values.size() == c.expected.size());
        for (std::size_t i = 0; i < values.size(); ++i)
        {
            if (std::isnan (c.expected[i]))
                CHECK (std::isnan (values[i]));
            else
                CHECK (values[i] == c.expected[i]);
        }
    }
}

TEST_CASE ("ops PyTorch refuses on a 0-d value are refused, naming the axis", "[engine][axes]")
{
    struct Case
    {
        const char* op;
        const char* attrs;
        GraphBuilder::Dims output;
        const char* message;
    };
    const Case cases[] = {
        // the heap overflow: a concat of 0-d values wrote one float per input into a 0-d output
        { "concat", R"("axis":0)", {}, "attribute 'axis' = 0 names an axis of a 0-d value, which has none" },
        { "slice", R"("axis":0,"start":0)", {}, "attribute 'axis' = 0 names an axis of a 0-d value, which has none" },
        { "layer_norm", R"("axis":0,"eps":1e-5)", {}, "attribute 'axis' = 0 names an axis of a 0-d value, which has none" },
        { "softmax", R"("axis":1)", {}, "attribute 'axis' = 1 is out of range for a rank-0 value (valid: -1 to 0)" },
        { "cumsum", R"("axis":-2)", {}, "attribute 'axis' = -2 is out of range for a rank-0 value (valid: -1 to 0)" },
        { "reduce_sum", R"("axes":[1])", {}, "reduction axis = 1 is out of range for a rank-0 value (valid: -1 to 0)" },
        { "topk", R"("axis":0,"k":2)", {}, "topk k = 2 for an axis of 1" },
        { "index_select", R"("axis":0,"indices":[1])", {}, "index 1 is outside axis 0 of size 1" },
    };
    for (const auto& c : cases)
    {
        INFO (c.op << " {" << c.attrs << "}");
        GraphBuilder g;
        const int x = scalarFrom (g);
        const std::vector<int> inputs = std::string (c.op) == "concat" ? std::vector<int> { x, x, x } : std::vector<int> { x };
        const int y = g.node (c.op, inputs, { c.output }, c.attrs);
        CHECK_THAT (refusal (g, { y }), Contains (c.message));
    }
}

TEST_CASE ("axes count from the end when negative, and one past either end is refused", "[engine][axes]")
{
    for (const char* op : { "softmax", "log_softmax", "cumsum" })
    {
        INFO (op);
        std::vector<float> results[2];
        for (int i = 0; i < 2; ++i)
        {
            GraphBuilder g;
            const int x = g.input ({ 2, 3 });
            const int y = g.node (op, { x }, { { 2, 3 } }, i == 0 ? R"("axis":1)" : R"("axis":-1)");
            engine::Session session (g.load ({ y }));
            const float values[] = { 0.5f, -1.0f, 2.0f, 3.0f, 0.25f, -0.75f };
            std::copy (std::begin (values), std::end (values), session.input().begin());
            session.run();
            results[i].assign (session.output().begin(), session.output().end());
        }
        CHECK (results[0] == results[1]);
    }
    for (const char* attrs : { R"("axis":2)", R"("axis":-3)" })
    {
        GraphBuilder g;
        const int x = g.input ({ 2, 3 });
        const int y = g.node ("softmax", { x }, { { 2, 3 } }, attrs);
        CHECK_THAT (refusal (g, { y }), Contains ("is out of range for a rank-2 value (valid: -2 to 1)"));
    }
    GraphBuilder g;
    const int x = g.input ({ 2, 3 });
    const int y = g.node ("reduce_sum", { x }, { { 2 } }, R"("axes":[1,-1])");
    CHECK_THAT (refusal (g, { y }), Contains ("reduction axis -1 is listed twice"));
}
