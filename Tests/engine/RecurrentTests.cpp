// The rnn op (kernels/Recurrent.cpp): against a double-precision reference of PyTorch's formulas
// for every mode and layout, its fused cell kernels on every kernel path, and the factory's
// refusals of bad files.
#include "engine/CpuDispatch.h"
#include "engine/Session.h"
#include "engine/file/AlignedBuffer.h"
#include "engine/file/ModelError.h"
#include "support/SafetensorsWriter.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <random>

using namespace sonotype;
using namespace sonotype::testing;
using Catch::Matchers::Contains;

namespace
{
struct Spec
{
    std::string mode = "lstm";
    int64_t steps = 5, batch = 2, inputSize = 3, hidden = 4, proj = 0;
    bool bidirectional = false, batchFirst = false, bias = true, h0 = false, c0 = false;

    // Hostile variations of the file (the graph lies about something).
    std::optional<std::string> modeAttribute;
    std::optional<int64_t> hiddenAttribute, projAttribute;
    std::optional<bool> bidirectionalAttribute;
    std::optional<std::vector<int64_t>> wihShape, whhShape, biasShape, h0Shape, yShape, xShape;
    bool weightsAsInput = false, extraInput = false, hrWithoutProj = false, c0Anyway = false;

    int directions() const { return bidirectional ? 2 : 1; }
    int64_t gates() const { return mode == "lstm" ? 4 : mode == "gru" ? 3
                                                                      : 1; }
    int64_t hiddenOut() const { return proj > 0 ? proj : hidden; }
};

std::string shapeJson (const std::vector<int64_t>& shape)
{
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? "," : "") + std::to_string (shape[i]);
    return text + "]";
}

double sigmoid (double v) { return 1.0 / (1.0 + std::exp (-v)); }

struct Weights
{
    std::vector<float> wih, whh, bih, bhh, whr;
};

/** A one-node model file of `spec`, its weights (random, seeded) and its input order. */
struct Built
{
    std::vector<std::uint8_t> bytes;
    std::vector<Weights> weights;
};

