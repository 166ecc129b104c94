// What one Session::run() costs, counted at load by kind of inner step and weighted by what each
// kind costs on the active kernel path, in "operations": the time of one multiply-add of that
// path's packed matrix product. The work budget (LoadLimits::maxOpsPerRun) is in these units, so
// a crafted file cannot pass it with steps that are cheap to count and slow to run (zero fills of
// padded planes, generic FFT butterflies, rows of one element, C library calls).
//
// The weights below were measured on each kernel path (Tests/engine/WorkEstimateTests.cpp prints
// the table they were set from: SONOTYPE_WORK_REPORT=1); that test keeps every op's estimate within
// a factor of 4 of its measured time across sizes and worst shapes. docs/ENGINE.md, "Work budget".
#pragma once

#include <cstdint>

namespace sonotype::engine
{

/** Steps of one run, by kind. Ops count theirs at load (Op::work()); the model adds one pass over
    every operand and one call per node. */
struct Work
{
    double multiplyAdds = 0;    // of the packed matrix products, their micro-kernels' padding included
    double streamed = 0;        // floats read or written in order: copies, fills, vectorised passes
    double gatheredNear = 0;    // floats read or written at strided or indexed addresses of a tensor of up to 1 MiB
    double gatheredFar = 0;     // the same in a larger tensor: a cache (and often TLB) miss each
    double scalar = 0;          // steps of scalar loops: a dependent add in double, a compare, a non-vectorised float op
    double branches = 0;        // data-dependent branches the CPU mispredicts about half the time (sorting, signs)
    double vectorMath = 0;      // elements through the vector kernels' exp, log, tanh, sigmoid, GELU
    double libm = 0;            // calls of the C library's exp, log, sin, pow, ... on one element
    double calls = 0;           // kernel calls and short loops whose fixed cost counts: per row, per batch, per memcpy
    double fftSteps = 0;        // complex multiply-adds of the radix-2, 3, 4 and 5 butterflies
    double genericFftSteps = 0; // complex multiply-adds of the generic butterfly (a dependent chain, scattered twiddles)

    Work& operator+= (const Work& other) noexcept;
    friend Work operator+ (Work a, const Work& b) noexcept { return a += b; }
    friend Work operator* (double times, Work work) noexcept;

    /** Reads or writes of `count` floats at scattered addresses of a tensor of `tensorFloats`. */
    static Work gathered (double count, double tensorFloats) noexcept;
};

/** What one step of each kind costs on a kernel path, in multiply-adds of its packed product. */
struct WorkWeights
{
    double streamed, gatheredNear, gatheredFar, scalar, branches, vectorMath, libm, calls, fftSteps, genericFftSteps;

    /** `work` in operations: its multiply-adds plus its other steps times their weights. Streaming
        is cheaper when the node's operands (`footprintFloats`) fit a core's L1 data cache (32 KiB:
        0.4 of the weight) and dearer when they exceed a typical L3 (32 MiB: 1.5 times). */
    double operations (const Work& work, double footprintFloats = 1 << 20) const noexcept;
};

/** The weights measured on each path (engine/CpuDispatch.h picks one with the kernels). */
extern const WorkWeights kBaselineWorkWeights, kAvx2WorkWeights, kAvx512WorkWeights, kNeonWorkWeights;

} // namespace sonotype::engine
