// Every kernel path this CPU runs (engine/CpuDispatch.h), checked against double-precision
// references: matrix products of awkward shapes with and without packed operands, exp, erf, tanh,
// GELU, softmax and LayerNorm, NaN and infinities included.
#include "engine/CpuDispatch.h"
#include "engine/file/AlignedBuffer.h"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace sonotype;
using engine::kernels::GemmOperand;
using engine::kernels::KernelTable;

namespace
{
std::vector<float> randomValues (std::size_t count, std::mt19937& random)
{
    std::normal_distribution<float> normal;
    std::vector<float> values (count);
    for (auto& v : values)
        v = normal (random);
    return values;
}

/** A [m, k] and B [k, n] stored as the operands say (transposed or not), C [m, n] += alpha A B. */
void checkProduct (const KernelTable& kernels, int64_t m, int64_t n, int64_t k, bool transA, bool transB, bool packA, bool packB,
                   std::mt19937& random)
{
    const auto a = randomValues (static_cast<std::size_t> (m * k), random);
    const auto b = randomValues (static_cast<std::size_t> (k * n), random);
    auto c = randomValues (static_cast<std::size_t> (m * n), random);
    const auto before = c;
    const GemmOperand left { a.data(), transA ? m : k, transA, nullptr };
    const GemmOperand right { b.data(), transB ? k : n, transB, nullptr };
    std::vector<float> packedA (kernels.packedAFloats (m, k)), packedB (kernels.packedBFloats (k, n));
    GemmOperand usedA = left, usedB = right;
    if (packA && ! packedA.empty())
    {
        kernels.packA (m, k, left, packedA.data());
        usedA.packed = packedA.data();
    }
    if (packB && ! packedB.empty())
    {
        kernels.packB (k, n, right, packedB.data());
        usedB.packed = packedB.data();
    }
    // Aligned as the engine's arena: Eigen's kernels (the baseline path) store packed blocks with
    // aligned stores (64 bytes under -march=native's AVX-512).
    engine::AlignedBuffer scratch (kernels.gemmScratchFloats (m, n, k) + 64);
    const float alpha = 0.75f;
    kernels.gemm (m, n, k, usedA, usedB, c.data(), n, alpha, scratch.data());

    double worst = 0.0;
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
        {
            double sum = 0.0;
            for (int64_t p = 0; p < k; ++p)
            {
                const double x = transA ? a[static_cast<std::size_t> (p * m + i)] : a[static_cast<std::size_t> (i * k + p)];
                const double y = transB ? b[static_cast<std::size_t> (j * k + p)] : b[static_cast<std::size_t> (p * n + j)];
                sum += x * y;
            }
            const double expected = before[static_cast<std::size_t> (i * n + j)] + alpha * sum;
            worst = std::max (worst, std::abs (expected - c[static_cast<std::size_t> (i * n + j)]));
        }
    INFO ("m " << m << " n " << n << " k " << k << " transA " << transA << " transB " << transB << " packA " << packA << " packB " << packB);
    CHECK (worst < 1e-5 * std::sqrt (static_cast<double> (k)));
}

/** C = relu?(bias[j] + A B) + residual by gemmColumnBias, C's old values ignored (and the
        floats beyond its columns, ldc > n, kept). */
void checkColumnBias (const KernelTable& kernels, int64_t m, int64_t n, int64_t k, bool transA, bool transB, bool packB, bool withBias,
                      bool relu, bool withResidual, std::mt19937& random)
{
    const auto a = randomValues (static_cast<std::size_t> (m * k), random);
    const auto b = randomValues (static_cast<std::size_t> (k * n), random);
    const auto bias = randomValues (static_cast<std::size_t> (n), random);
    const int64_t ldc = n + 3, ldr = n + 2;
    auto c = randomValues (static_cast<std::size_t> (m * ldc), random);
    const auto before = c;
    const auto residual = randomValues (static_cast<std::size_t> (m * ldr), random);
    const GemmOperand left { a.data(), transA ? m : k, transA, nullptr };
    GemmOperand right { b.data(), transB ? k : n, transB, nullptr };
    std::vector<float> packedB (kernels.packedBFloats (k, n));
    if (packB && ! packedB.empty())
    {
        kernels.packB (k, n, right, packedB.data());
        right.packed = packedB.data();
    }
    engine::AlignedBuffer scratch (kernels.gemmScratchFloats (m, n, k) + 64);
    kernels.gemmColumnBias (m, n, k, left, right, c.data(), ldc, withBias ? bias.data() : nullptr, relu, withResidual ? residual.data() : nullptr,
                            ldr, scratch.data());

    double worst = 0.0;
    bool kept = true;
    for (int64_t i = 0; i < m; ++i)
    {
        for (int64_t j = 0; j < n; ++j)
        {
            double sum = withBias ? bias[static_cast<std::size_t> (j)] : 0.0;
            for (int64_t p = 0; p < k; ++p)
            {
                const double x = transA ? a[static_cast<std::size_t> (p * m + i)] : a[static_cast<std::size_t> (i * k + p)];
                const double y = transB ? b[static_cast<std::size_t> (j * k + p)] : b[static_cast<std::size_t> (p * n + j)];
                sum += x * y;
            }
            const double expected = (relu ? std::max (sum, 0.0) : sum) + (withResidual ? residual[static_cast<std::size_t> (i * ldr + j)] : 0.0);
            worst = std::max (worst, std::abs (expected - c[static_cast<std::size_t> (i * ldc + j)]));
        }
        for (int64_t j = n; j < ldc; ++j)
            kept = kept && c[static_cast<std::size_t> (i * ldc + j)] == before[static_cast<std::size_t> (i * ldc + j)];
    }
    INFO ("m " << m << " n " << n << " k " << k << " transA " << transA << " transB " << transB << " packB " << packB << " bias " << withBias
               << " relu " << relu << " residual " << withResidual);
    CHECK (worst < 1e-5 * std::sqrt (static_cast<double> (k + 1)));
    CHECK (kept);
}

/** `count` offsets in [0, highest], as the taps of an implicit im2col. */
std::vector<int64_t> randomOffsets (int64_t count, int64_t highest, std::mt19937& random)
{
    std::uniform_int_distribution<int64_t> offset (0, highest);
    std::vector<int64_t> offsets (static_cast<std::size_t> (count));
    for (auto& o : offsets)
        o = offset (random);
    return offsets;
}

/** A [m, depth] packed by the path's packA. */
std::vector<float> packedLeft (const KernelTable& kernels, int64_t m, int64_t depth, const std::vector<float>& a)
{
    std::vector<float> packed (kernels.packedAFloats (m, depth));
    kernels.packA (m, depth, { a.data(), depth, false, nullptr }, packed.data());
    return packed;
}

using Map = void (*) (const float*, float*, int64_t) noexcept;

template <typename Reference>
double worstError (Map kernel, const std::vector<float>& x, Reference reference, bool relative)
{
    std::vector<float> y (x.size());
    kernel (x.data(), y.data(), static_cast<int64_t> (x.size()));
    double worst = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        const double expected = reference (static_cast<double> (x[i]));
        const double error = std::abs (expected - y[i]) / (relative ? std::max (std::abs (expected), 1e-30) : 1.0);
        worst = std::max (worst, error);
    }
    return worst;
}

