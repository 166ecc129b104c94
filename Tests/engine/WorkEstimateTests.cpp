// The work budget counts what really runs: for every op, across sizes and at its worst shapes
// (prime FFT sizes, extreme padding and dilation, rows of one element), the time one run takes
// stays within a factor of 4 of the load-time estimate (ModelInfo::opsPerRun) times the time of
// one operation: a multiply-add of this kernel path's matrix product, measured in the same run.
//
// Timing, so hidden from the default run ([.]): CTest runs it alone (RUN_SERIAL) once per kernel
// path the CPU has (SONOTYPE_KERNELS), never under the sanitizers. SONOTYPE_WORK_REPORT=1 prints
// the table the weights in engine/file/Work.h were set from.
#include "dsp/LogMelSpectrogram.h"
#include "engine/CpuDispatch.h"
#include "engine/Session.h"
#include "support/GraphBuilder.h"

#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>

using namespace sonotype;
using namespace sonotype::testing;
using Dims = GraphBuilder::Dims;

namespace
{
constexpr double kFactor = 4.0;

struct Case
{
    std::string name;
    std::function<std::vector<int> (GraphBuilder&)> build;
    float low = -3.0f, high = 3.0f; // the inputs' values, uniform
    bool ascending = false;         // or in increasing order (the worst case of a top-k's heap)
};

std::vector<float> randomValues (int64_t count, float low, float high, std::uint32_t seed)
{
    std::mt19937 random (seed);
    std::uniform_real_distribution<float> value (low, high);
    std::vector<float> values (static_cast<std::size_t> (count));
    for (auto& v : values)
        v = value (random);
    return values;
}

/** The least time of one run over a few runs (at least 3, until about 30 ms have passed). */
double secondsPerRun (engine::Session& session)
{
    using Clock = std::chrono::steady_clock;
    session.run();
    double best = 1e30, total = 0.0;
    for (int i = 0; i < 20 && (i < 3 || total < 0.03); ++i)
    {
        const auto start = Clock::now();
        session.run();
        const double seconds = std::chrono::duration<double> (Clock::now() - start).count();
        best = std::min (best, seconds);
        total += seconds;
    }
    return best;
}

struct Measured
{
    double operations = 0.0, seconds = 0.0;
};

Measured measure (const Case& c)
{
    GraphBuilder g;
    const auto outputs = c.build (g);
    engine::LoadLimits limits; // the budgets must not refuse a case: what is measured is the estimate
    limits.maxOpsPerRun = 1e15;
    limits.maxMemoryBytes = std::size_t { 8 } << 30;
    engine::Session session (g.load (outputs, limits));
    for (std::size_t i = 0; i < session.model().inputValues().size(); ++i)
    {
        auto input = session.input (i);
        const auto values = randomValues (static_cast<int64_t> (input.size()), c.low, c.high, static_cast<std::uint32_t> (i + 1));
        std::copy (values.begin(), values.end(), input.begin());
        if (c.ascending)
            for (std::size_t j = 0; j < input.size(); ++j)
                input[j] = static_cast<float> (j) * 1e-3f;
    }
    return { session.model().info().opsPerRun, secondsPerRun (session) };
}

/** Seconds per multiply-add of this path's matrix product: a [512, 512] x [512, 512] gemm with
    packed weights. */
double secondsPerOperation()
{
    GraphBuilder g;
    const int x = g.input ({ 512, 512 });
    const int w = g.tensor ("w", { 512, 512 }, randomValues (512 * 512, -1.0f, 1.0f, 7));
    const int y = g.node ("gemm", { x, w }, { { 512, 512 } });
    engine::Session session (g.load ({ y }));
    double best = 1e30;
    for (int i = 0; i < 3; ++i)
        best = std::min (best, secondsPerRun (session));
    return best / (512.0 * 512.0 * 512.0);
}

// ----- the cases ---------------------------------------------------------------------------------
int64_t count (const Dims& shape)
{
    int64_t n = 1;
    for (auto d : shape)
        n *= d;
    return n;
}

Case unary (const std::string& op, int64_t n, const std::string& attrs = "", float low = -3.0f, float high = 3.0f)
{
    return { op + " [" + std::to_string (n) + "]",
             [=] (GraphBuilder& g) { return std::vector<int> { g.node (op, { g.input ({ n }) }, { { n } }, attrs) }; }, low, high };
}

Case binary (const std::string& op, const Dims& a, const Dims& b, const Dims& out)
{
    auto text = [] (const Dims& d) {
        std::string s = "[";
        for (std::size_t i = 0; i < d.size(); ++i)
            s += (i ? "," : "") + std::to_string (d[i]);
        return s + "]";
    };
    return { op + " " + text (a) + " " + text (b), [=] (GraphBuilder& g) {
                const int x = g.input (a), y = g.input (b);
                return std::vector<int> { g.node (op, { x, y }, { out }) };
            } };
}

Case single (const std::string& name, const std::string& op, const Dims& in, const Dims& out, const std::string& attrs, float low = -3.0f,
             float high = 3.0f)
{
    return { name, [=] (GraphBuilder& g) { return std::vector<int> { g.node (op, { g.input (in) }, { out }, attrs) }; }, low, high };
}

std::vector<Case> cases()
{
    std::vector<Case> all;
    const int64_t small = 1 << 14, large = 1 << 21;
    for (const char* op : { "relu", "neg", "abs", "sign", "floor", "ceil", "round", "trunc", "logical_not", "reciprocal", "sqrt", "rsqrt",
                            "hardsigmoid", "hardswish" })
        for (auto n : { small, large })
            all.push_back (unary (op, n, "", 0.1f, 3.0f));
    for (const char* op : { "exp2", "log", "log2", "log10", "log1p", "expm1", "erf", "sin", "cos", "mish", "softplus" })
        for (auto n : { small, large })
            all.push_back (unary (op, n, "", 0.1f, 3.0f));
    all.push_back (unary ("elu", large, "", -3.0f, -0.1f)); // the expm1 branch
    all.push_back (unary ("elu", large));                   // the branch mispredicted
    all.push_back (unary ("sin", large, "", 1e6f, 1e30f));  // arguments far from zero: the slow argument reduction
    for (const char* op : { "exp", "sigmoid", "tanh", "silu", "gelu" })
        for (auto n : { small, large })
            all.push_back (unary (op, n));
    all.push_back (unary ("gelu", large, R"("approximate":"tanh")"));
    all.push_back (unary ("clamp", large, R"("min":-1,"max":1)"));
    all.push_back (unary ("leaky_relu", large, R"("negative_slope":0.2)"));

    for (const char* op : { "add", "mul", "div", "pow", "maximum", "lt", "logical_and" })
        all.push_back (binary (op, { large }, { large }, { large }));
    all.push_back (binary ("add", { small }, { small }, { small }));
    all.push_back (binary ("add", { large }, { 1 }, { large }));
    all.push_back (binary ("add", { 1024, 1024 }, { 1024, 1 }, { 1024, 1024 }));
    all.push_back (binary ("mul", { 1024, 1024 }, { 1, 1024 }, { 1024, 1024 }));
    all.push_back (binary ("add", { 1 << 19, 2, 1 }, { 1, 2, 1 }, { 1 << 19, 2, 1 })); // rows of one element
    all.push_back (binary ("pow", { 1024, 1024 }, { 1, 1024 }, { 1024, 1024 }));
    all.push_back ({ "where [2^21]", [=] (GraphBuilder& g) {
                        const int c = g.input ({ large }), a = g.input ({ large }), b = g.input ({ large });
                        return std::vector<int> { g.node ("where", { c, a, b }, { { large } }) };
                    } });

    // layout
    all.push_back (single ("permute [128,128,128] reversed", "permute", { 128, 128, 128 }, { 128, 128, 128 }, R"("perm":[2,1,0])"));
    all.push_back (single ("permute [64,64] transposed", "permute", { 64, 64 }, { 64, 64 }, R"("perm":[1,0])"));
    all.push_back (single ("permute [1024,512,4] rows of 4", "permute", { 1024, 512, 4 }, { 512, 1024, 4 }, R"("perm":[1,0,2])"));
    all.push_back (single ("expand [1,2048] to [1024,2048]", "expand", { 1, 2048 }, { 1024, 2048 }, ""));
    all.push_back (single ("expand [2048,1] to [2048,1024]", "expand", { 2048, 1 }, { 2048, 1024 }, ""));
    all.push_back (single ("expand [1,2,1] to [2^20,2,1]", "expand", { 1, 2, 1 }, { 1 << 20, 2, 1 }, ""));
    all.push_back (single ("slice [1024,2048] axis 1 step 2", "slice", { 1024, 2048 }, { 1024, 1024 }, R"("axis":1,"start":0,"step":2)"));
    all.push_back (single ("slice [2^21,1] axis 0 step 2", "slice", { large, 1 }, { large / 2, 1 }, R"("axis":0,"start":1,"step":2)"));
    all.push_back (single ("slice [64,64] axis 0", "slice", { 64, 64 }, { 32, 64 }, R"("axis":0,"start":3)"));
    all.push_back ({ "concat 2 x [1024,1024] axis 1", [] (GraphBuilder& g) {
                        const int a = g.input ({ 1024, 1024 }), b = g.input ({ 1024, 1024 });
                        return std::vector<int> { g.node ("concat", { a, b }, { { 1024, 2048 } }, R"("axis":1)") };
                    } });
    all.push_back ({ "concat 2 x [2^20,1] axis 1", [] (GraphBuilder& g) {
                        const int a = g.input ({ 1 << 20, 1 }), b = g.input ({ 1 << 20, 1 });
                        return std::vector<int> { g.node ("concat", { a, b }, { { 1 << 20, 2 } }, R"("axis":1)") };
                    } });
    for (const char* mode : { "constant", "reflect", "replicate" })
    {
        all.push_back (single (std::string ("pad ") + mode + " [1,512,512] by 3", "pad", { 1, 512, 512 }, { 1, 518, 518 },
                               std::string (R"("pads":[[0,0],[3,3],[3,3]],"mode":")") + mode + "\""));
        all.push_back (single (std::string ("pad ") + mode + " [2^19,2] by 1 on the last axis", "pad", { 1 << 19, 2 }, { 1 << 19, 4 },
                               std::string (R"("pads":[[0,0],[1,1]],"mode":")") + mode + "\""));
    }
    all.push_back (single ("pad constant [8,8] by 512", "pad", { 8, 8 }, { 1032, 1032 }, R"("pads":[[512,512],[512,512]])"));
    {
        std::string indices;
        for (int i = 0; i < 512; ++i)
            indices += (i ? "," : "") + std::to_string ((i * 7) % 1024);
        all.push_back (single ("index_select [1024,1024] axis 0, 512", "index_select", { 1024, 1024 }, { 512, 1024 },
                               R"("axis":0,"indices":[)" + indices + "]"));
        all.push_back (single ("index_select [4096,1024] axis 1, 512", "index_select", { 4096, 1024 }, { 4096, 512 },
                               R"("axis":1,"indices":[)" + indices + "]"));
    }
    all.push_back (single ("as_strided [2^20] as [1024,1024] transposed", "as_strided", { 1 << 20 }, { 1024, 1024 }, R"("stride":[1,1024])"));
    all.push_back (single ("as_strided [2^16] as frames [1024,1024] hop 64", "as_strided", { 1 << 16 }, { 1008, 1024 }, R"("stride":[64,1])"));
    all.push_back ({ "as_strided_scatter [2^20] column", [] (GraphBuilder& g) {
                        const int x = g.input ({ 1 << 20 }), src = g.input ({ 1024, 1024 });
                        return std::vector<int> { g.node ("as_strided_scatter", { x, src }, { { 1 << 20 } }, R"("stride":[1,1024])") };
                    } });
    all.push_back ({ "gather [2^20] from [2^20], random", [] (GraphBuilder& g) {
                        const int x = g.input ({ 1 << 20 });
                        std::vector<float> indices (1 << 20);
                        std::mt19937 random (3);
                        for (auto& index : indices)
                            index = static_cast<float> (random() % (1 << 20));
                        const int i = g.tensor ("indices", { 1 << 20 }, indices);
                        return std::vector<int> { g.node ("gather", { x, i }, { { 1 << 20 } }) };
                    } });

    // reductions
    for (const char* op : { "reduce_sum", "reduce_mean", "reduce_max", "var" })
    {
        all.push_back (single (std::string (op) + " [1024,1024] axis 1", op, { 1024, 1024 }, { 1024 }, R"("axes":[1])"));
        all.push_back (single (std::string (op) + " [1024,1024] axis 0", op, { 1024, 1024 }, { 1024 }, R"("axes":[0])"));
    }
    all.push_back (single ("reduce_sum [2^20,2] axis 1", "reduce_sum", { 1 << 20, 2 }, { 1 << 20 }, R"("axes":[1])"));
    all.push_back (single ("reduce_sum [64,64,64] all", "reduce_sum", { 64, 64, 64 }, {}, R"("axes":[0,1,2])"));
    for (const char* op : { "argmax", "argmin" })
    {
        all.push_back (single (std::string (op) + " [1024,1024] axis 1", op, { 1024, 1024 }, { 1024 }, R"("axis":1)"));
        all.push_back (single (std::string (op) + " [1024,1024] axis 0", op, { 1024, 1024 }, { 1024 }, R"("axis":0)"));
    }
    for (const char* op : { "softmax", "log_softmax" })
    {
        all.push_back (single (std::string (op) + " [1024,1024] axis 1", op, { 1024, 1024 }, { 1024, 1024 }, R"("axis":1)"));
        all.push_back (single (std::string (op) + " [1024,1024] axis 0", op, { 1024, 1024 }, { 1024, 1024 }, R"("axis":0)"));
        all.push_back (single (std::string (op) + " [2^19,2] axis 1", op, { 1 << 19, 2 }, { 1 << 19, 2 }, R"("axis":1)"));
    }
    all.push_back (single ("cumsum [1024,1024] axis 1", "cumsum", { 1024, 1024 }, { 1024, 1024 }, R"("axis":1)"));
    all.push_back (single ("cumsum [1024,1024] axis 0", "cumsum", { 1024, 1024 }, { 1024, 1024 }, R"("axis":0)"));
    // Top-k's cost is counted for input in increasing order, where every element enters the heap.
    for (auto [rows, dim, k] : { std::array<int64_t, 3> { 1024, 1024, 8 }, { 256, 4096, 2048 }, { 1 << 19, 2, 1 }, { 4, 1 << 18, 1024 } })
    {
        auto c = single ("topk [" + std::to_string (rows) + "," + std::to_string (dim) + "] k " + std::to_string (k) + " ascending", "topk",
                         { rows, dim }, { rows, k }, R"("axis":1,"k":)" + std::to_string (k));
        c.ascending = true;
        all.push_back (c);
    }

    // normalization
    all.push_back ({ "layer_norm [1024,1024]", [] (GraphBuilder& g) {
                        const int x = g.input ({ 1024, 1024 });
                        const int w = g.tensor ("w", { 1024 }, randomValues (1024, 0.5f, 1.5f, 4)), b = g.tensor ("b", { 1024 }, randomValues (1024, -1, 1, 5));
                        return std::vector<int> { g.node ("layer_norm", { x, w, b }, { { 1024, 1024 } }, R"("axis":1,"eps":1e-5)") };
                    } });
    all.push_back (single ("layer_norm [2^19,4]", "layer_norm", { 1 << 19, 4 }, { 1 << 19, 4 }, R"("axis":1,"eps":1e-5)"));
    for (const Dims& shape : { Dims { 4, 256, 2048 }, Dims { 1, 1 << 19, 2 } })
        all.push_back ({ "batch_norm [" + std::to_string (shape[0]) + "," + std::to_string (shape[1]) + "," + std::to_string (shape[2]) + "]",
                         [shape] (GraphBuilder& g) {
                             const int x = g.input (shape);
                             const int64_t c = shape[1];
                             const int mean = g.tensor ("mean", { c }, randomValues (c, -1, 1, 6)), var = g.tensor ("var", { c }, randomValues (c, 0.5f, 2, 7));
                             return std::vector<int> { g.node ("batch_norm", { x, mean, var }, { shape }, R"("eps":1e-5)") };
                         } });

    // products
    auto gemm = [] (const std::string& name, const Dims& a, const Dims& b, const Dims& out, bool stored, const std::string& attrs = "") {
        return Case { name, [=] (GraphBuilder& g) {
                         const int x = g.input (a);
                         const int w = stored ? g.tensor ("w", b, randomValues (count (b), -1, 1, 8)) : g.input (b);
                         return std::vector<int> { g.node ("gemm", { x, w }, { out }, attrs) };
                     } };
    };
    all.push_back (gemm ("gemm [1,1024] x [1024,1024] stored", { 1, 1024 }, { 1024, 1024 }, { 1, 1024 }, true));
    all.push_back (gemm ("gemm [256,512] x [512,256] stored", { 256, 512 }, { 512, 256 }, { 256, 256 }, true));
    all.push_back (gemm ("gemm [64,64] x [64,64]", { 64, 64 }, { 64, 64 }, { 64, 64 }, false));
    all.push_back (gemm ("gemm [2^16,4,4] x [2^16,4,4]", { 1 << 16, 4, 4 }, { 1 << 16, 4, 4 }, { 1 << 16, 4, 4 }, false));
    all.push_back (gemm ("gemm [4096,1] x [1,4096]", { 4096, 1 }, { 1, 4096 }, { 4096, 4096 }, false));
    all.push_back (gemm ("gemm [1,8192] x [8192,1]", { 1, 1 << 13 }, { 1 << 13, 1 }, { 1, 1 }, false));

    auto conv = [] (const std::string& name, const Dims& x, const Dims& w, const Dims& out, const std::string& attrs) {
        return Case { name, [=] (GraphBuilder& g) {
                         const int in = g.input (x);
                         const int k = g.tensor ("k", w, randomValues (count (w), -1, 1, 9));
                         const int b = g.tensor ("b", { w[0] }, randomValues (w[0], -1, 1, 10));
                         return std::vector<int> { g.node ("conv", { in, k, b }, { out }, attrs) };
                     } };
    };
    all.push_back (conv ("conv 3x3 [1,16,128,128] to 32", { 1, 16, 128, 128 }, { 32, 16, 3, 3 }, { 1, 32, 128, 128 },
                         R"("stride":[1,1],"padding":[1,1],"dilation":[1,1])"));
    all.push_back (conv ("conv 3x3 stride 2 [1,32,128,128] to 64", { 1, 32, 128, 128 }, { 64, 32, 3, 3 }, { 1, 64, 64, 64 },
                         R"("stride":[2,2],"padding":[1,1],"dilation":[1,1])"));
    all.push_back (conv ("conv 1x1 [1,64,64,64] to 64", { 1, 64, 64, 64 }, { 64, 64, 1, 1 }, { 1, 64, 64, 64 },
                         R"("stride":[1,1],"padding":[0,0],"dilation":[1,1])"));
    all.push_back (conv ("conv depthwise 3x3 [1,128,64,64]", { 1, 128, 64, 64 }, { 128, 1, 3, 3 }, { 1, 128, 64, 64 },
                         R"("stride":[1,1],"padding":[1,1],"dilation":[1,1],"groups":128)"));
    all.push_back (conv ("conv 1-d k5 [1,64,4096] to 64", { 1, 64, 4096 }, { 64, 64, 5 }, { 1, 64, 4096 }, R"("stride":[1],"padding":[2],"dilation":[1])"));
    all.push_back (conv ("conv 3x3 [1,4,64,64] padding 32 dilation 32", { 1, 4, 64, 64 }, { 8, 4, 3, 3 }, { 1, 8, 64, 64 },
                         R"("stride":[1,1],"padding":[32,32],"dilation":[32,32])")); // the largest padded plane taken
    all.push_back (conv ("conv 3x3 [1,1,8,8] padding 1000 dilation 1000", { 1, 1, 8, 8 }, { 1, 1, 3, 3 }, { 1, 1, 8, 8 },
                         R"("stride":[1,1],"padding":[1000,1000],"dilation":[1000,1000])"));
    all.push_back (conv ("conv 1-d k2 [1,8,256] padding 2^18 dilation 2^19", { 1, 8, 256 }, { 8, 8, 2 }, { 1, 8, 256 },
                         R"("stride":[1],"padding":[262144],"dilation":[524288])"));
    all.push_back (conv ("conv 3x3 stride 3 [1,1,8,8] padding 500", { 1, 1, 8, 8 }, { 4, 1, 3, 3 }, { 1, 4, 336, 336 },
                         R"("stride":[3,3],"padding":[500,500],"dilation":[1,1])"));

    all.push_back (single ("max_pool 3x3 s1 [1,32,256,256]", "max_pool", { 1, 32, 256, 256 }, { 1, 32, 256, 256 },
                           R"("kernel":[3,3],"stride":[1,1],"padding":[1,1])"));
    all.push_back (single ("max_pool 2x2 s2 [1,64,256,256]", "max_pool", { 1, 64, 256, 256 }, { 1, 64, 128, 128 }, R"("kernel":[2,2],"stride":[2,2])"));
    all.push_back (single ("avg_pool 3x3 s1 [1,16,256,256]", "avg_pool", { 1, 16, 256, 256 }, { 1, 16, 256, 256 },
                           R"("kernel":[3,3],"stride":[1,1],"padding":[1,1])"));
    all.push_back (single ("max_pool k 2001 pad 1000 [1,1,2000]", "max_pool", { 1, 1, 2000 }, { 1, 1, 2000 },
                           R"("kernel":[2001],"stride":[1],"padding":[1000])"));
    all.push_back (single ("adaptive_avg_pool [1,64,128,128] to 1x1", "adaptive_avg_pool", { 1, 64, 128, 128 }, { 1, 64, 1, 1 }, ""));
    all.push_back (single ("adaptive_avg_pool [1,64,128,128] to 100x100", "adaptive_avg_pool", { 1, 64, 128, 128 }, { 1, 64, 100, 100 }, ""));

    for (bool weights : { false, true })
        all.push_back ({ std::string ("attention [1,8,256,64]") + (weights ? " with probabilities" : ""), [weights] (GraphBuilder& g) {
                            const int q = g.input ({ 1, 8, 256, 64 }), k = g.input ({ 1, 8, 256, 64 }), v = g.input ({ 1, 8, 256, 64 });
                            std::vector<Dims> outs { { 1, 8, 256, 64 } };
                            if (weights)
                                outs.push_back ({ 1, 8, 256, 256 });
                            const int y = g.node ("attention", { q, k, v }, outs, R"("scale":0.125)");
                            return weights ? std::vector<int> { y, y + 1 } : std::vector<int> { y };
                        } });
    all.push_back ({ "attention [4096,1,4,4] masked", [] (GraphBuilder& g) {
                        const int q = g.input ({ 4096, 1, 4, 4 }), k = g.input ({ 4096, 1, 4, 4 }), v = g.input ({ 4096, 1, 4, 4 });
                        const int m = g.input ({ 1, 1, 4, 4 });
                        return std::vector<int> { g.node ("attention", { q, k, v, m }, { { 4096, 1, 4, 4 } }, R"("scale":0.5)") };
                    } });

    for (const char* mode : { "lstm", "gru", "rnn_tanh" })
        for (int64_t batch : { int64_t { 1 }, int64_t { 16 } })
            all.push_back ({ std::string ("rnn ") + mode + " 200 steps batch " + std::to_string (batch) + " 64 -> 128", [mode, batch] (GraphBuilder& g) {
                                const int64_t gates = std::string (mode) == "lstm" ? 4 : std::string (mode) == "gru" ? 3
                                                                                                                     : 1;
                                const int x = g.input ({ 200, batch, 64 });
                                const int wih = g.tensor ("w_ih", { gates * 128, 64 }, randomValues (gates * 128 * 64, -0.1f, 0.1f, 11));
                                const int whh = g.tensor ("w_hh", { gates * 128, 128 }, randomValues (gates * 128 * 128, -0.1f, 0.1f, 12));
                                return std::vector<int> { g.node ("rnn", { x, -1, -1, wih, whh, -1, -1, -1 }, { { 200, batch, 128 } },
                                                                  std::string (R"("hidden_size":128,"mode":")") + mode + "\"") };
                            } });

    // A recurrent layer whose weights no longer fit the cache: every step reads them again.
    all.push_back ({ "rnn lstm 32 steps batch 1 1024 -> 1024", [] (GraphBuilder& g) {
                        const int x = g.input ({ 32, 1, 1024 });
                        const int wih = g.tensor ("w_ih", { 4096, 1024 }, randomValues (4096 * 1024, -0.03f, 0.03f, 13));
                        const int whh = g.tensor ("w_hh", { 4096, 1024 }, randomValues (4096 * 1024, -0.03f, 0.03f, 14));
                        return std::vector<int> { g.node ("rnn", { x, -1, -1, wih, whh, -1, -1, -1 }, { { 32, 1, 1024 } }, R"("hidden_size":1024,"mode":"lstm")") };
                    } });

    auto stft = [] (int64_t nFft, int64_t hop, int64_t samples) {
        const int64_t frames = 1 + (samples - nFft) / hop;
        return Case { "stft n_fft " + std::to_string (nFft) + " hop " + std::to_string (hop), [=] (GraphBuilder& g) {
                         return std::vector<int> { g.node ("stft", { g.input ({ 1, samples }) }, { { 1, nFft / 2 + 1, frames, 2 } },
                                                           R"("n_fft":)" + std::to_string (nFft) + R"(,"hop_length":)" + std::to_string (hop)) };
                     } };
    };
    all.push_back (stft (512, 128, 1 << 18));
    all.push_back (stft (4096, 1024, 1 << 20));
    all.push_back (stft (1000, 250, 1 << 18));
    all.push_back (stft (1021, 256, 1 << 18));      // prime: the generic butterfly
    all.push_back (stft (4093, 4096, 1 << 16));     // prime
    all.push_back (stft (2 * 4093, 4096, 1 << 18)); // twice a prime
    all.push_back (single ("complex_abs [1024,1024,2]", "complex_abs", { 1024, 1024, 2 }, { 1024, 1024 }, ""));
    return all;
}

/** The ratio of a measured time to the estimate: retried (the unit measured again with it) while
    outside the bounds, up to three times, keeping the attempt nearest 1; a shared VM's neighbours
    slow a run for a moment, an estimate that is wrong stays wrong. */
template <typename Measure>
double ratioOf (Measure measureCase, double& unit)
{
    double best = 0.0;
    for (int attempt = 0; attempt < 3; ++attempt)
    {
        if (attempt > 0)
            unit = secondsPerOperation();
        const auto m = measureCase();
        const double ratio = m.seconds / (m.operations * unit);
        if (best == 0.0 || std::fabs (std::log (ratio)) < std::fabs (std::log (best)))
            best = ratio;
        if (ratio <= kFactor && ratio >= 1.0 / kFactor)
            break;
    }
    return best;
}

bool skipPath()
{
    const auto& path = engine::activeKernelPath();
    if (const char* wanted = std::getenv ("SONOTYPE_KERNELS"); wanted != nullptr && std::string (wanted) != path.name)
    {
        WARN ("this CPU does not run the " << wanted << " kernels: nothing to check");
        return true;
    }
    return false;
}
} // namespace

