// The vector kernels of one instruction set, as a table of functions: the engine's ops call
// through the table of the path chosen at load (engine/CpuDispatch.h). Each table is built in its
// own translation unit compiled for its instruction set (Kernels*.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sonotype::engine::kernels
{

/** One operand of a matrix product: row-major with row stride `ld` (of op(X) when `trans` is
    false, of X when true), and optionally the same matrix packed once at load (packA/packB). */
struct GemmOperand
{
    const float* data = nullptr;
    int64_t ld = 0;
    bool trans = false;
    const float* packed = nullptr;
};

struct KernelTable
{
    /** Floats of scratch gemm() needs for an [m, k] x [k, n] product. */
    std::size_t (*gemmScratchFloats) (int64_t m, int64_t n, int64_t k) noexcept;
    /** C[m, n] (row stride ldc) += alpha * A[m, k] * B[k, n]. `scratch` must be 64-byte aligned
        (AlignedBuffer, as the session's arena is): Eigen's packing on the baseline path stores
        aligned. */
    void (*gemm) (int64_t m, int64_t n, int64_t k, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc, float alpha,
                  float* scratch) noexcept;
    /** C[m, n] (row stride ldc) = bias[j] (zero if null) + A[m, k] * B[k, n], relu'd if asked,
        plus residual[m, n] (row stride ldr; none if null): a linear layer's product with its
        epilogue (and a residual connection's add after it), C only written. Same scratch as gemm. */
    void (*gemmColumnBias) (int64_t m, int64_t n, int64_t k, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc, const float* bias,
                            bool relu, const float* residual, int64_t ldr, float* scratch) noexcept;
    /** Floats a packed left (A) or right (B) operand takes; 0 when this path does not pack. */
    std::size_t (*packedAFloats) (int64_t m, int64_t k) noexcept;
    std::size_t (*packedBFloats) (int64_t k, int64_t n) noexcept;
    /** Columns of one panel of a packed B: packed B [k, n] is ceil(n / packedColumns) panels, each
        k rows of packedColumns floats (zero-padded); 0 when this path does not pack. */
    int packedColumns;
    /** The micro-kernel's tile of C: a product computes m and n rounded up to these (the work
        budget counts the padding). */
    int tileRows, tileColumns;
    /** C [m, n] (row stride ldc) = bias[m] (none if null) + A [m, k] packed by packA, times B with
        B [p, j] = input[offsets[p] + j]: a stride-1 convolution's implicit im2col over a padded
        input (the caller keeps every such index inside input). Null where the path does not pack. */
    void (*shiftedGemm) (int64_t m, int64_t n, int64_t k, const float* packedA, const float* input, const int64_t* offsets, const float* bias,
                         float* c, int64_t ldc) noexcept;
    /** C [m, n] = max(bias[m] + A B0, bias[m] + A B1) (NaN winning; relu'd if asked), A packed by
        packA, B0 [p, j] = input[offsets[p] + j], B1 [p, j] = input[offsets[p] + pairStride + j]:
        the same convolution's two output rows max-pooled into one (a 2x1 max pooling after it).
        Null where the path does not pack. */
    void (*shiftedRowPairs) (int64_t m, int64_t n, int64_t k, const float* packedA, const float* input, const int64_t* offsets, int64_t pairStride,
                             const float* bias, bool relu, float* c, int64_t ldc) noexcept;
    /** The transforms of a Winograd convolution, tiles of tileRows (2 or 4) output rows by 2
        columns: F(2x2, 3x3) or F(4x2, 3x3) (vector/WinogradKernels.h says what each reads and
        writes): the input's rows zero-padded and split into their even and odd columns, every
        channel in one call; the input transform of consecutive tiles for every channel; the output
        transform (bias, relu and a following 2x1, 1x2 or 2x2 max pooling included) back into
        output rows. */
    void (*winogradSplit) (const float* x, int64_t channels, int64_t inH, int64_t inW, int64_t padH, int64_t padW, int tileRows, int64_t rows,
                           int64_t pairs, float* split, int64_t length, int64_t channelStride) noexcept;
    void (*winogradInput) (int tileRows, const float* split, int64_t channels, int64_t channelStride, int64_t rowLength, int64_t tileRowStride,
                           int64_t count, float* out, int64_t xiStride, int64_t channelOut) noexcept;
    void (*winogradOutput) (int tileRows, const float* m, int64_t xiStride, int64_t channels, int64_t channelIn, int64_t count, const float* bias,
                            bool relu, float* y, int64_t channelOut, int64_t rowStride, int64_t rows, int64_t width, int poolH, int poolW) noexcept;
    /** Packs A [m, k] (or B [k, n]) for gemm's `packed`: done once at load for constant operands. */
    void (*packA) (int64_t m, int64_t k, const GemmOperand& a, float* packed) noexcept;
    void (*packB) (int64_t k, int64_t n, const GemmOperand& b, float* packed) noexcept;

    /** softmax over each of `rows` rows of `length` floats (row stride `stride`), in place; a row
        whose maximum is -inf becomes zeros. */
    void (*softmaxRows) (float* x, int64_t rows, int64_t length, int64_t stride) noexcept;
    /** Floats of scratch attention() needs for s keys of dimension d. */
    std::size_t (*attentionScratchFloats) (int64_t s, int64_t d) noexcept;
    /** One batch/head of softmax(scale * q k^T + mask) v: q [l, d], k [s, d], v [s, dv] -> out
        [l, dv], each with its rows ld apart (ldq, ldk, ldv, ldo); mask (may be null) element (i, j)
        at i * maskRow + j * maskColumn. A row whose keys are all masked gives zeros. */
    void (*attention) (const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v, int64_t ldv, float* out, int64_t ldo, int64_t l,
                       int64_t s, int64_t d, int64_t dv, float scale, const float* mask, int64_t maskRow, int64_t maskColumn, float* scratch) noexcept;
    /** LayerNorm of each row of `size` floats; weight and bias may be null. */
    void (*layerNormRows) (const float* x, float* y, int64_t rows, int64_t size, const float* weight, const float* bias, float eps) noexcept;
    /** to[i] = from[i], or relu(from[i]) (NaN stays NaN), for i < count. */
    void (*copy) (const float* from, float* to, int64_t count, bool relu) noexcept;
    /** row[i] = max(row[i], tap[i * stride]) for i < count, NaN winning (as torch's max pooling). */
    void (*maxInto) (const float* tap, int64_t stride, float* row, int64_t count) noexcept;
    /** row[i] += tap[i * stride] for i < count (average pooling's sum, in the taps' order). */
    void (*addInto) (const float* tap, int64_t stride, float* row, int64_t count) noexcept;
    /** y = gelu(x) with erf (PyTorch's default) or the tanh approximation. */
    void (*geluErf) (const float* x, float* y, int64_t count) noexcept;
    void (*geluTanh) (const float* x, float* y, int64_t count) noexcept;
    void (*exp) (const float* x, float* y, int64_t count) noexcept;
    /** Natural and base-10 logarithm (vector/VectorMath.h: about 1 ulp; C's log at 0, below 0, inf, NaN). */
    void (*log) (const float* x, float* y, int64_t count) noexcept;
    void (*log10) (const float* x, float* y, int64_t count) noexcept;
    void (*sigmoid) (const float* x, float* y, int64_t count) noexcept;
    void (*silu) (const float* x, float* y, int64_t count) noexcept;
    void (*tanh) (const float* x, float* y, int64_t count) noexcept;
    /** One LSTM step over `size` hidden units: gates [i f g o] (4 * size, pre-activation), c
        updated in place, hidden = sigmoid(o) * tanh(c) (vector/RecurrentKernels.h). */
    void (*lstmCell) (const float* gates, float* c, float* hidden, int64_t size) noexcept;
    /** One GRU step: gi, gh [r z n] (3 * size each), previous hidden (null: zeros) -> hidden. */
    void (*gruCell) (const float* gi, const float* gh, const float* previous, float* hidden, int64_t size) noexcept;
    /** c[0, n) += a[0, k) * B, B [k, n] packed by packB: one row times packed weights (a
        recurrent step of one sequence). Only where the path packs. */
    void (*packedRowTimes) (int64_t n, int64_t k, const float* a, const float* packedB, float* c) noexcept;
    /** c[j] += sum over p < k of a[p] * w[j * ldw + p] for j < n: one row times an unpacked
        weight [n, k] (the same step where the path does not pack). */
    void (*rowTimesRows) (int64_t n, int64_t k, const float* a, const float* w, int64_t ldw, float* c) noexcept;
};

const KernelTable& baselineKernels() noexcept;
const KernelTable& avx2Kernels() noexcept;
const KernelTable& avx512Kernels() noexcept;

} // namespace sonotype::engine::kernels
