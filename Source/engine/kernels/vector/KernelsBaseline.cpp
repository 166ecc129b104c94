// The baseline kernels: compiled with the target's default flags (SSE2 on x86-64). Matrix products
// run through Eigen's GEBP kernel (Gemm.cpp), which is well tuned for SSE; the row kernels are this
// folder's templates on 4-float registers.
#include "engine/kernels/Gemm.h"
#include "engine/kernels/vector/KernelTableFor.h"

namespace sonotype::engine::kernels
{

const KernelTable& baselineKernels() noexcept
{
    static const KernelTable table = [] {
        auto t = vectorKernelTable<6>();
        t.gemmScratchFloats = &eigenGemmScratchFloats;
        t.gemm = &eigenGemm;
        t.gemmColumnBias = &eigenGemmColumnBias;
        t.packedAFloats = [] (int64_t, int64_t) noexcept -> std::size_t { return 0; };
        t.packedBFloats = [] (int64_t, int64_t) noexcept -> std::size_t { return 0; };
        t.packA = nullptr;
        t.packB = nullptr;
        t.packedColumns = 0;
        t.tileRows = 4; // Eigen's GEBP: leftover rows and columns run on kernels down to one 4-float packet
        t.tileColumns = 4;
        t.shiftedGemm = nullptr;
        t.shiftedRowPairs = nullptr;
        return t;
    }();
    return table;
}

} // namespace sonotype::engine::kernels
