#include "engine/kernels/Gemm.h"

#include "engine/CpuDispatch.h"
#include "engine/Op.h"
#include "engine/file/LoadBudget.h"

#include <algorithm>
#include <cmath>

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

    struct EigenBlocking
    {
        Index kc, mc, nc;
        std::size_t sizeA, total;
    };

    EigenBlocking eigenBlocking (int64_t m, int64_t n, int64_t k) noexcept
    {
        // A row-major product runs as the transposed column-major one: Eigen's "rows" are our n.
        Index kc = k, mc = n, nc = m;
        Eigen::internal::computeProductBlockingSizes<float, float, 1> (kc, mc, nc, Index { 1 });
        const auto sizeA = AlignedBuffer::roundUp (static_cast<std::size_t> (kc * mc));
        return { kc, mc, nc, sizeA, sizeA + AlignedBuffer::roundUp (static_cast<std::size_t> (kc * nc)) };
    }
} // namespace

namespace kernels
{
    std::size_t eigenGemmScratchFloats (int64_t m, int64_t n, int64_t k) noexcept
    {
        return m == 0 || n == 0 || k == 0 ? 0 : eigenBlocking (m, n, k).total;
    }

    void eigenGemm (int64_t m, int64_t n, int64_t k, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc, float alpha,
                    float* scratch) noexcept
    {
        // Blocking sizes depend only on the shape: the same as eigenGemmScratchFloats planned.
        const auto sizes = eigenBlocking (m, n, k);
        PlannedBlocking blocking (sizes.mc, sizes.nc, sizes.kc, scratch, scratch + sizes.sizeA);
        constexpr int R = Eigen::RowMajor, C = Eigen::ColMajor;
        if (! a.trans && ! b.trans)
            product<R, R> (m, n, k, a.data, a.ld, b.data, b.ld, c, ldc, alpha, blocking);
        else if (! a.trans && b.trans)
            product<R, C> (m, n, k, a.data, a.ld, b.data, b.ld, c, ldc, alpha, blocking);
        else if (a.trans && ! b.trans)
            product<C, R> (m, n, k, a.data, a.ld, b.data, b.ld, c, ldc, alpha, blocking);
        else
            product<C, C> (m, n, k, a.data, a.ld, b.data, b.ld, c, ldc, alpha, blocking);
    }

    void eigenGemmColumnBias (int64_t m, int64_t n, int64_t k, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc, const float* bias,
                              bool relu, const float* residual, int64_t ldr, float* scratch) noexcept
    {
        for (int64_t i = 0; i < m; ++i)
        {
            float* row = c + i * ldc;
            if (bias != nullptr)
                std::copy (bias, bias + n, row);
            else
                std::fill (row, row + n, 0.0f);
        }
        if (k != 0)
            eigenGemm (m, n, k, a, b, c, ldc, 1.0f, scratch);
        if (relu)
            for (int64_t i = 0; i < m; ++i)
                for (float* x = c + i * ldc; x != c + i * ldc + n; ++x)
                    *x = *x < 0.0f ? 0.0f : *x; // NaN and -0 pass, as the relu op
        if (residual != nullptr)
            for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j)
                    c[i * ldc + j] += residual[i * ldr + j];
    }
} // namespace kernels

GemmPlan::GemmPlan (int64_t m, int64_t n, int64_t k) : m_ (m), n_ (n), k_ (k), table_ (activeKernelPath().table)
{
    if (m != 0 && n != 0 && k != 0)
        scratchFloats_ = AlignedBuffer::roundUp (table_->gemmScratchFloats (m, n, k));
}

Work GemmPlan::work (bool aPacked, bool bPacked) const noexcept
{
    Work work;
    if (m_ == 0 || n_ == 0 || k_ == 0)
        return work;
    const auto m = static_cast<double> (m_), n = static_cast<double> (n_), k = static_cast<double> (k_);
    const double depthBlocks = std::ceil (k / 256.0);
    const auto padded = [] (int64_t size, int tile) { return static_cast<double> ((size + tile - 1) / tile * tile); };
    if (table_->packedColumns == 0)
    {
        // Eigen's GEBP: both operands packed every run; rows and columns left over from its tile
        // run on narrower kernels, down to one packet (the table's tile).
        work.multiplyAdds = padded (m_, table_->tileRows) * padded (n_, table_->tileColumns) * k;
        work.streamed = 2.0 * (m * k + k * n) + 2.0 * m * n * depthBlocks;
        work.calls = 1.0 + depthBlocks;
        return work;
    }
    work.multiplyAdds = padded (m_, table_->tileRows) * padded (n_, table_->tileColumns) * k;
    // Each operand not packed at load is packed per block: read once, written once; C is read and
    // written once per block of the depth.
    work.streamed = (aPacked ? 0.0 : 2.0 * padded (m_, table_->tileRows) * k) + (bPacked ? 0.0 : 2.0 * padded (n_, table_->tileColumns) * k)
                    + 2.0 * m * n * depthBlocks;
    work.calls = 1.0 + std::ceil (n / 1024.0) * depthBlocks;
    return work;
}

PackedOperand PackedOperand::left (const GemmPlan& plan, int64_t m, int64_t k, const kernels::GemmOperand& a, LoadBudget& budget)
{
    PackedOperand packed;
    const auto floats = plan.kernels().packedAFloats (m, k);
    if (floats == 0 || a.data == nullptr)
        return packed;
    budget.claim (floats, sizeof (float), "packed weights");
    packed.buffer_ = AlignedBuffer (floats);
    plan.kernels().packA (m, k, a, packed.buffer_.data());
    return packed;
}

PackedOperand PackedOperand::right (const GemmPlan& plan, int64_t k, int64_t n, const kernels::GemmOperand& b, LoadBudget& budget)
{
    PackedOperand packed;
    const auto floats = plan.kernels().packedBFloats (k, n);
    if (floats == 0 || b.data == nullptr)
        return packed;
    budget.claim (floats, sizeof (float), "packed weights");
    packed.buffer_ = AlignedBuffer (floats);
    plan.kernels().packB (k, n, b, packed.buffer_.data());
    return packed;
}

} // namespace sonotype::engine