TEST_CASE ("every op's work estimate is within a factor of 4 of its measured time", "[.][work]")
{
    if (skipPath())
        return;
    const bool report = std::getenv ("SONOTYPE_WORK_REPORT") != nullptr;
    double unit = secondsPerOperation();
    if (report)
        std::printf ("kernel path %s: %.4f ns per multiply-add of a packed 512^3 product\n%-52s %12s %10s %7s\n", engine::activeKernelPath().name,
                     unit * 1e9, "case", "operations", "ms", "ratio");
    double worst = 1.0;
    for (const auto& c : cases())
    {
        Measured m;
        const double ratio = ratioOf ([&] { return m = measure (c); }, unit);
        if (report)
            std::printf ("%-52s %12.4g %10.3f %7.2f%s\n", c.name.c_str(), m.operations, m.seconds * 1e3, ratio,
                         ratio > kFactor || ratio < 1.0 / kFactor ? "  <--" : "");
        worst = std::max ({ worst, ratio, 1.0 / ratio });
        INFO (c.name << ": " << m.operations << " operations estimated, " << m.seconds * 1e3 << " ms measured, " << ratio
                     << " times the estimate at " << unit * 1e9 << " ns per operation");
        CHECK (ratio <= kFactor);
        CHECK (ratio >= 1.0 / kFactor);
    }
    if (report)
        std::printf ("worst factor: %.2f\n", worst);
}