Built build (const Spec& spec)
{
    std::mt19937 random (42);
    std::uniform_real_distribution<float> uniform (-0.6f, 0.6f);
    auto values = [&] (std::vector<int64_t> shape) {
        int64_t count = 1;
        for (auto d : shape)
            count *= d;
        std::vector<float> v (static_cast<std::size_t> (std::max<int64_t> (count, 0)));
        for (auto& x : v)
            x = uniform (random);
        return v;
    };
    const int64_t G = spec.gates() * spec.hidden, D = spec.directions(), Hout = spec.hiddenOut();
    const std::vector<int64_t> xShape = spec.xShape.value_or (spec.batchFirst ? std::vector<int64_t> { spec.batch, spec.steps, spec.inputSize }
                                                                              : std::vector<int64_t> { spec.steps, spec.batch, spec.inputSize });

    std::vector<std::string> valueJson;
    std::vector<int> graphInputs;
    std::vector<TestTensor> tensors;
    auto addValue = [&] (const std::vector<int64_t>& shape, const std::string& kind, const std::string& tensor = "") {
        valueJson.push_back ("{\"shape\":" + shapeJson (shape) + ",\"kind\":\"" + kind + "\"" + (tensor.empty() ? "" : ",\"tensor\":\"" + tensor + "\"")
                             + "}");
        return static_cast<int> (valueJson.size() - 1);
    };
    auto addInput = [&] (const std::vector<int64_t>& shape) {
        const int v = addValue (shape, "input");
        graphInputs.push_back (v);
        return v;
    };
    auto addTensor = [&] (const std::string& name, const std::vector<int64_t>& shape, std::vector<float>& keep) {
        keep = values (shape);
        if (spec.weightsAsInput && name.rfind ("w_ih", 0) == 0)
            return addInput (shape);
        tensors.push_back ({ name, shape, keep });
        return addValue (shape, "tensor", name);
    };
    std::vector<std::string> nodeInputs;
    nodeInputs.push_back (std::to_string (addInput (xShape)));
    nodeInputs.push_back (spec.h0 ? std::to_string (addInput (spec.h0Shape.value_or (std::vector<int64_t> { D, spec.batch, Hout })))
                                  : "null");
    nodeInputs.push_back (spec.c0 || spec.c0Anyway ? std::to_string (addInput ({ D, spec.batch, spec.hidden })) : "null");

    Built built;
    built.weights.resize (static_cast<std::size_t> (D));
    for (int d = 0; d < D; ++d)
    {
        auto& w = built.weights[static_cast<std::size_t> (d)];
        const std::string suffix = std::to_string (d);
        nodeInputs.push_back (std::to_string (addTensor ("w_ih" + suffix, spec.wihShape.value_or (std::vector<int64_t> { G, spec.inputSize }), w.wih)));
        nodeInputs.push_back (std::to_string (addTensor ("w_hh" + suffix, spec.whhShape.value_or (std::vector<int64_t> { G, Hout }), w.whh)));
        if (spec.bias)
        {
            nodeInputs.push_back (std::to_string (addTensor ("b_ih" + suffix, spec.biasShape.value_or (std::vector<int64_t> { G }), w.bih)));
            nodeInputs.push_back (std::to_string (addTensor ("b_hh" + suffix, { G }, w.bhh)));
        }
        else
        {
            nodeInputs.push_back ("null");
            nodeInputs.push_back ("null");
        }
        if (spec.proj > 0 || spec.hrWithoutProj)
            nodeInputs.push_back (std::to_string (addTensor ("w_hr" + suffix, { spec.proj > 0 ? spec.proj : 2, spec.hidden }, w.whr)));
        else
            nodeInputs.push_back ("null");
    }
    if (spec.extraInput)
        nodeInputs.push_back ("null");

    std::vector<int64_t> yShape = xShape;
    yShape.back() = D * Hout;
    std::vector<int> outputs { addValue (spec.yShape.value_or (yShape), "node"), addValue ({ D, spec.batch, Hout }, "node") };
    if (spec.mode == "lstm")
        outputs.push_back (addValue ({ D, spec.batch, spec.hidden }, "node"));

    std::string attrs = "\"mode\":\"" + spec.modeAttribute.value_or (spec.mode) + "\",\"hidden_size\":" + std::to_string (spec.hiddenAttribute.value_or (spec.hidden))
                        + ",\"bidirectional\":" + (spec.bidirectionalAttribute.value_or (spec.bidirectional) ? "true" : "false") + ",\"batch_first\":" + (spec.batchFirst ? "true" : "false");
    if (spec.proj > 0 || spec.projAttribute)
        attrs += ",\"proj_size\":" + std::to_string (spec.projAttribute.value_or (spec.proj));
    std::string inputs, outs, vals;
    for (const auto& i : nodeInputs)
        inputs += (inputs.empty() ? "" : ",") + i;
    for (int o : outputs)
        outs += (outs.empty() ? "" : ",") + std::to_string (o);
    for (const auto& v : valueJson)
        vals += (vals.empty() ? "" : ",") + v;
    std::string graphInputList;
    for (int i : graphInputs)
        graphInputList += (graphInputList.empty() ? "" : ",") + std::to_string (i);
    const std::string graph = "{\"inputs\":[" + graphInputList + "],\"outputs\":[" + outs + "],\"values\":[" + vals + "],\"nodes\":[{\"op\":\"rnn\",\"inputs\":["
                              + inputs + "],\"outputs\":[" + outs + "],\"attrs\":{" + attrs + "}}]}";
    built.bytes = safetensorsBytes (tensors, modelMetadata (graph));
    return built;
}

