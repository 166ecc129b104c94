// One core's peak float32 GFLOP/s for each instruction set this CPU supports: independent chains of
// multiply-adds (SSE2: a multiply then an add; AVX2 and AVX-512: fused multiply-adds), enough chains
// to hide the latency, nothing loaded or stored in the loop. Prints one JSON object:
//   {"sse2": G, "avx2_fma": G, "avx512f": G}   (an ISA the CPU lacks is absent)
// Each figure is the best of 15 repetitions (the peak is what the core can do, not a typical run:
// another process or a frequency dip only lowers some repetitions).
#include <chrono>
#include <cstdio>
#include <immintrin.h>

namespace
{

constexpr int kChains = 12;
constexpr long kIterations = 20'000'000;

using Clock = std::chrono::steady_clock;

__attribute__ ((target ("sse2"), noinline)) float chainsSse2 (long iterations, float seed)
{
    __m128 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm_set1_ps (seed + static_cast<float> (c));
    const auto m = _mm_set1_ps (0.999999f), a = _mm_set1_ps (1e-6f);
    for (long i = 0; i < iterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm_add_ps (_mm_mul_ps (acc[c], m), a);
    auto sum = _mm_setzero_ps();
    for (int c = 0; c < kChains; ++c)
        sum = _mm_add_ps (sum, acc[c]);
    return _mm_cvtss_f32 (sum);
}

__attribute__ ((target ("avx2,fma"), noinline)) float chainsAvx2 (long iterations, float seed)
{
    __m256 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm256_set1_ps (seed + static_cast<float> (c));
    const auto m = _mm256_set1_ps (0.999999f), a = _mm256_set1_ps (1e-6f);
    for (long i = 0; i < iterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm256_fmadd_ps (acc[c], m, a);
    auto sum = _mm256_setzero_ps();
    for (int c = 0; c < kChains; ++c)
        sum = _mm256_add_ps (sum, acc[c]);
    return _mm256_cvtss_f32 (sum);
}

// (Vectors built with loadu/storeu: GCC 12's _mm512_set1_ps and _mm512_reduce_add_ps trip -Wuninitialized.)
__attribute__ ((target ("avx512f"), noinline)) float chainsAvx512 (long iterations, float seed)
{
    float lanes[16];
    __m512 acc[kChains];
    for (int c = 0; c < kChains; ++c)
    {
        for (auto& lane : lanes)
            lane = seed + static_cast<float> (c);
        acc[c] = _mm512_loadu_ps (lanes);
    }
    for (auto& lane : lanes)
        lane = 0.999999f;
    const auto m = _mm512_loadu_ps (lanes);
    for (auto& lane : lanes)
        lane = 1e-6f;
    const auto a = _mm512_loadu_ps (lanes);
    for (long i = 0; i < iterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm512_fmadd_ps (acc[c], m, a);
    float sum = 0.0f;
    for (int c = 0; c < kChains; ++c)
    {
        _mm512_storeu_ps (lanes, acc[c]);
        for (const auto lane : lanes)
            sum += lane;
    }
    return sum;
}

volatile float sink = 0.0f;

/** Best GFLOP/s of `repetitions` runs; flopsPerIteration = chains x lanes x 2. */
template <typename Kernel>
double peakGflops (Kernel kernel, double flopsPerIteration, int repetitions = 15)
{
    double best = 0.0;
    for (int r = 0; r < repetitions; ++r)
    {
        const auto start = Clock::now();
        sink = sink + kernel (kIterations, 1.0f + static_cast<float> (r));
        const auto seconds = std::chrono::duration<double> (Clock::now() - start).count();
        const auto gflops = flopsPerIteration * static_cast<double> (kIterations) / seconds * 1e-9;
        best = gflops > best ? gflops : best;
    }
    return best;
}

} // namespace

int main()
{
    __builtin_cpu_init();
    std::printf ("{\"sse2\": %.2f", peakGflops (chainsSse2, kChains * 4 * 2.0));
    if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
        std::printf (", \"avx2_fma\": %.2f", peakGflops (chainsAvx2, kChains * 8 * 2.0));
    if (__builtin_cpu_supports ("avx512f"))
        std::printf (", \"avx512f\": %.2f", peakGflops (chainsAvx512, kChains * 16 * 2.0));
    std::printf ("}\n");
    return 0;
}
