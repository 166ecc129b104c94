// The engine's mixed-radix FFT against a direct DFT in long double, for the sizes spectrogram
// front ends use (powers of two, 400 = 2^4 5^2) and odd, prime and mixed sizes (generic radix).
#include "engine/file/ModelError.h"
#include "engine/kernels/Fft.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

using sonotype::engine::kernels::FftPlan;

namespace
{
using Complex = std::complex<double>;

std::vector<Complex> directDft (const std::vector<Complex>& x)
{
    const auto n = static_cast<int64_t> (x.size());
    std::vector<Complex> y (x.size());
    for (int64_t k = 0; k < n; ++k)
    {
        long double re = 0.0L, im = 0.0L;
        for (int64_t j = 0; j < n; ++j)
        {
            const long double angle = -2.0L * std::numbers::pi_v<long double> * static_cast<long double> ((j * k) % n) / static_cast<long double> (n);
            const long double c = std::cos (angle), s = std::sin (angle);
            re += static_cast<long double> (x[static_cast<std::size_t> (j)].real()) * c - static_cast<long double> (x[static_cast<std::size_t> (j)].imag()) * s;
            im += static_cast<long double> (x[static_cast<std::size_t> (j)].real()) * s + static_cast<long double> (x[static_cast<std::size_t> (j)].imag()) * c;
        }
        y[static_cast<std::size_t> (k)] = { static_cast<double> (re), static_cast<double> (im) };
    }
    return y;
}
} // namespace

TEST_CASE ("the FFT matches a direct DFT for power-of-two, mixed and prime sizes", "[engine][fft]")
{
    std::mt19937 random (16);
    std::normal_distribution<double> normal;
    for (const int64_t n : { 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 25, 49, 121, 143, 243, 256, 400, 441, 480, 512, 1000, 1021, 1024, 2048 })
    {
        CAPTURE (n);
        const FftPlan plan (n);
        std::vector<Complex> x (static_cast<std::size_t> (n)), y (x.size()), scratch (plan.scratchComplex());
        for (auto& value : x)
            value = { normal (random), normal (random) };
        plan.run (x.data(), y.data(), scratch.data());
        const auto expected = directDft (x);
        double worst = 0.0, largest = 0.0;
        for (std::size_t k = 0; k < x.size(); ++k)
        {
            worst = std::max (worst, std::abs (y[k] - expected[k]));
            largest = std::max (largest, std::abs (expected[k]));
        }
        CHECK (worst <= 1e-12 * std::max (largest, 1.0));
    }
}

TEST_CASE ("an FFT of a pure tone has one bin", "[engine][fft]")
{
    const int64_t n = 400;
    const FftPlan plan (n);
    std::vector<Complex> x (static_cast<std::size_t> (n)), y (x.size()), scratch (plan.scratchComplex());
    for (int64_t j = 0; j < n; ++j)
        x[static_cast<std::size_t> (j)] = std::cos (2.0 * std::numbers::pi * 7.0 * static_cast<double> (j) / static_cast<double> (n));
    plan.run (x.data(), y.data(), scratch.data());
    for (int64_t k = 0; k < n; ++k)
    {
        const double expected = (k == 7 || k == n - 7) ? static_cast<double> (n) / 2.0 : 0.0;
        CHECK (std::abs (y[static_cast<std::size_t> (k)] - Complex { expected, 0.0 }) < 1e-10);
    }
}

TEST_CASE ("FFT sizes outside 1..2^20 are refused", "[engine][fft]")
{
    CHECK_THROWS_AS (FftPlan (0), sonotype::engine::ModelError);
    CHECK_THROWS_AS (FftPlan (-4), sonotype::engine::ModelError);
    CHECK_THROWS_AS (FftPlan (FftPlan::kMaxSize + 1), sonotype::engine::ModelError);
}

TEST_CASE ("the real FFT matches a direct DFT of real input, even sizes packed, odd ones not", "[engine][fft]")
{
    using sonotype::engine::kernels::RealFftPlan;
    std::mt19937 random (17);
    std::normal_distribution<double> normal;
    for (const int64_t n : { 1, 2, 3, 4, 6, 10, 15, 64, 100, 256, 400, 441, 512, 1021, 1024, 2048 })
    {
        CAPTURE (n);
        const RealFftPlan plan (n);
        REQUIRE (plan.numBins() == n / 2 + 1);
        std::vector<double> x (static_cast<std::size_t> (n));
        std::vector<Complex> asComplex (x.size()), y (static_cast<std::size_t> (plan.numBins())), scratch (plan.scratchComplex());
        for (std::size_t j = 0; j < x.size(); ++j)
            asComplex[j] = x[j] = normal (random);
        plan.run (x.data(), y.data(), scratch.data());
        const auto expected = directDft (asComplex);
        double worst = 0.0, largest = 0.0;
        for (std::size_t k = 0; k < y.size(); ++k)
        {
            worst = std::max (worst, std::abs (y[k] - expected[k]));
            largest = std::max (largest, std::abs (expected[k]));
        }
        CHECK (worst <= 1e-12 * std::max (largest, 1.0));
    }
    CHECK_THROWS_AS (RealFftPlan (0), sonotype::engine::ModelError);
}
