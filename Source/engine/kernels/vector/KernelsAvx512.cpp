// The AVX-512 kernels (this file alone is compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl -mfma).
#include "engine/kernels/vector/KernelTableFor.h"

#if ! defined(__AVX512F__) || ! defined(__FMA__)
#error "KernelsAvx512.cpp must be compiled with AVX-512 and FMA enabled (see CMakeLists.txt)"
#endif

namespace sonotype::engine::kernels
{

const KernelTable& avx512Kernels() noexcept
{
    // 12 x 32 tiles: 24 accumulators, 2 of B and a broadcast in AVX-512's 32 registers.
    static const KernelTable table = vectorKernelTable<12>();
    return table;
}

} // namespace sonotype::engine::kernels
