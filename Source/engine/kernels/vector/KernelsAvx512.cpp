// The AVX-512 kernels (this file alone is compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl -mfma).
#include "engine/kernels/vector/KernelTableFor.h"

#if ! defined(__AVX512F__) || ! defined(__FMA__)
#error "KernelsAvx512.cpp must be compiled with AVX-512 and FMA enabled (see CMakeLists.txt)"
#endif

namespace sonotype::engine::kernels
{

const KernelTable& avx512Kernels() noexcept
{
    // 8 x 32 tiles: 16 accumulators (measured faster here than 12 or 14 rows: fewer padded rows for
    // the small m of audio models, and as fast on large products).
    static const KernelTable table = vectorKernelTable<8>();
    return table;
}

} // namespace sonotype::engine::kernels
