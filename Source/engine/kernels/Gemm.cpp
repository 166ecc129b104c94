#include "engine/kernels/Gemm.h"

#include "engine/AlignedBuffer.h"

// GCC 12 warns "'__Y' may be used uninitialized" inside its own AVX-512 intrinsics
// (_mm512_undefined_ps, GCC bug 105593), reached through Eigen's AVX-512 packet code under
// -march=native; the headers being system includes does not silence this middle-end warning, a
// pragma around the include does (only for code in these headers: ours keeps the warning).
#if defined(__GNUC__) && ! defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <Eigen/Core>
#if defined(__GNUC__) && ! defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace sonotype::engine
{
namespace
{
    using Index = Eigen::Index;

    // Eigen's blocking descriptor pointing at our preallocated packing buffers.
    class PlannedBlocking : public Eigen::internal::level3_blocking<float, float>
    {
    public:
        PlannedBlocking (Index mc, Index nc, Index kc, float* blockA, float* blockB) noexcept
        {
            this->m_mc = mc;
            this->m_nc = nc;
            this->m_kc = kc;
            this->m_blockA = blockA;
            this->m_blockB = blockB;
        }
    };

    template <int LhsOrder, int RhsOrder>
    void product (Index m, Index n, Index k, const float* a, Index lda, const float* b, Index ldb, float* c, Index ldc, float alpha,
                  PlannedBlocking& blocking) noexcept
    {
        Eigen::internal::general_matrix_matrix_product<Index, float, LhsOrder, false, float, RhsOrder, false, Eigen::RowMajor, 1>::run (
            m, n, k, a, lda, b, ldb, c, 1, ldc, alpha, blocking, nullptr);
    }
} // namespace

GemmPlan::GemmPlan (int64_t m, int64_t n, int64_t k) : m_ (m), n_ (n), k_ (k)
{
    if (m == 0 || n == 0 || k == 0)
        return; // run() does nothing
    // A row-major product runs as the transposed column-major one: Eigen's "rows" are our n.
    Index kc = k, mc = n, nc = m;
    Eigen::internal::computeProductBlockingSizes<float, float, 1> (kc, mc, nc, Index { 1 });
    kc_ = kc;
    mc_ = mc;
    nc_ = nc;
    sizeA_ = AlignedBuffer::roundUp (static_cast<std::size_t> (kc_ * mc_));
    scratchFloats_ = sizeA_ + AlignedBuffer::roundUp (static_cast<std::size_t> (kc_ * nc_));
}

void GemmPlan::run (const float* a, int64_t lda, bool transA, const float* b, int64_t ldb, bool transB, float* c, int64_t ldc, float alpha,
                    float* scratch) const noexcept
{
    if (m_ == 0 || n_ == 0 || k_ == 0)
        return;
    PlannedBlocking blocking (mc_, nc_, kc_, scratch, scratch + sizeA_);
    constexpr int R = Eigen::RowMajor, C = Eigen::ColMajor;
    if (! transA && ! transB)
        product<R, R> (m_, n_, k_, a, lda, b, ldb, c, ldc, alpha, blocking);
    else if (! transA && transB)
        product<R, C> (m_, n_, k_, a, lda, b, ldb, c, ldc, alpha, blocking);
    else if (transA && ! transB)
        product<C, R> (m_, n_, k_, a, lda, b, ldb, c, ldc, alpha, blocking);
    else
        product<C, C> (m_, n_, k_, a, lda, b, ldb, c, ldc, alpha, blocking);
}

} // namespace sonotype::engine