std::vector<float> grid (float from, float to, int count)
{
    std::vector<float> values;
    for (int i = 0; i <= count; ++i)
        values.push_back (from + (to - from) * static_cast<float> (i) / static_cast<float> (count));
    return values;
}
} // namespace

TEST_CASE ("the kernel path: the best this CPU runs unless SONOTYPE_KERNELS picks a lower one", "[engine][kernels]")
{
    const auto paths = engine::supportedKernelPaths();
    REQUIRE (! paths.empty());
    CHECK (std::string (paths.front().name) == "baseline");
    const auto& active = engine::activeKernelPath();
    bool found = false;
    for (const auto& path : paths)
        found = found || path.table == active.table;
    CHECK (found);
}

TEST_CASE ("every kernel path: matrix products of any shape, packed or not, transposed or not", "[engine][kernels]")
{
    for (const auto& path : engine::supportedKernelPaths())
    {
        INFO ("kernel path " << path.name);
        std::mt19937 random (7);
        const int64_t shapes[][3] = { { 1, 1, 1 }, { 1, 12, 64 }, { 13, 37, 5 }, { 26, 64, 64 }, { 12, 32, 256 }, { 25, 33, 257 }, { 97, 130, 300 }, { 7, 1100, 20 }, { 64, 256, 100 }, { 11, 45, 33 }, { 6, 64, 9 } };
        for (const auto& shape : shapes)
            for (int variant = 0; variant < 8; ++variant)
            {
                const bool transA = (variant & 1) != 0, transB = (variant & 2) != 0, packed = (variant & 4) != 0;
                checkProduct (*path.table, shape[0], shape[1], shape[2], transA, transB, packed, packed, random);
            }
        checkProduct (*path.table, 30, 70, 90, false, true, false, true, random); // weights packed, activations not
        checkProduct (*path.table, 30, 70, 90, false, false, true, false, random);
        // Packed weights of more rows than one block of the product (24 tiles: 144 rows on AVX2,
        // 192 on AVX-512) whose last rows split in two tiles across the block's end.
        for (const int64_t m : { 146, 194 })
        {
            checkProduct (*path.table, m, 20, 30, false, false, true, false, random);
            checkProduct (*path.table, m, 20, 300, false, false, true, true, random);
        }
    }
}

TEST_CASE ("every kernel path: a product with a per-column bias, ReLU and a residual writes C whole, over any depth", "[engine][kernels]")
{
    for (const auto& path : engine::supportedKernelPaths())
    {
        INFO ("kernel path " << path.name);
        std::mt19937 random (11);
        // Depth 0 (the bias alone), one depth block, several (bias once, ReLU on the last only).
        const int64_t shapes[][3] = { { 1, 1, 1 }, { 5, 7, 0 }, { 13, 37, 5 }, { 52, 96, 96 }, { 9, 40, 257 }, { 33, 65, 600 }, { 7, 1100, 20 } };
        for (const auto& shape : shapes)
            for (int variant = 0; variant < 32; ++variant)
                checkColumnBias (*path.table, shape[0], shape[1], shape[2], (variant & 1) != 0, (variant & 2) != 0, (variant & 4) != 0,
                                 (variant & 8) != 0, (variant & 3) == 1 || (variant & 8) != 0, (variant & 16) != 0, random);

        // The fused ReLU as the relu op, in whole tiles and the last columns: NaN passes, a -0 bias
        // gives a zero (its sign is the sum's: -0 alone, +0 after adding a +0 product; the relu keeps
        // it, as torch.relu; the copy test below checks -0 itself).
        const int64_t m = 3, n = 40;
        std::vector<float> bias (static_cast<std::size_t> (n), -0.0f), c (static_cast<std::size_t> (m * n), 5.0f);
        bias[1] = bias[n - 2] = std::numeric_limits<float>::quiet_NaN();
        const float a = 0.0f, b = 0.0f;
        engine::AlignedBuffer scratch (path.table->gemmScratchFloats (m, n, 1) + 64);
        path.table->gemmColumnBias (m, n, 0, { &a, 0, false, nullptr }, { &b, n, false, nullptr }, c.data(), n, bias.data(), true, nullptr, 0,
                                    scratch.data());
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j)
            {
                const float got = c[static_cast<std::size_t> (i * n + j)];
                INFO ("row " << i << " column " << j);
                if (j == 1 || j == n - 2)
                    CHECK (std::isnan (got));
                else
                    CHECK (got == 0.0f);
            }
    }
}

