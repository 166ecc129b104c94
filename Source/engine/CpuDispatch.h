// Runtime CPU dispatch: one binary carries the vector kernels for several instruction sets and
// picks, once, the best one this CPU runs (docs/ENGINE.md, "Kernels and CPU dispatch").
#pragma once

#include "engine/file/Work.h"
#include "engine/kernels/vector/KernelTable.h"

#include <string>
#include <vector>

namespace sonotype::engine
{

enum class Isa
{
    baseline, // x86-64 SSE2 (every x86-64 CPU), or the compiler's baseline elsewhere
    avx2,     // AVX2 + FMA (Haswell, Zen and later)
    avx512,   // AVX-512 F/BW/DQ/VL (Skylake-SP, Ice Lake, Sapphire Rapids, Zen 4 and later)
};

struct KernelPath
{
    Isa isa;
    const char* name;        // "baseline", "avx2", "avx512": the values SONOTYPE_KERNELS takes
    const char* description; // what it needs of the CPU
    const kernels::KernelTable* table;
    const WorkWeights* workWeights; // what each kind of step costs on this path (engine/file/Work.h)
};

/** Every path compiled into this binary that this CPU can run, best last. */
std::vector<KernelPath> supportedKernelPaths();

/** The path the engine uses: the best supported one, or the one the environment variable
    SONOTYPE_KERNELS names (baseline, avx2, avx512) when this CPU runs it. Chosen on first use and
    fixed for the life of the process; an unknown or unsupported name is ignored, and
    kernelPathNote() says why. */
const KernelPath& activeKernelPath() noexcept;

/** Empty, or why SONOTYPE_KERNELS was not followed. */
const std::string& kernelPathNote() noexcept;

} // namespace sonotype::engine