/** PyTorch's recurrence in double precision: y (x's layout), h_n, c_n. */
std::vector<std::vector<double>> reference (const Spec& spec, const Built& built, const std::vector<float>& x, const std::vector<float>& h0,
                                            const std::vector<float>& c0)
{
    const int64_t T = spec.steps, B = spec.batch, I = spec.inputSize, H = spec.hidden, P = spec.proj, Hout = spec.hiddenOut();
    const int64_t G = spec.gates() * H, D = spec.directions();
    std::vector<double> y (static_cast<std::size_t> (T * B * D * Hout)), hn (static_cast<std::size_t> (D * B * Hout)),
        cn (static_cast<std::size_t> (D * B * H));
    auto row = [&] (int64_t t, int64_t b) { return spec.batchFirst ? b * T + t : t * B + b; };
    for (int64_t d = 0; d < D; ++d)
    {
        const auto& w = built.weights[static_cast<std::size_t> (d)];
        auto at = [] (const std::vector<float>& v, int64_t i) { return v.empty() ? 0.0 : static_cast<double> (v[static_cast<std::size_t> (i)]); };
        for (int64_t b = 0; b < B; ++b)
        {
            std::vector<double> h (static_cast<std::size_t> (Hout)), c (static_cast<std::size_t> (H));
            for (int64_t j = 0; j < Hout; ++j)
                h[static_cast<std::size_t> (j)] = spec.h0 ? h0[static_cast<std::size_t> ((d * B + b) * Hout + j)] : 0.0;
            for (int64_t j = 0; j < H; ++j)
                c[static_cast<std::size_t> (j)] = spec.c0 ? c0[static_cast<std::size_t> ((d * B + b) * H + j)] : 0.0;
            for (int64_t s = 0; s < T; ++s)
            {
                const int64_t t = d == 0 ? s : T - 1 - s;
                std::vector<double> gi (static_cast<std::size_t> (G)), gh (static_cast<std::size_t> (G));
                for (int64_t g = 0; g < G; ++g)
                {
                    double a = at (w.bih, g), r = at (w.bhh, g);
                    for (int64_t i = 0; i < I; ++i)
                        a += w.wih[static_cast<std::size_t> (g * I + i)] * static_cast<double> (x[static_cast<std::size_t> (row (t, b) * I + i)]);
                    for (int64_t k = 0; k < Hout; ++k)
                        r += w.whh[static_cast<std::size_t> (g * Hout + k)] * h[static_cast<std::size_t> (k)];
                    gi[static_cast<std::size_t> (g)] = a;
                    gh[static_cast<std::size_t> (g)] = r;
                }
                std::vector<double> next (static_cast<std::size_t> (H));
                for (int64_t j = 0; j < H; ++j)
                {
                    const auto J = static_cast<std::size_t> (j), sH = static_cast<std::size_t> (H);
                    if (spec.mode == "gru")
                    {
                        const double r = sigmoid (gi[J] + gh[J]), z = sigmoid (gi[sH + J] + gh[sH + J]);
                        const double n = std::tanh (gi[2 * sH + J] + r * gh[2 * sH + J]);
                        next[J] = (1.0 - z) * n + z * h[J];
                    }
                    else if (spec.mode == "lstm")
                    {
                        auto gate = [&] (std::size_t k) { return gi[k * sH + J] + gh[k * sH + J]; };
                        c[J] = sigmoid (gate (1)) * c[J] + sigmoid (gate (0)) * std::tanh (gate (2));
                        next[J] = sigmoid (gate (3)) * std::tanh (c[J]);
                    }
                    else
                    {
                        const double v = gi[J] + gh[J];
                        next[J] = spec.mode == "rnn_tanh" ? std::tanh (v) : std::max (v, 0.0);
                    }
                }
                if (P > 0)
                    for (int64_t p = 0; p < P; ++p)
                    {
                        double v = 0.0;
                        for (int64_t j = 0; j < H; ++j)
                            v += w.whr[static_cast<std::size_t> (p * H + j)] * next[static_cast<std::size_t> (j)];
                        h[static_cast<std::size_t> (p)] = v;
                    }
                else
                    h = next;
                for (int64_t k = 0; k < Hout; ++k)
                    y[static_cast<std::size_t> (row (t, b) * D * Hout + d * Hout + k)] = h[static_cast<std::size_t> (k)];
            }
            for (int64_t k = 0; k < Hout; ++k)
                hn[static_cast<std::size_t> ((d * B + b) * Hout + k)] = h[static_cast<std::size_t> (k)];
            for (int64_t k = 0; k < H; ++k)
                cn[static_cast<std::size_t> ((d * B + b) * H + k)] = c[static_cast<std::size_t> (k)];
        }
    }
    return { y, hn, cn };
}

std::string refusal (const Spec& spec)
{
    const auto built = build (spec);
    try
    {
        engine::Model::fromMemory (built.bytes.data(), built.bytes.size(), "rnn");
    }
    catch (const engine::ModelError& e)
    {
        return e.what();
    }
    return "";
}
} // namespace