TEST_CASE ("every kernel path: exp, GELU, tanh, sigmoid and SiLU match libm", "[engine][kernels]")
{
    const auto x = grid (-30.0f, 30.0f, 60001);
    for (const auto& path : engine::supportedKernelPaths())
    {
        INFO ("kernel path " << path.name);
        const auto& k = *path.table;
        CHECK (worstError (
                   k.exp, grid (-87.0f, 88.0f, 100001), [] (double v) { return std::exp (v); }, true)
               < 4e-7);
        CHECK (worstError (
                   k.tanh, x, [] (double v) { return std::tanh (v); }, false)
               < 3e-7);
        CHECK (worstError (
                   k.tanh, grid (-0.1f, 0.1f, 20001), [] (double v) { return std::tanh (v); }, true)
               < 2e-6);
        CHECK (worstError (
                   k.sigmoid, x, [] (double v) { return 1.0 / (1.0 + std::exp (-v)); }, false)
               < 3e-7);
        CHECK (worstError (
                   k.silu, x, [] (double v) { return v / (1.0 + std::exp (-v)); }, false)
               < 4e-6);
        CHECK (worstError (
                   k.geluErf, x, [] (double v) { return 0.5 * v * (1.0 + std::erf (v / std::sqrt (2.0))); }, false)
               < 2e-6);
        CHECK (worstError (
                   k.geluTanh, x, [] (double v) { return 0.5 * v * (1.0 + std::tanh (0.7978845608028654 * (v + 0.044715 * v * v * v))); },
                   false)
               < 2e-6);

        // Special values: exp underflows to 0; NaN stays NaN everywhere; tanh saturates.
        const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
        const std::vector<float> special { nan, -inf, inf, -200.0f, 200.0f, 0.0f, -0.0f };
        std::vector<float> y (special.size());
        k.exp (special.data(), y.data(), 7);
        CHECK (std::isnan (y[0]));
        CHECK (y[1] == 0.0f);
        CHECK (y[3] == 0.0f);
        CHECK (y[5] == 1.0f);
        for (Map f : { k.geluErf, k.geluTanh, k.tanh, k.sigmoid, k.silu })
        {
            f (special.data(), y.data(), 7);
            CHECK (std::isnan (y[0]));
        }
        k.tanh (special.data(), y.data(), 7);
        CHECK (y[1] == -1.0f);
        CHECK (y[2] == 1.0f);
        k.geluErf (special.data(), y.data(), 7);
        CHECK (y[3] == 0.0f);
        CHECK (y[4] == 200.0f);
    }
}

TEST_CASE ("every kernel path: log and log10 within 2 ulp of the exact values, as C's log at 0, below 0, inf and NaN", "[engine][kernels]")
{
    // Every 997th positive float, subnormals to FLT_MAX, and a dense grid around 1 (log's zero).
    std::vector<float> x;
    for (uint32_t bits = 1; bits < 0x7f800000u; bits += 997)
    {
        float v;
        std::memcpy (&v, &bits, sizeof v);
        x.push_back (v);
    }
    for (const float v : grid (0.5f, 2.0f, 300001))
        x.push_back (v);
    // Error in units of the last place of the exact value rounded to float.
    auto worstUlps = [&] (Map kernel, double (*exact) (double)) {
        std::vector<float> y (x.size());
        kernel (x.data(), y.data(), static_cast<int64_t> (x.size()));
        double worst = 0.0;
        for (std::size_t i = 0; i < x.size(); ++i)
        {
            const double expected = exact (static_cast<double> (x[i]));
            const float rounded = std::abs (static_cast<float> (expected));
            const double ulp = rounded > 0.0f ? static_cast<double> (std::nextafter (rounded, INFINITY) - rounded) : 1e-45;
            worst = std::max (worst, std::abs (y[i] - expected) / ulp);
        }
        return worst;
    };
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const std::vector<float> special { nan, -inf, inf, -1.0f, -1e-45f, 0.0f, -0.0f, 1.0f };
    for (const auto& path : engine::supportedKernelPaths())
    {
        INFO ("kernel path " << path.name);
        const auto& k = *path.table;
        CHECK (worstUlps (k.log, [] (double v) { return std::log (v); }) <= 2.0);
        CHECK (worstUlps (k.log10, [] (double v) { return std::log10 (v); }) <= 2.0);
        for (Map f : { k.log, k.log10 })
        {
            std::vector<float> y (special.size());
            f (special.data(), y.data(), static_cast<int64_t> (special.size()));
            CHECK (std::isnan (y[0]));
            CHECK (std::isnan (y[1]));
            CHECK (y[2] == inf);
            CHECK (std::isnan (y[3]));
            CHECK (std::isnan (y[4]));
            CHECK (y[5] == -inf);
            CHECK (y[6] == -inf);
            CHECK (y[7] == 0.0f);
        }
    }
}

