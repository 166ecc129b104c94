#include "engine/CpuDispatch.h"

#include <cstdlib>

namespace sonotype::engine
{
namespace
{
#if defined(__aarch64__)
    constexpr const char* kBaselineDescription = "any arm64 CPU (NEON)";
#else
    constexpr const char* kBaselineDescription = "any x86-64 CPU (SSE2)";
#endif

    bool cpuRuns (Isa isa) noexcept
    {
#if defined(__x86_64__) || defined(_M_X64)
        __builtin_cpu_init();
        switch (isa)
        {
            case Isa::baseline:
                return true;
            case Isa::avx2:
                return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma");
            case Isa::avx512:
                return __builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512bw") && __builtin_cpu_supports ("avx512dq")
                       && __builtin_cpu_supports ("avx512vl") && __builtin_cpu_supports ("fma");
        }
        return false;
#else
        return isa == Isa::baseline;
#endif
    }

    struct CompiledPath
    {
        Isa isa;
        const char *name, *description;
        // Called only once the CPU is known to run the path: even building the table may use its instructions.
        const kernels::KernelTable& (*table)() noexcept;
        const WorkWeights* workWeights;
    };

    std::vector<CompiledPath> compiledPaths()
    {
#if defined(__aarch64__)
        std::vector<CompiledPath> paths { { Isa::baseline, "baseline", kBaselineDescription, &kernels::baselineKernels, &kNeonWorkWeights } };
#else
        std::vector<CompiledPath> paths { { Isa::baseline, "baseline", kBaselineDescription, &kernels::baselineKernels, &kBaselineWorkWeights } };
#endif
#if defined(__x86_64__) || defined(_M_X64)
        paths.push_back ({ Isa::avx2, "avx2", "AVX2 and FMA", &kernels::avx2Kernels, &kAvx2WorkWeights });
        paths.push_back ({ Isa::avx512, "avx512", "AVX-512 F, BW, DQ, VL", &kernels::avx512Kernels, &kAvx512WorkWeights });
#endif
        return paths;
    }

    struct Choice
    {
        KernelPath path;
        std::string note;
    };

    Choice choose()
    {
        const auto paths = supportedKernelPaths();
        Choice choice { paths.back(), {} };
        if (const char* wanted = std::getenv ("SONOTYPE_KERNELS"); wanted != nullptr && *wanted != '\0')
        {
            bool found = false;
            for (const auto& path : paths)
                if (std::string (wanted) == path.name)
                {
                    choice.path = path;
                    found = true;
                }
            if (! found)
            {
                choice.note = "SONOTYPE_KERNELS=" + std::string (wanted).substr (0, 32) + " ignored: this CPU runs";
                for (const auto& path : paths)
                    choice.note += std::string (" ") + path.name;
            }
        }
        return choice;
    }

    const Choice& chosen() noexcept
    {
        static const Choice choice = choose();
        return choice;
    }
} // namespace

std::vector<KernelPath> supportedKernelPaths()
{
    std::vector<KernelPath> supported;
    for (const auto& path : compiledPaths())
        if (cpuRuns (path.isa))
            supported.push_back ({ path.isa, path.name, path.description, &path.table(), path.workWeights });
    return supported;
}

const KernelPath& activeKernelPath() noexcept { return chosen().path; }

const std::string& kernelPathNote() noexcept { return chosen().note; }

} // namespace sonotype::engine