TEST_CASE ("the rnn op matches PyTorch's formulas in double precision", "[engine][rnn]")
{
    Spec spec;
    spec.mode = GENERATE (as<std::string> {}, "rnn_tanh", "rnn_relu", "gru", "lstm");
    const int variant = GENERATE (range (0, 6));
    spec.bidirectional = variant % 2 == 1;
    spec.batchFirst = variant >= 2 && variant <= 3;
    spec.bias = variant != 4;
    spec.h0 = variant >= 3;
    spec.c0 = spec.h0 && spec.mode == "lstm";
    spec.hidden = variant == 5 ? 19 : 4;               // 19: the gate kernels' register tail
    spec.batch = variant == 2 || variant == 5 ? 5 : 2; // 5: the general product for the recurrent step, not one row at a time
    if (spec.mode == "lstm" && variant >= 4)
        spec.proj = 3;
    INFO (spec.mode << " variant " << variant);

    const auto built = build (spec);
    engine::Session session (engine::Model::fromMemory (built.bytes.data(), built.bytes.size(), "rnn"));
    std::mt19937 random (9);
    std::normal_distribution<float> normal;
    std::vector<float> x (session.input (0).size()), h0, c0;
    for (auto& v : x)
        v = normal (random);
    std::copy (x.begin(), x.end(), session.input (0).begin());
    std::size_t next = 1;
    if (spec.h0)
    {
        h0.resize (session.input (next).size());
        for (auto& v : h0)
            v = 0.5f * normal (random);
        std::copy (h0.begin(), h0.end(), session.input (next++).begin());
    }
    if (spec.c0)
    {
        c0.resize (session.input (next).size());
        for (auto& v : c0)
            v = 0.5f * normal (random);
        std::copy (c0.begin(), c0.end(), session.input (next).begin());
    }
    session.run();
    const auto expected = reference (spec, built, x, h0, c0);
    for (std::size_t output = 0; output < (spec.mode == "lstm" ? 3u : 2u); ++output)
    {
        const auto got = session.output (output);
        REQUIRE (got.size() == expected[output].size());
        double worst = 0.0;
        for (std::size_t i = 0; i < got.size(); ++i)
            worst = std::max (worst, std::fabs (got[i] - expected[output][i]));
        INFO ("output " << output);
        CHECK (worst < 2e-6);
    }
}

TEST_CASE ("every kernel path: the fused LSTM and GRU cells match the formulas", "[engine][kernels][rnn]")
{
    for (const auto& path : engine::supportedKernelPaths())
    {
        INFO ("kernel path " << path.name);
        std::mt19937 random (3);
        std::normal_distribution<float> normal (0.0f, 2.0f);
        for (int64_t size : { 1, 3, 4, 7, 8, 15, 16, 17, 33 })
        {
            std::vector<float> gates (static_cast<std::size_t> (4 * size)), c (static_cast<std::size_t> (size)), h (static_cast<std::size_t> (size));
            for (auto& v : gates)
                v = normal (random);
            for (auto& v : c)
                v = normal (random);
            const auto cBefore = c;
            path.table->lstmCell (gates.data(), c.data(), h.data(), size);
            double worst = 0.0;
            for (int64_t j = 0; j < size; ++j)
            {
                const auto g = [&] (int64_t k) { return static_cast<double> (gates[static_cast<std::size_t> (k * size + j)]); };
                const double cNew = sigmoid (g (1)) * cBefore[static_cast<std::size_t> (j)] + sigmoid (g (0)) * std::tanh (g (2));
                worst = std::max (worst, std::fabs (c[static_cast<std::size_t> (j)] - cNew));
                worst = std::max (worst, std::fabs (h[static_cast<std::size_t> (j)] - sigmoid (g (3)) * std::tanh (cNew)));
            }
            CHECK (worst < 1e-6);

            std::vector<float> gi (static_cast<std::size_t> (3 * size)), gh (gi.size()), previous (static_cast<std::size_t> (size));
            for (auto* v : { &gi, &gh, &previous })
                for (auto& e : *v)
                    e = normal (random);
            for (bool withPrevious : { true, false })
            {
                path.table->gruCell (gi.data(), gh.data(), withPrevious ? previous.data() : nullptr, h.data(), size);
                worst = 0.0;
                for (int64_t j = 0; j < size; ++j)
                {
                    const auto J = static_cast<std::size_t> (j), S = static_cast<std::size_t> (size);
                    const double r = sigmoid (gi[J] + static_cast<double> (gh[J])), z = sigmoid (gi[S + J] + static_cast<double> (gh[S + J]));
                    const double n = std::tanh (gi[2 * S + J] + r * gh[2 * S + J]);
                    const double hPrev = withPrevious ? previous[J] : 0.0;
                    worst = std::max (worst, std::fabs (h[J] - ((1.0 - z) * n + z * hPrev)));
                }
                CHECK (worst < 1e-6);
            }
        }
    }
}