TEST_CASE ("every kernel path: softmax and LayerNorm rows of any length", "[engine][kernels]")
{
    std::mt19937 random (3);
    for (const auto& path : engine::supportedKernelPaths())
    {
        INFO ("kernel path " << path.name);
        for (int64_t length : { 1, 3, 16, 17, 26, 64, 101, 512 })
        {
            INFO ("length " << length);
            const int64_t rows = 3, stride = length + 5;
            auto x = randomValues (static_cast<std::size_t> (rows * stride), random);
            for (auto& v : x)
                v *= 8.0f;
            if (length > 1)
                x[static_cast<std::size_t> (length - 1)] = -std::numeric_limits<float>::infinity(); // a masked key in row 0
            for (int64_t j = 0; j < length; ++j)
                x[static_cast<std::size_t> (stride + j)] = -std::numeric_limits<float>::infinity(); // row 1 wholly masked
            const auto original = x;
            path.table->softmaxRows (x.data(), rows, length, stride);
            double worst = 0.0;
            for (int64_t r = 0; r < rows; ++r)
            {
                const float* in = original.data() + r * stride;
                double maximum = -std::numeric_limits<double>::infinity(), sum = 0.0;
                for (int64_t j = 0; j < length; ++j)
                    maximum = std::max (maximum, static_cast<double> (in[j]));
                for (int64_t j = 0; j < length; ++j)
                    sum += std::exp (in[j] - maximum);
                for (int64_t j = 0; j < length; ++j)
                {
                    const double expected = std::isinf (maximum) ? 0.0 : std::exp (in[j] - maximum) / sum;
                    worst = std::max (worst, std::abs (expected - x[static_cast<std::size_t> (r * stride + j)]));
                }
                for (int64_t j = length; j < stride; ++j) // the gap between rows is untouched
                    CHECK (x[static_cast<std::size_t> (r * stride + j)] == in[j]);
            }
            CHECK (worst < 1e-6);
            if (length > 1)
                CHECK (x[static_cast<std::size_t> (length - 1)] == 0.0f);

            // Rows normalised a group at a time, and the rest one by one.
            const int64_t normRows = 7;
            auto values = randomValues (static_cast<std::size_t> (normRows * length), random);
            for (std::size_t i = 0; i < values.size(); ++i)
                values[i] = values[i] * static_cast<float> (1 + i / static_cast<std::size_t> (length)) + 100.0f; // far from zero: the mean must still be accurate
            const auto weight = randomValues (static_cast<std::size_t> (length), random);
            const auto bias = randomValues (static_cast<std::size_t> (length), random);
            std::vector<float> y (values.size());
            path.table->layerNormRows (values.data(), y.data(), normRows, length, weight.data(), bias.data(), 1e-5f);
            worst = 0.0;
            for (int64_t r = 0; r < normRows; ++r)
            {
                double mean = 0.0, squares = 0.0;
                for (int64_t j = 0; j < length; ++j)
                    mean += values[static_cast<std::size_t> (r * length + j)];
                mean /= static_cast<double> (length);
                for (int64_t j = 0; j < length; ++j)
                    squares += std::pow (values[static_cast<std::size_t> (r * length + j)] - mean, 2.0);
                const double rstd = 1.0 / std::sqrt (squares / static_cast<double> (length) + 1e-5);
                for (int64_t j = 0; j < length; ++j)
                {
                    const auto i = static_cast<std::size_t> (r * length + j);
                    const auto w = static_cast<std::size_t> (j);
                    const double expected = (values[i] - mean) * rstd * weight[w] + bias[w];
                    worst = std::max (worst, std::abs (expected - y[i]) / (1.0 + std::abs (weight[w])));
                }
            }
            CHECK (worst < 1e-5);
        }
    }
}

