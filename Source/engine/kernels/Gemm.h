// Matrix products through Eigen's GEBP kernel with blocking buffers planned at load time, so a
// product never allocates (Eigen's own product expressions heap-allocate their packing buffers
// beyond EIGEN_STACK_ALLOCATION_LIMIT).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sonotype::engine
{

class GemmPlan
{
public:
    GemmPlan() = default;
    /** Plans C[m, n] += alpha * A[m, k] * B[k, n]. */
    GemmPlan (int64_t m, int64_t n, int64_t k);

    std::size_t scratchFloats() const noexcept { return scratchFloats_; }

    /** A is row-major [m, k] with row stride lda, or, with transA, row-major [k, m]; likewise B.
        C is row-major [m, n] with row stride ldc and is accumulated into. */
    void run (const float* a, int64_t lda, bool transA, const float* b, int64_t ldb, bool transB, float* c, int64_t ldc,
              float alpha, float* scratch) const noexcept;

private:
    int64_t m_ = 0, n_ = 0, k_ = 0;
    int64_t kc_ = 0, mc_ = 0, nc_ = 0;
    std::size_t sizeA_ = 0, scratchFloats_ = 0;
};

} // namespace sonotype::engine
