// Layout fusion at load (engine/Fusion.cpp): permutes and slices that attention reads through
// strides instead of running them. Each graph's output is checked against attention computed
// here in double from the graph input, whether or not the engine chose to absorb the copies, and
// each case says which it expects (a view the kernel cannot read must fall back to the copy).
#include "engine/Session.h"
#include "support/GraphBuilder.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** Where q, k or v comes from: a slice of the input [batch, tokens, width] along `axis`
    (start, step, length), reshaped to [batch, tokens', heads, features] and permuted to
    [batch, heads, tokens', features]. */
struct Operand
{
    int axis;
    int64_t start, step, length;
};

struct Case
{
    const char* name;
    int64_t batch, tokens, width, heads;
    Operand q, k, v;
    bool sliceReadTwice; // a slice's output also a graph output: it must run
    int slicesAbsorbed;  // how many slices the fusion should absorb
};

/** Input element of operand `o` at (b, h, t, f) for `heads` heads. */
double element (const std::vector<float>& x, const Case& c, const Operand& o, int64_t b, int64_t h, int64_t t, int64_t f)
{
    const int64_t features = (o.axis == 2 ? o.length : c.width) / c.heads;
    int64_t token = t, column = h * features + f;
    if (o.axis == 2)
        column = o.start + column * o.step;
    else
        token = o.start + token * o.step;
    return x[static_cast<std::size_t> ((b * c.tokens + token) * c.width + column)];
}

int64_t tokensOf (const Case& c, const Operand& o) { return o.axis == 1 ? o.length : c.tokens; }
int64_t featuresOf (const Case& c, const Operand& o) { return (o.axis == 2 ? o.length : c.width) / c.heads; }

/** The operand's path through slice, reshape and permute; returns the permuted value. */
int operandValue (GraphBuilder& g, int x, const Case& c, const Operand& o, std::vector<int>& slices)
{
    const int64_t tokens = tokensOf (c, o), features = featuresOf (c, o);
    const auto sliced = GraphBuilder::Dims { c.batch, tokens, features * c.heads };
    const int slice = g.node ("slice", { x }, { sliced },
                              "\"axis\":" + std::to_string (o.axis) + ",\"start\":" + std::to_string (o.start) + ",\"step\":" + std::to_string (o.step));
    slices.push_back (slice);
    const int split = g.node ("reshape", { slice }, { { c.batch, tokens, c.heads, features } });
    return g.node ("permute", { split }, { { c.batch, c.heads, tokens, features } }, "\"perm\":[0,2,1,3]");
}
} // namespace

TEST_CASE ("attention reads q, k and v through the slices and permutes before it, or falls back to running them", "[engine][fusion]")
{
    const Case cases[] = {
        // A transformer's in-projection split three ways, one sequence and three.
        { "q, k, v from one product", 1, 13, 3 * 32, 4, { 2, 0, 1, 32 }, { 2, 32, 1, 32 }, { 2, 64, 1, 32 }, false, 3 },
        { "batch of three", 3, 9, 3 * 24, 2, { 2, 0, 1, 24 }, { 2, 24, 1, 24 }, { 2, 48, 1, 24 }, false, 3 },
        // Keys and values a window of the tokens: a slice along the token axis.
        { "tokens sliced", 2, 20, 16, 2, { 1, 0, 1, 20 }, { 1, 3, 1, 11 }, { 1, 5, 1, 11 }, false, 3 },
        // Every other column: features two apart, which the kernel cannot read (v's slice it can).
        { "columns with a step", 1, 7, 32, 2, { 2, 0, 2, 16 }, { 2, 1, 2, 16 }, { 2, 0, 1, 32 }, false, 1 },
        // Every other token: a row stride of two rows, which it can.
        { "tokens with a step", 1, 15, 16, 1, { 1, 0, 2, 8 }, { 1, 1, 2, 7 }, { 1, 2, 2, 7 }, false, 3 },
        // A slice read by someone else too (k's, a graph output) must run.
        { "slice read twice", 1, 6, 24, 2, { 2, 0, 1, 8 }, { 2, 8, 1, 8 }, { 2, 16, 1, 8 }, true, 2 },
    };
    std::mt19937 random (11);
    std::normal_distribution<float> normal;
    for (const auto& c : cases)
    {
        INFO (c.name);
        GraphBuilder g;
        const int x = g.input ({ c.batch, c.tokens, c.width });
        std::vector<int> slices;
        const int q = operandValue (g, x, c, c.q, slices), k = operandValue (g, x, c, c.k, slices), v = operandValue (g, x, c, c.v, slices);
        const int64_t l = tokensOf (c, c.q), s = tokensOf (c, c.k), d = featuresOf (c, c.q), dv = featuresOf (c, c.v);
        const double scale = 1.0 / std::sqrt (static_cast<double> (d));
        const int out = g.node ("attention", { q, k, v, -1 }, { { c.batch, c.heads, l, dv } }, "\"scale\":" + std::to_string (scale));
        std::vector<int> outputs { out };
        if (c.sliceReadTwice)
            outputs.push_back (slices[1]);
        const auto model = g.load (outputs);

        int absorbed = 0;
        for (const auto& node : model->nodes())
            if (node.op() == "slice" && node.kernel->aliasesInput())
                ++absorbed;
        CHECK (absorbed == c.slicesAbsorbed);

        engine::Session session (model);
        std::vector<float> input (session.input().size());
        for (auto& value : input)
            value = normal (random);
        std::copy (input.begin(), input.end(), session.input().begin());
        session.run();
        const auto y = session.output (0);
        double worst = 0.0;
        for (int64_t b = 0; b < c.batch; ++b)
            for (int64_t h = 0; h < c.heads; ++h)
                for (int64_t i = 0; i < l; ++i)
                {
                    std::vector<double> p (static_cast<std::size_t> (s));
                    double maximum = -INFINITY, sum = 0.0;
                    for (int64_t j = 0; j < s; ++j)
                    {
                        double dot = 0.0;
                        for (int64_t f = 0; f < d; ++f)
                            dot += element (input, c, c.q, b, h, i, f) * element (input, c, c.k, b, h, j, f);
                        p[static_cast<std::size_t> (j)] = dot * scale;
                        maximum = std::max (maximum, dot * scale);
                    }
                    for (auto& e : p)
                        sum += (e = std::exp (e - maximum));
                    for (int64_t f = 0; f < dv; ++f)
                    {
                        double expected = 0.0;
                        for (int64_t j = 0; j < s; ++j)
                            expected += p[static_cast<std::size_t> (j)] / sum * element (input, c, c.v, b, h, j, f);
                        worst = std::max (worst, std::abs (expected - y[static_cast<std::size_t> (((b * c.heads + h) * l + i) * dv + f)]));
                    }
                }
        CHECK (worst < 1e-5);
        if (c.sliceReadTwice)
        {
            const auto second = session.output (1); // the k slice, as the graph computes it
            bool same = true;
            for (int64_t b = 0; b < c.batch; ++b)
                for (int64_t t = 0; t < c.tokens; ++t)
                    for (int64_t column = 0; column < c.k.length; ++column)
                        same = same && second[static_cast<std::size_t> ((b * c.tokens + t) * c.k.length + column)] == input[static_cast<std::size_t> ((b * c.tokens + t) * c.width + c.k.start + column)];
            CHECK (same);
        }
    }
}

TEST_CASE ("a view that crosses a slice's rows is not a strided one: the slice runs and attention reads its copy", "[engine][fusion]")
{
    // Columns 4..27 of [1, 4, 32], reshaped to [1, 2, 3, 16]: head 1 of a merged row takes the
    // last 8 columns of one sliced row and the first 8 of the next.
    GraphBuilder g;
    const int x = g.input ({ 1, 4, 32 });
    int operands[3];
    for (auto& heads : operands) // q, k and v the same, each through its own nodes (a permute read once)
    {
        const int slice = g.node ("slice", { x }, { { 1, 4, 24 } }, "\"axis\":2,\"start\":4,\"step\":1");
        const int merged = g.node ("reshape", { slice }, { { 1, 2, 3, 16 } });
        heads = g.node ("permute", { merged }, { { 1, 3, 2, 16 } }, "\"perm\":[0,2,1,3]");
    }
    const int out = g.node ("attention", { operands[0], operands[1], operands[2], -1 }, { { 1, 3, 2, 16 } }, "\"scale\":0.25");
    const auto model = g.load ({ out });
    for (const auto& node : model->nodes())
    {
        if (node.op() == "slice")
            CHECK_FALSE (node.kernel->aliasesInput());
        if (node.op() == "permute")
            CHECK (node.kernel->aliasesInput()); // read through strides: the view is still tried
    }

    engine::Session session (model);
    std::vector<float> input (128);
    for (std::size_t i = 0; i < input.size(); ++i)
        input[i] = static_cast<float> (std::sin (0.7 * static_cast<double> (i)));
    std::copy (input.begin(), input.end(), session.input().begin());
    session.run();
    const auto at = [&] (int64_t h, int64_t t, int64_t f) {
        const int64_t linear = t * 48 + h * 16 + f; // in the slice's output [1, 4, 24]
        return static_cast<double> (input[static_cast<std::size_t> (linear / 24 * 32 + 4 + linear % 24)]);
    };
    double worst = 0.0;
    for (int64_t h = 0; h < 3; ++h)
        for (int64_t i = 0; i < 2; ++i)
        {
            double p[2], sum = 0.0;
            for (int64_t j = 0; j < 2; ++j)
            {
                p[j] = 0.0;
                for (int64_t f = 0; f < 16; ++f)
                    p[j] += 0.25 * at (h, i, f) * at (h, j, f);
            }
            const double maximum = std::max (p[0], p[1]);
            for (auto& e : p)
                sum += (e = std::exp (e - maximum));
            for (int64_t f = 0; f < 16; ++f)
                worst = std::max (worst, std::abs ((p[0] * at (h, 0, f) + p[1] * at (h, 1, f)) / sum
                                                   - session.output (0)[static_cast<std::size_t> ((h * 2 + i) * 16 + f)]));
        }
    CHECK (worst < 1e-5);
}