TEST_CASE ("every packing kernel path: one row times packed weights, any width and depth", "[engine][kernels][rnn]")
{
    for (const auto& path : engine::supportedKernelPaths())
    {
        const auto& k = *path.table;
        if (k.packedBFloats (8, 8) == 0)
            continue; // the path does not pack: the op uses the general product
        INFO ("kernel path " << path.name);
        std::mt19937 random (5);
        std::normal_distribution<float> normal;
        for (const auto& [n, depth] : std::vector<std::pair<int64_t, int64_t>> { { 1, 1 }, { 5, 3 }, { 16, 7 }, { 31, 16 }, { 32, 9 }, { 33, 40 }, { 100, 64 }, { 128, 128 }, { 257, 31 }, { 1024, 256 } })
        {
            std::vector<float> a (static_cast<std::size_t> (depth)), w (static_cast<std::size_t> (n * depth)), c (static_cast<std::size_t> (n + 1));
            for (auto* v : { &a, &w, &c })
                for (auto& e : *v)
                    e = normal (random);
            const auto before = c;
            // w is [n, k] row-major (a layer's weight), the product's B = w^T.
            engine::AlignedBuffer packed (k.packedBFloats (depth, n));
            k.packB (depth, n, { w.data(), depth, true, nullptr }, packed.data());
            k.packedRowTimes (n, depth, a.data(), packed.data(), c.data());
            double worst = 0.0;
            for (int64_t j = 0; j < n; ++j)
            {
                double expected = before[static_cast<std::size_t> (j)];
                for (int64_t p = 0; p < depth; ++p)
                    expected += static_cast<double> (a[static_cast<std::size_t> (p)]) * w[static_cast<std::size_t> (j * depth + p)];
                worst = std::max (worst, std::fabs (c[static_cast<std::size_t> (j)] - expected));
            }
            INFO ("n " << n << ", k " << depth);
            CHECK (worst < 1e-4);
            CHECK (c[static_cast<std::size_t> (n)] == before[static_cast<std::size_t> (n)]); // nothing written past n
        }
    }
}

TEST_CASE ("every kernel path: one row times unpacked weight rows, any width and depth", "[engine][kernels][rnn]")
{
    for (const auto& path : engine::supportedKernelPaths())
    {
        INFO ("kernel path " << path.name);
        std::mt19937 random (6);
        std::normal_distribution<float> normal;
        for (const auto& [n, depth] : std::vector<std::pair<int64_t, int64_t>> { { 1, 1 }, { 3, 5 }, { 4, 16 }, { 5, 17 }, { 9, 3 }, { 33, 40 }, { 128, 100 }, { 1024, 256 } })
        {
            const int64_t ldw = depth + 3; // rows of a wider matrix: only k of each are read
            std::vector<float> a (static_cast<std::size_t> (depth)), w (static_cast<std::size_t> (n * ldw)), c (static_cast<std::size_t> (n + 1));
            for (auto* v : { &a, &w, &c })
                for (auto& e : *v)
                    e = normal (random);
            const auto before = c;
            path.table->rowTimesRows (n, depth, a.data(), w.data(), ldw, c.data());
            double worst = 0.0;
            for (int64_t j = 0; j < n; ++j)
            {
                double expected = before[static_cast<std::size_t> (j)];
                for (int64_t p = 0; p < depth; ++p)
                    expected += static_cast<double> (a[static_cast<std::size_t> (p)]) * w[static_cast<std::size_t> (j * ldw + p)];
                worst = std::max (worst, std::fabs (c[static_cast<std::size_t> (j)] - expected));
            }
            INFO ("n " << n << ", k " << depth);
            CHECK (worst < 1e-4);
            CHECK (c[static_cast<std::size_t> (n)] == before[static_cast<std::size_t> (n)]);
        }
    }
}

