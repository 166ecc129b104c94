#include "engine/file/Work.h"

#include <initializer_list>

namespace sonotype::engine
{

Work& Work::operator+= (const Work& o) noexcept
{
    multiplyAdds += o.multiplyAdds;
    streamed += o.streamed;
    gatheredNear += o.gatheredNear;
    gatheredFar += o.gatheredFar;
    scalar += o.scalar;
    branches += o.branches;
    vectorMath += o.vectorMath;
    libm += o.libm;
    calls += o.calls;
    fftSteps += o.fftSteps;
    genericFftSteps += o.genericFftSteps;
    return *this;
}

Work operator* (double times, Work w) noexcept
{
    for (double* field : { &w.multiplyAdds, &w.streamed, &w.gatheredNear, &w.gatheredFar, &w.scalar, &w.branches, &w.vectorMath, &w.libm, &w.calls,
                           &w.fftSteps, &w.genericFftSteps })
        *field *= times;
    return w;
}

Work Work::gathered (double count, double tensorFloats) noexcept
{
    Work work;
    (tensorFloats * 4.0 <= double (1 << 20) ? work.gatheredNear : work.gatheredFar) = count;
    return work;
}

double WorkWeights::operations (const Work& w, double footprintFloats) const noexcept
{
    const double bytes = 4.0 * footprintFloats;
    const double streamedWeight = streamed * (bytes <= 32.0 * 1024.0 ? 0.4 : bytes > 32.0 * 1024.0 * 1024.0 ? 1.5
                                                                                                            : 1.0);
    return w.multiplyAdds + w.streamed * streamedWeight + w.gatheredNear * gatheredNear + w.gatheredFar * gatheredFar + w.scalar * scalar
           + w.branches * branches + w.vectorMath * vectorMath + w.libm * libm + w.calls * calls + w.fftSteps * fftSteps
           + w.genericFftSteps * genericFftSteps;
}

namespace
{
    /** Weights from the time of each kind of step in nanoseconds and the time of one multiply-add
        of the path's product. */
    constexpr WorkWeights fromNanoseconds (double multiplyAdd, double streamed, double vectorMath)
    {
        return { streamed / multiplyAdd, 0.25 / multiplyAdd, 2.0 / multiplyAdd, 0.3 / multiplyAdd, 4.5 / multiplyAdd, vectorMath / multiplyAdd,
                 3.4 / multiplyAdd, 3.0 / multiplyAdd, 0.37 / multiplyAdd, 1.0 / multiplyAdd };
    }
} // namespace

// Measured on an AMD EPYC (Zen 4, 2 cores of a VM; Tests/engine/WorkEstimateTests.cpp): ns per
// multiply-add of a packed 512^3 product 0.0526 (baseline, Eigen), 0.018 to 0.0215 (AVX2),
// 0.0179 (AVX-512, which Zen 4 runs as two 256-bit halves). The AVX-512 weights take 0.0143 ns,
// between that and the Intel Xeon of docs/BENCHMARKS.md (233 GFLOP/s peak, its products at about
// 75%: 0.0114 ns), whose scalar and memory steps cost about what Zen 4's do: so that the estimate
// holds within a factor of 4 on both.
const WorkWeights kBaselineWorkWeights = fromNanoseconds (0.0526, 0.07, 1.0);
const WorkWeights kAvx2WorkWeights = fromNanoseconds (0.0200, 0.07, 0.45);
const WorkWeights kAvx512WorkWeights = fromNanoseconds (0.0143, 0.07, 0.25);
// Not measured (no arm64 machine here; qemu's timing means nothing): the x86 baseline's, whose
// product is also 4 floats wide.
const WorkWeights kNeonWorkWeights = kBaselineWorkWeights;

} // namespace sonotype::engine
