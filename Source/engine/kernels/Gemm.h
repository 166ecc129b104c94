// Matrix products on the kernel path chosen at load (engine/CpuDispatch.h), with all scratch
// planned at load so that a product never allocates; constant operands packed once at load.
#pragma once

#include "engine/file/AlignedBuffer.h"
#include "engine/file/Work.h"
#include "engine/kernels/vector/KernelTable.h"

#include <cstddef>
#include <cstdint>

namespace sonotype::engine
{
class LoadBudget;

class GemmPlan
{
public:
    GemmPlan() = default;
    /** Plans C[m, n] += alpha * A[m, k] * B[k, n] on the active kernel path. */
    GemmPlan (int64_t m, int64_t n, int64_t k);

    std::size_t scratchFloats() const noexcept { return scratchFloats_; }
    /** What one run() costs: the multiply-adds of m and n rounded up to the micro-kernel's tile,
        the packing of each operand not packed at load, and the call. */
    Work work (bool aPacked, bool bPacked) const noexcept;
    const kernels::KernelTable& kernels() const noexcept { return *table_; }

    /** C is row-major [m, n] with row stride ldc and is accumulated into. */
    void run (const kernels::GemmOperand& a, const kernels::GemmOperand& b, float* c, int64_t ldc, float alpha, float* scratch) const noexcept
    {
        if (m_ != 0 && n_ != 0 && k_ != 0)
            table_->gemm (m_, n_, k_, a, b, c, ldc, alpha, scratch);
    }

    /** C = bias[column] (zero if null) + A * B, relu'd if asked, plus `residual` (row stride ldr;
        none if null): C is only written. */
    void runColumnBias (const kernels::GemmOperand& a, const kernels::GemmOperand& b, float* c, int64_t ldc, const float* bias, bool relu,
                        const float* residual, int64_t ldr, float* scratch) const noexcept
    {
        if (m_ != 0 && n_ != 0)
            table_->gemmColumnBias (m_, n_, k_, a, b, c, ldc, bias, relu, residual, ldr, scratch);
    }

    /** A is row-major [m, k] with row stride lda, or, with transA, row-major [k, m]; likewise B. */
    void run (const float* a, int64_t lda, bool transA, const float* b, int64_t ldb, bool transB, float* c, int64_t ldc, float alpha,
              float* scratch) const noexcept
    {
        run ({ a, lda, transA, nullptr }, { b, ldb, transB, nullptr }, c, ldc, alpha, scratch);
    }

private:
    int64_t m_ = 0, n_ = 0, k_ = 0;
    std::size_t scratchFloats_ = 0;
    const kernels::KernelTable* table_ = nullptr;
};

/** A constant operand of a product (weights), packed once at load in the layout the active path's
    micro-kernel reads; empty on a path that does not pack, and the product reads the original. */
class PackedOperand
{
public:
    PackedOperand() = default;
    /** Packs op(A) [m, k] (left) or op(B) [k, n] (right), claiming its memory from the load budget. */
    static PackedOperand left (const GemmPlan& plan, int64_t m, int64_t k, const kernels::GemmOperand& a, LoadBudget& budget);
    static PackedOperand right (const GemmPlan& plan, int64_t k, int64_t n, const kernels::GemmOperand& b, LoadBudget& budget);

    const float* data() const noexcept { return buffer_.size() == 0 ? nullptr : buffer_.data(); }

private:
    AlignedBuffer buffer_;
};

namespace kernels
{
    // The baseline path's product: Eigen's GEBP kernel with planned blocking buffers.
    std::size_t eigenGemmScratchFloats (int64_t m, int64_t n, int64_t k) noexcept;
    void eigenGemm (int64_t m, int64_t n, int64_t k, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc, float alpha,
                    float* scratch) noexcept;
    void eigenGemmColumnBias (int64_t m, int64_t n, int64_t k, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc, const float* bias,
                              bool relu, const float* residual, int64_t ldr, float* scratch) noexcept;
} // namespace kernels

} // namespace sonotype::engine