TEST_CASE ("every packing kernel path: the implicit-im2col product reads each row at its offset", "[engine][kernels]")
{
    std::mt19937 random (11);
    for (const auto& path : engine::supportedKernelPaths())
    {
        const auto& k = *path.table;
        if (k.shiftedGemm == nullptr)
            continue;
        INFO ("kernel path " << path.name);
        for (const auto& shape : { std::array<int64_t, 3> { 16, 101, 9 }, { 13, 37, 27 }, { 32, 64, 144 }, { 5, 7, 3 }, { 13, 64, 20 }, { 146, 40, 9 }, { 194, 40, 9 } })
        {
            const int64_t m = shape[0], n = shape[1], depth = shape[2];
            const auto input = randomValues (4000, random);
            const auto offsets = randomOffsets (depth, 4000 - n, random); // the last column read is input[offset + n - 1]
            const auto a = randomValues (static_cast<std::size_t> (m * depth), random);
            const auto packed = packedLeft (k, m, depth, a);
            const int64_t ldc = n + 3;
            auto c = randomValues (static_cast<std::size_t> (m * ldc), random);
            const auto before = c;
            const auto bias = randomValues (static_cast<std::size_t> (m), random);
            k.shiftedGemm (m, n, depth, packed.data(), input.data(), offsets.data(), bias.data(), c.data(), ldc);
            double worst = 0.0;
            for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < ldc; ++j)
                {
                    double expected = j < n ? bias[static_cast<std::size_t> (i)] : before[static_cast<std::size_t> (i * ldc + j)];
                    if (j < n) // the 3 columns beyond n are left alone
                        for (int64_t p = 0; p < depth; ++p)
                            expected += static_cast<double> (a[static_cast<std::size_t> (i * depth + p)])
                                        * input[static_cast<std::size_t> (offsets[static_cast<std::size_t> (p)] + j)];
                    worst = std::max (worst, std::abs (expected - c[static_cast<std::size_t> (i * ldc + j)]));
                }
            INFO ("m " << m << " n " << n << " k " << depth);
            CHECK (worst < 1e-5 * std::sqrt (static_cast<double> (depth)));
        }
    }
}

TEST_CASE ("every packing kernel path: two rows of the implicit-im2col product max-pooled into one", "[engine][kernels]")
{
    std::mt19937 random (13);
    constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
    for (const auto& path : engine::supportedKernelPaths())
    {
        const auto& k = *path.table;
        if (k.shiftedRowPairs == nullptr)
            continue;
        INFO ("kernel path " << path.name);
        for (const auto& shape : { std::array<int64_t, 4> { 16, 101, 9, 103 }, { 13, 37, 27, 40 }, { 3, 16, 4, 0 }, { 9, 5, 2, 7 }, { 8, 64, 18, 64 }, { 146, 20, 9, 24 }, { 194, 20, 9, 24 } })
            for (const bool relu : { false, true })
                for (const bool withBias : { false, true })
                {
                    const int64_t m = shape[0], n = shape[1], depth = shape[2], pairStride = shape[3];
                    auto input = randomValues (4000, random);
                    input[17] = kNaN; // NaN wins the max (and passes the relu), as torch's pooling
                    auto offsets = randomOffsets (depth, 4000 - n - pairStride, random);
                    offsets[0] = 0; // the NaNs reach column 17 of the top row and column 30 of the bottom one
                    input[static_cast<std::size_t> (pairStride + 30)] = kNaN;
                    const auto a = randomValues (static_cast<std::size_t> (m * depth), random);
                    const auto packed = packedLeft (k, m, depth, a);
                    const int64_t ldc = n + 3;
                    auto c = randomValues (static_cast<std::size_t> (m * ldc), random);
                    const auto before = c;
                    const auto bias = randomValues (static_cast<std::size_t> (m), random);
                    k.shiftedRowPairs (m, n, depth, packed.data(), input.data(), offsets.data(), pairStride, withBias ? bias.data() : nullptr, relu,
                                       c.data(), ldc);
                    double worst = 0.0;
                    bool nanKept = true, othersKept = true;
                    for (int64_t i = 0; i < m; ++i)
                        for (int64_t j = 0; j < ldc; ++j)
                        {
                            const float got = c[static_cast<std::size_t> (i * ldc + j)];
                            if (j >= n) // the 3 columns beyond n are left alone
                            {
                                othersKept = othersKept && got == before[static_cast<std::size_t> (i * ldc + j)];
                                continue;
                            }
                            double rows[2];
                            for (int half = 0; half < 2; ++half)
                            {
                                rows[half] = withBias ? bias[static_cast<std::size_t> (i)] : 0.0;
                                for (int64_t p = 0; p < depth; ++p)
                                    rows[half] += static_cast<double> (a[static_cast<std::size_t> (i * depth + p)])
                                                  * input[static_cast<std::size_t> (offsets[static_cast<std::size_t> (p)] + half * pairStride + j)];
                            }
                            if (std::isnan (rows[0]) || std::isnan (rows[1]))
                            {
                                nanKept = nanKept && std::isnan (got);
                                continue;
                            }
                            const double expected = relu ? std::max ({ rows[0], rows[1], 0.0 }) : std::max (rows[0], rows[1]);
                            worst = std::max (worst, std::abs (expected - got));
                        }
                    INFO ("m " << m << " n " << n << " k " << depth << " pair stride " << pairStride << " relu " << relu << " bias " << withBias);
                    CHECK (worst < 1e-5 * std::sqrt (static_cast<double> (depth)));
                    CHECK (nanKept);
                    CHECK (othersKept);
                }
    }
}

