// The AVX2 + FMA kernels (this file alone is compiled with -mavx2 -mfma).
#include "engine/kernels/vector/KernelTableFor.h"

#if ! defined(__AVX2__) || ! defined(__FMA__)
#error "KernelsAvx2.cpp must be compiled with AVX2 and FMA enabled (see CMakeLists.txt)"
#endif

namespace sonotype::engine::kernels
{

const KernelTable& avx2Kernels() noexcept
{
    // 6 x 16 tiles: 12 accumulators, 2 of B and a broadcast in AVX2's 16 registers.
    static const KernelTable table = vectorKernelTable<6>();
    return table;
}

} // namespace sonotype::engine::kernels