TEST_CASE ("the log-mel front end's work estimate is within a factor of 4 of its measured time", "[.][work]")
{
    if (skipPath())
        return;
    const bool report = std::getenv ("SONOTYPE_WORK_REPORT") != nullptr;
    double unit = secondsPerOperation();
    struct FrontendCase
    {
        const char* name;
        std::string settings;
        int64_t mels, frames;
    };
    const FrontendCase frontends[] = {
        { "16 kHz, n_fft 400, hop 160, 64 bands, 1 s", R"("sample_rate":16000,"n_fft":400,"hop_length":160,"n_mels":64,"log":{"type":"db","top_db":80})", 64, 101 },
        { "n_fft 4096, hop 512, 128 bands, slaney", R"("sample_rate":22050,"n_fft":4096,"hop_length":512,"n_mels":128,"mel_scale":"slaney","norm":"slaney")", 128, 87 },
        { "n_fft 64, hop 1, 20000 frames", R"("sample_rate":16000,"n_fft":64,"hop_length":1,"n_mels":32,"log":{"type":"log"})", 32, 20000 },
        { "prime n_fft 4093, hop 256", R"("sample_rate":16000,"n_fft":4093,"hop_length":256,"n_mels":40)", 40, 63 },
        { "prime n_fft 65521, hop 16384", R"("sample_rate":16000,"n_fft":65521,"hop_length":16384,"n_mels":64,"center":false)", 64, 4 },
        { "n_fft 65536, hop 4096, power 0.5", R"("sample_rate":48000,"n_fft":65536,"hop_length":4096,"n_mels":256,"power":0.5)", 256, 24 },
    };
    for (const auto& f : frontends)
    {
        GraphBuilder g;
        const int x = g.input ({ 1, f.mels, f.frames });
        const int y = g.node ("reduce_mean", { x }, { { 1, 1, 1 } }, R"("axes":[1,2],"keepdim":true)");
        engine::LoadLimits limits;
        limits.maxOpsPerRun = 1e15;
        const auto model = g.load ({ y }, limits, { { "frontend", "{" + f.settings + "}" } });
        const auto& settings = *model->info().frontend;
        dsp::LogMelSpectrogram logMel (settings);
        const auto samples = randomValues (settings.windowSamples, -1.0f, 1.0f, 5);
        std::vector<float> features (static_cast<std::size_t> (f.mels * f.frames));
        Measured m;
        const double ratio = ratioOf (
            [&] {
                // Every frame computed, as for a first window: the least time over a few windows.
                using Clock = std::chrono::steady_clock;
                double best = 1e30, total = 0.0;
                for (int i = 0; i < 20 && (i < 3 || total < 0.03); ++i)
                {
                    const auto start = Clock::now();
                    logMel.compute (samples.data(), settings.windowSamples, features.data());
                    const double seconds = std::chrono::duration<double> (Clock::now() - start).count();
                    best = std::min (best, seconds);
                    total += seconds;
                }
                return m = Measured { model->info().frontendOpsPerWindow, best };
            },
            unit);
        if (report)
            std::printf ("front end: %-41s %12.4g %10.3f %7.2f\n", f.name, m.operations, m.seconds * 1e3, ratio);
        INFO (f.name << ": " << m.operations << " operations estimated, " << m.seconds * 1e3 << " ms measured, " << ratio << " times the estimate");
        CHECK (ratio <= kFactor);
        CHECK (ratio >= 1.0 / kFactor);
    }
}