TEST_CASE ("every kernel path: fused attention of any head size, with and without a mask, rows contiguous or strided", "[engine][kernels]")
{
    std::mt19937 random (5);
    for (const auto& path : engine::supportedKernelPaths())
    {
        const auto& k = *path.table;
        INFO ("kernel path " << path.name);
        for (const auto& shape : { std::array<int64_t, 4> { 1, 1, 1, 1 }, { 52, 52, 24, 24 }, { 7, 13, 16, 40 }, { 33, 100, 64, 64 }, { 9, 5, 3, 17 } })
            for (bool masked : { false, true })
                for (bool strided : { false, true })
                {
                    const int64_t l = shape[0], s = shape[1], d = shape[2], dv = shape[3];
                    // Strided: rows further apart than they are long (a head's columns within all heads' rows).
                    const int64_t ldq = strided ? d + 5 : d, ldk = strided ? d + 2 : d, ldv = strided ? dv + 7 : dv, ldo = strided ? dv + 3 : dv;
                    INFO ("l " << l << " s " << s << " d " << d << " dv " << dv << " masked " << masked << " strided " << strided);
                    const auto q = randomValues (static_cast<std::size_t> (l * ldq), random), keys = randomValues (static_cast<std::size_t> (s * ldk), random);
                    const auto v = randomValues (static_cast<std::size_t> (s * ldv), random);
                    std::vector<float> mask (static_cast<std::size_t> (l * s), 0.0f);
                    if (masked)
                    {
                        std::uniform_real_distribution<float> uniform (-2.0f, 2.0f);
                        for (auto& m : mask)
                            m = uniform (random) > 1.5f ? -std::numeric_limits<float>::infinity() : uniform (random);
                        for (int64_t j = 0; j < s; ++j)
                            mask[static_cast<std::size_t> (j)] = -std::numeric_limits<float>::infinity(); // row 0 wholly masked
                    }
                    const float scale = 1.0f / std::sqrt (static_cast<float> (d));
                    std::vector<float> out (static_cast<std::size_t> (l * ldo) + 8, 7.0f), scratch (k.attentionScratchFloats (s, d));
                    k.attention (q.data(), ldq, keys.data(), ldk, v.data(), ldv, out.data(), ldo, l, s, d, dv, scale, masked ? mask.data() : nullptr, s,
                                 1, scratch.data());
                    double worst = 0.0;
                    bool othersKept = true;
                    for (int64_t i = 0; i < l; ++i)
                    {
                        std::vector<double> p (static_cast<std::size_t> (s));
                        double maximum = -std::numeric_limits<double>::infinity(), sum = 0.0;
                        for (int64_t j = 0; j < s; ++j)
                        {
                            double dot = 0.0;
                            for (int64_t c = 0; c < d; ++c)
                                dot += static_cast<double> (q[static_cast<std::size_t> (i * ldq + c)]) * keys[static_cast<std::size_t> (j * ldk + c)];
                            p[static_cast<std::size_t> (j)] = dot * scale + mask[static_cast<std::size_t> (i * s + j)];
                            maximum = std::max (maximum, p[static_cast<std::size_t> (j)]);
                        }
                        for (auto& x : p)
                            sum += (x = std::isinf (maximum) ? 0.0 : std::exp (x - maximum));
                        for (int64_t c = 0; c < dv; ++c)
                        {
                            double expected = 0.0;
                            for (int64_t j = 0; j < s; ++j)
                                expected += (sum > 0.0 ? p[static_cast<std::size_t> (j)] / sum : 0.0) * v[static_cast<std::size_t> (j * ldv + c)];
                            worst = std::max (worst, std::abs (expected - out[static_cast<std::size_t> (i * ldo + c)]));
                        }
                        for (int64_t c = dv; c < ldo; ++c) // nothing written between the rows
                            othersKept = othersKept && out[static_cast<std::size_t> (i * ldo + c)] == 7.0f;
                    }
                    CHECK (worst < 2e-6);
                    CHECK (othersKept);
                    for (std::size_t i = static_cast<std::size_t> (l * ldo); i < out.size(); ++i) // nothing written beyond the output
                        CHECK (out[i] == 7.0f);
                }
    }
}

namespace
{
/** A pooling row kernel's pass (maxInto, addInto) on every path, stride 1-3, rows of odd and
        even lengths: `check` gets the row before and after, and the tap (exactly the floats the
        row reads: (count - 1) * stride + 1); the row has one float more, which must stay. */
using PoolingRowKernel = void (*) (const float*, int64_t, float*, int64_t) noexcept;

template <typename Prepare, typename Check>
void forEachPoolingRow (unsigned seed, PoolingRowKernel engine::kernels::KernelTable::*kernel, Prepare prepare, Check check)
{
    std::mt19937 random (seed);
    for (const auto& path : engine::supportedKernelPaths())
    {
        INFO ("kernel path " << path.name);
        for (int64_t stride : { 1, 2, 3 })
            for (int64_t count : { 1, 7, 16, 17, 33, 50 })
            {
                INFO ("stride " << stride << " count " << count);
                auto tap = randomValues (static_cast<std::size_t> ((count - 1) * stride + 1), random);
                auto row = randomValues (static_cast<std::size_t> (count) + 1, random);
                prepare (tap, row, count);
                const auto before = row;
                (path.table->*kernel) (tap.data(), stride, row.data(), count);
                for (int64_t i = 0; i < count; ++i)
                    check (before[static_cast<std::size_t> (i)], tap[static_cast<std::size_t> (i * stride)], row[static_cast<std::size_t> (i)]);
                CHECK (row.back() == before.back()); // nothing written beyond the row
            }
    }
}
} // namespace

TEST_CASE ("every kernel path: max pooling rows with strides 1, 2 and 3, NaN winning", "[engine][kernels]")
{
    forEachPoolingRow (
        9, &engine::kernels::KernelTable::maxInto,
        [] (std::vector<float>& tap, std::vector<float>& row, int64_t count) {
            tap[0] = std::numeric_limits<float>::quiet_NaN();
            row[static_cast<std::size_t> (count - 1)] = std::numeric_limits<float>::quiet_NaN();
        },
        [] (float a, float b, float got) {
            if (std::isnan (a) || std::isnan (b))
                CHECK (std::isnan (got));
            else
                CHECK (got == std::max (a, b));
        });
}