TEST_CASE ("the rnn op refuses files whose attributes or shapes do not fit", "[engine][rnn][hostile]")
{
    Spec valid;
    valid.bidirectional = true;
    valid.h0 = valid.c0 = true;
    REQUIRE (refusal (valid).empty());

    struct Case
    {
        const char* what;
        Spec spec;
        const char* message;
    };
    std::vector<Case> cases;
    auto add = [&] (const char* what, const char* message, auto change) {
        Spec spec = valid;
        change (spec);
        cases.push_back ({ what, spec, message });
    };
    add ("unknown mode", "rnn mode must be rnn_tanh, rnn_relu, gru or lstm, not 'conv'", [] (Spec& s) { s.modeAttribute = "conv"; });
    add ("hidden_size 0", "rnn hidden_size must be in 1 .. 2^24, got 0", [] (Spec& s) { s.hiddenAttribute = 0; });
    add ("hidden_size huge", "rnn hidden_size must be in 1 .. 2^24", [] (Spec& s) { s.hiddenAttribute = int64_t { 1 } << 40; });
    add ("hidden_size lies", "is declared [5, 2, 8] but the inputs give [5, 2, 10]", [] (Spec& s) { s.hiddenAttribute = 5; s.h0 = s.c0 = false; });
    add ("w_ih wrong", "rnn w_ih must be [16, 3], got [16, 4]", [] (Spec& s) { s.wihShape = std::vector<int64_t> { 16, 4 }; });
    add ("w_hh wrong", "rnn w_hh must be [16, 4], got [12, 4]", [] (Spec& s) { s.whhShape = std::vector<int64_t> { 12, 4 }; });
    add ("bias wrong", "rnn b_ih must be [16], got [15]", [] (Spec& s) { s.biasShape = std::vector<int64_t> { 15 }; });
    add ("weights computed", "rnn w_ih must be stored in the model file", [] (Spec& s) { s.weightsAsInput = true; });
    add ("proj_size for gru", "rnn proj_size must be 0, or for lstm in 1 .. hidden_size - 1, got 2", [] (Spec& s) {
        s.mode = "gru";
        s.c0 = false;
        s.projAttribute = 2;
    });
    add ("proj_size too large", "rnn proj_size must be 0, or for lstm in 1 .. hidden_size - 1, got 4", [] (Spec& s) { s.projAttribute = 4; });
    add ("w_hr without projection", "rnn w_hr is only for lstm with proj_size > 0", [] (Spec& s) { s.hrWithoutProj = true; });
    add ("c0 for gru", "rnn c0 is for lstm only", [] (Spec& s) {
        s.mode = "gru";
        s.c0 = false;
        s.c0Anyway = true;
    });
    add ("h0 wrong", "rnn h0 must be [2, 2, 4], got [2, 1, 4]", [] (Spec& s) { s.h0Shape = std::vector<int64_t> { 2, 1, 4 }; });
    add ("input rank 2", "rnn input must be [T, B, I]", [] (Spec& s) { s.xShape = std::vector<int64_t> { 5, 3 }; s.h0 = s.c0 = false; });
    add ("empty time axis", "holds no elements", [] (Spec& s) { s.steps = 0; s.h0 = s.c0 = false; });
    add ("output shape lies", "[5, 2, 8]", [] (Spec& s) { s.yShape = std::vector<int64_t> { 5, 2, 9 }; });
    add ("one input too many", "takes 13 inputs", [] (Spec& s) { s.extraInput = true; });
    add ("one direction's weights missing", "takes 13 inputs", [] (Spec& s) {
        s.bidirectional = false;
        s.bidirectionalAttribute = true;
        s.h0 = s.c0 = false;
    });
    for (const auto& c : cases)
    {
        INFO (c.what);
        const auto message = refusal (c.spec);
        CHECK_THAT (message, Contains (c.message));
    }
}