TEST_CASE ("every kernel path: average pooling's sum rows with strides 1, 2 and 3", "[engine][kernels]")
{
    // One float addition per element: exactly what the scalar sum in the taps' order gives.
    forEachPoolingRow (
        10, &engine::kernels::KernelTable::addInto, [] (std::vector<float>&, std::vector<float>&, int64_t) {},
        [] (float a, float b, float got) { CHECK (got == a + b); });
}

TEST_CASE ("every kernel path: the fused ReLU's copy keeps NaN and -0, as the relu op and torch.relu", "[engine][kernels]")
{
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    std::vector<float> values;
    for (int i = 0; i < 40; ++i) // long enough for the vector loop on every path, and a scalar tail
        values.push_back (std::vector<float> { nan, -inf, inf, -0.0f, 0.0f, -2.5f, 3.5f }[static_cast<std::size_t> (i % 7)]);
    for (const auto& path : engine::supportedKernelPaths())
    {
        INFO ("kernel path " << path.name);
        std::vector<float> out (values.size());
        path.table->copy (values.data(), out.data(), static_cast<int64_t> (values.size()), true);
        for (std::size_t i = 0; i < values.size(); ++i)
        {
            INFO ("value " << values[i] << " at " << i);
            if (std::isnan (values[i]))
                CHECK (std::isnan (out[i]));
            else
            {
                const float expected = values[i] < 0.0f ? 0.0f : values[i]; // -0 stays -0, as torch.relu's
                CHECK (out[i] == expected);
                CHECK (std::signbit (out[i]) == std::signbit (expected));
            }
        }
        path.table->copy (values.data(), out.data(), static_cast<int64_t> (values.size()), false);
        for (std::size_t i = 0; i < values.size(); ++i)
            CHECK ((std::isnan (values[i]) ? std::isnan (out[i]) : std::memcmp (&out[i], &values[i], sizeof (float)) == 0));
    }
}

TEST_CASE ("every kernel path: Winograd F(2x2, 3x3) and F(4x2, 3x3) split and transforms of tile rows of any length", "[engine][kernels]")
{
    std::mt19937 random (29);
    constexpr float kUntouched = 1234.5f;
    // Along a tile's rows F(2, 3); down its columns F(2, 3) for 2-row tiles, F(4, 3) for 4-row ones.
    static constexpr double kBT[4][4] = { { 1, 0, -1, 0 }, { 0, 1, 1, 0 }, { 0, -1, 1, 0 }, { 0, 1, 0, -1 } };
    static constexpr double kAT[2][4] = { { 1, 1, 1, 0 }, { 0, 1, -1, -1 } };
    static constexpr double kBT4[6][6] = { { 4, 0, -5, 0, 1, 0 }, { 0, -4, -4, 1, 1, 0 }, { 0, 4, -4, -1, 1, 0 }, { 0, -2, -1, 2, 1, 0 }, { 0, 2, -1, -2, 1, 0 }, { 0, 4, 0, -5, 0, 1 } };
    static constexpr double kAT4[4][6] = { { 1, 1, 1, 1, 1, 0 }, { 0, 1, -1, 2, -2, 0 }, { 0, 1, 1, 4, 4, 0 }, { 0, 1, -1, 8, -8, 1 } };
    for (const auto& path : engine::supportedKernelPaths())
    {
        const auto& k = *path.table;
        if (k.winogradInput == nullptr)
            continue;
        INFO ("kernel path " << path.name);
        for (const int tileRows : { 2, 4 })
            for (const int64_t count : { 1, 3, 4, 8, 15, 16, 17, 33, 51 })
            {
                INFO ("tile rows " << tileRows << ", tiles " << count);
                const int inputRows = tileRows + 2;
                const auto bT = [tileRows] (int i, int r) { return tileRows == 4 ? kBT4[i][r] : kBT[i][r]; };
                const auto aT = [tileRows] (int a, int i) { return tileRows == 4 ? kAT4[a][i] : kAT[a][i]; };
                // An input of 2 channels split as the convolution splits it: 2 tile rows of padded
                // rows (2 * tileRows), count + 1 pairs of columns each, padded with padH rows and
                // padW columns of zeros before the input and at least one after.
                const int64_t channels = 2, splitRows = 2 * tileRows, pairs = count + 1, length = 2 * pairs + 3, channelStride = tileRows * 2 * length;
                const int64_t padH = count % 3, padW = (count + 1) % 3, inH = splitRows - padH - 1, inW = 2 * pairs - padW - 1;
                const auto input = randomValues (static_cast<std::size_t> (channels * inH * inW), random);
                const auto padded = [&] (int64_t c, int64_t py, int64_t column) { // padded row py, column `column`
                    const int64_t iy = py - padH, ix = column - padW;
                    return iy >= 0 && iy < inH && ix >= 0 && ix < inW ? input[static_cast<std::size_t> ((c * inH + iy) * inW + ix)] : 0.0f;
                };
                std::vector<float> split (static_cast<std::size_t> (channels * channelStride), kUntouched);
                k.winogradSplit (input.data(), channels, inH, inW, padH, padW, tileRows, splitRows, pairs, split.data(), length, channelStride);
                for (int64_t c = 0; c < channels; ++c)
                    for (int64_t at = 0; at < channelStride; ++at)
                    {
                        // Row py's even columns at (py % tileRows) * 2 * length + (py / tileRows) * pairs, its odd ones a length further.
                        const int64_t plane = at / (2 * length), inPlane = at % (2 * length), phase = inPlane / length, slot = inPlane % length / pairs,
                                      i = inPlane % length % pairs;
                        const float got = split[static_cast<std::size_t> (c * channelStride + at)];
                        if (slot >= 2)
                            REQUIRE (got == kUntouched); // beyond the rows asked for
                        else
                            REQUIRE (got == padded (c, slot * tileRows + plane, 2 * i + phase));
                    }
                // Input transform: V = B^T d B per tile and channel, into out[xi * xiStride + c * channelOut + t].
                const int64_t channelOut = count + 5, xiStride = channels * channelOut + 7, elements = 4 * inputRows;
                std::vector<float> transformed (static_cast<std::size_t> (elements * xiStride), kUntouched);
                k.winogradInput (tileRows, split.data(), channels, channelStride, length, pairs, count, transformed.data(), xiStride, channelOut);
                for (int64_t c = 0; c < channels; ++c)
                    for (int64_t t = 0; t < channelOut; ++t)
                        for (int i = 0; i < inputRows; ++i)
                            for (int j = 0; j < 4; ++j)
                            {
                                const float got = transformed[static_cast<std::size_t> ((4 * i + j) * xiStride + c * channelOut + t)];
                                if (t >= count)
                                {
                                    REQUIRE (got == kUntouched); // nothing written beyond the tiles
                                    continue;
                                }
                                double expected = 0.0, scale = 0.0;
                                for (int r = 0; r < inputRows; ++r)
                                    for (int s = 0; s < 4; ++s)
                                    {
                                        const double term = bT (i, r) * padded (c, r, 2 * t + s) * kBT[j][s];
                                        expected += term;
                                        scale += std::abs (term);
                                    }
                                REQUIRE (std::abs (got - expected) <= 1e-6 * scale + 1e-7);
                            }
                // Output transform: A^T m A + bias, relu'd, into `rows` rows (1 to tileRows) of
                // `width` columns, or max-pooled over 2 rows, 2 columns or both.
                for (const bool relu : { false, true })
                    for (int rows = 1; rows <= tileRows; ++rows)
                        for (const int64_t width : { 2 * count, 2 * count - 1 })
                            for (const auto& pool : { std::array<int, 2> { 1, 1 }, { 2, 1 }, { 1, 2 }, { 2, 2 } })
                            {
                                INFO ("relu " << relu << " rows " << rows << " width " << width << " pooling " << pool[0] << "x" << pool[1]);
                                const auto products = randomValues (static_cast<std::size_t> (elements * xiStride), random);
                                const auto bias = randomValues (static_cast<std::size_t> (channels), random);
                                const int64_t rowStride = 2 * count + 3, channelY = tileRows * rowStride;
                                std::vector<float> y (static_cast<std::size_t> (channels * channelY), kUntouched);
                                k.winogradOutput (tileRows, products.data(), xiStride, channels, channelOut, count, bias.data(), relu, y.data(), channelY,
                                                  rowStride, rows, width, pool[0], pool[1]);
                                const auto output = [&] (int64_t c, int64_t a, int64_t x) { // row a, column x of the tiles' outputs
                                    const int64_t t = x / 2, b = x % 2;
                                    double value = bias[static_cast<std::size_t> (c)];
                                    for (int i = 0; i < inputRows; ++i)
                                        for (int j = 0; j < 4; ++j)
                                            value += aT (static_cast<int> (a), i) * products[static_cast<std::size_t> ((4 * i + j) * xiStride + c * channelOut + t)]
                                                     * kAT[b][j];
                                    return relu ? std::max (value, 0.0) : value;
                                };
                                const int64_t rowsOut = pool[0] == 2 ? (rows + 1) / 2 : rows, widthOut = pool[1] == 2 ? (width + 1) / 2 : width;
                                for (int64_t c = 0; c < channels; ++c)
                                    for (int64_t a = 0; a < tileRows; ++a)
                                        for (int64_t x = 0; x < rowStride; ++x)
                                        {
                                            const float got = y[static_cast<std::size_t> (c * channelY + a * rowStride + x)];
                                            if (a >= rowsOut || x >= widthOut)
                                            {
                                                REQUIRE (got == kUntouched);
                                                continue;
                                            }
                                            // The window's outputs that exist: rows [a0, a1), columns [x0, x1).
                                            const int64_t a0 = pool[0] == 2 ? 2 * a : a, a1 = pool[0] == 2 ? std::min<int64_t> (2 * a + 2, rows) : a + 1;
                                            const int64_t x0 = pool[1] == 2 ? 2 * x : x, x1 = pool[1] == 2 ? std::min (2 * x + 2, width) : x + 1;
                                            double expected = -1e30;
                                            for (int64_t r = a0; r < a1; ++r)
                                                for (int64_t col = x0; col < x1; ++col)
                                                    expected = std::max (expected, output (c, r, col));
                                            REQUIRE (std::abs (got - expected) < (tileRows == 4 ? 1e-4 : 1e-5));
                                        }
                            }
            }
    }
}
