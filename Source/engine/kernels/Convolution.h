// The conv op: 1-d and 2-d convolution (stride, padding, dilation, groups) as a matrix product per
// group, in one of six strategies chosen at load (Conv::Strategy). Private to the kernels: the op
// itself (its checks, the choice of a strategy, the fusions, run()'s dispatch) is in
// Convolution.cpp, and each strategy's planning, running and cost in a file of its own:
// ConvolutionColumns.cpp (direct, im2col, packedColumns), ConvolutionShifted.cpp (shiftedPlane),
// ConvolutionWinograd.cpp (winograd), ConvolutionPositionRows.cpp (positionRows). They share one
// class, declared here, because the strategies read and refine one plan: the constructor's
// geometry and buffers, which a later fusion may change again.
#pragma once

#include "engine/Op.h"
#include "engine/file/AlignedBuffer.h"
#include "engine/file/Work.h"
#include "engine/kernels/Gemm.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sonotype::engine::kernels
{

class Conv final : public Op
{
public:
    /** How run() lays the input out for the product; chosen once, at load. */
    enum class Strategy
    {
        direct,        // 1x1, stride 1, no padding: the input is the product's columns as it is
        im2col,        // the columns written out whole (no packing path, or weights computed by the graph)
        packedColumns, // the columns written straight into the product's packed layout, a chunk at a time
        shiftedPlane,  // stride 1: one zero-padded copy of the input, the product reads each tap at an offset
        winograd,      // 3x3, stride 1: Winograd F(2x2, 3x3) or F(4x2, 3x3), 16 or 24 products of [cout, cin] by [cin, tiles]
        positionRows,  // 1-d, 1-wide: a linear layer over the positions, [positions, cin] (the input read
                       // transposed) by the weights' transpose, written as [batch, positions, cout] where
                       // a permute after it was absorbed, else transposed into the output (fewer padded
                       // products where the positions are few: rowsTransposed_)
    };

    explicit Conv (const OpArgs& args);

    bool foldScaleShift (const std::vector<float>& scale, const std::vector<float>& shift, LoadBudget& budget) override;
    bool writeOutputStrided (const std::vector<int64_t>& strides, LoadBudget& budget) override;
    bool fuseRelu() noexcept override;
    bool fuseMaxPool (const MaxPoolTiling& pooling) noexcept override;

    std::size_t scratchFloats() const noexcept override;
    Work work() const noexcept override { return work_; }
    double multiplyAdds() const noexcept override;

    void run (const float* const* in, float* const* out, float* scratch) const noexcept override;

private:
    // Winograd pays where both channel counts are at least this: below it the transforms cost
    // more than the multiplies they save (the built-in model's 1 -> 16 stem with its pooling
    // took 0.096 ms by Winograd against 0.064 ms direct, AMD EPYC, AVX-512 path).
    static constexpr int64_t kWinogradMinChannels = 8;

    bool pooled() const noexcept { return pooling_.windowH * pooling_.windowW > 1; }

    /** size rounded up to a multiple of step, as a double: what a product pads its rows or columns to. */
    static double paddedTo (int64_t size, int64_t step) noexcept { return static_cast<double> ((size + step - 1) / step * step); }

    // The constructor's steps (Convolution.cpp), in this order.
    int readGeometry (const OpArgs& args);
    void checkOutputAndBias (const OpArgs& args, int numSpatial);
    void planStrategy (const OpArgs& args, int numSpatial);
    static int64_t outputSize (int64_t in, int64_t pad, int64_t dilation, int64_t kernel, int64_t stride);
    void packWeights (LoadBudget& budget);
    Work workPerGroup (int64_t patch, int64_t spatialOut) const noexcept;

    // direct, im2col and packedColumns (ConvolutionColumns.cpp).
    void runColumns (const float* x, float* y, const GemmOperand& weights, const float* bias, float* scratch) const noexcept;
    void packColumns (const float* x, int64_t channels, int64_t j0, int64_t count, float* out) const noexcept;
    void im2col (const float* x, int64_t channels, float* col) const noexcept;
    Work workColumns (int64_t patch, int64_t spatialOut) const noexcept;

    // shiftedPlane (ConvolutionShifted.cpp).
    void planShiftedPlane (const OpArgs& args, int64_t patch);
    void runShifted (const float* x, float* y, const GemmOperand& weights, const float* bias, float* scratch) const noexcept;
    Work workShifted (int64_t patch) const noexcept;

    // winograd (ConvolutionWinograd.cpp).
    void planWinograd();
    void packWinogradWeights (LoadBudget& budget);
    void runWinograd (const float* x, float* y, int64_t g, const float* bias, float* scratch) const noexcept;
    Work workWinograd (int64_t spatialOut) const noexcept;

    // positionRows (ConvolutionPositionRows.cpp).
    void preferPositionRows();
    void runPositionRows (const float* x, float* y, const float* weights, const float* bias, float* scratch) const noexcept;
    void transposeRows (const float* rows, float* y) const noexcept;
    Work workPositionRows (int64_t spatialOut) const noexcept;

    Strategy strategy_ = Strategy::im2col;
    bool batched_ = true, hasBias_ = false, relu_ = false;
    const float *weightData_ = nullptr, *biasData_ = nullptr; // stored (or folded) values, known at load
    AlignedBuffer ownedWeights_, ownedBias_;                  // after a fold
    int64_t groups_ = 1, batches_ = 1, inChannels_ = 0, outChannels_ = 0;
    int64_t inH_ = 1, inW_ = 1, kH_ = 1, kW_ = 1, strideH_ = 1, strideW_ = 1, padH_ = 0, padW_ = 0, dilH_ = 1, dilW_ = 1;
    int64_t outH_ = 1, outW_ = 1;
    std::size_t colFloats_ = 0;
    int64_t panelColumns_ = 0, chunk_ = 0;
    int64_t paddedH_ = 0, paddedW_ = 0, shiftedColumns_ = 0; // the stride-1 path
    std::size_t paddedFloats_ = 0, chunkOutFloats_ = 0;
    std::vector<int64_t> tapOffsets_; // per (channel, ky, kx): its input's offset in the padded planes
    // Winograd: tiles, the split input's rows (splitRow_ floats of even columns, as many odd),
    // the tiles of a chunk, each input channel's offset in a chunk's transformed inputs.
    // tileRows_: a tile's output rows (2 or 4), elements_: its transformed elements (16 or 24).
    int64_t tileRows_ = 2, elements_ = 16;
    int64_t tilesH_ = 0, tilesW_ = 0, splitRow_ = 0, splitLength_ = 0, winogradChunk_ = 0, transformedStride_ = 0, productStride_ = 0;
    // A max pooling fused into the output pass (none: windows of 1, the output's own size).
    MaxPoolTiling pooling_;
    std::size_t splitFloats_ = 0, transformedFloats_ = 0, productFloats_ = 0;
    std::vector<int64_t> channelOffsets_;
    Work work_;
    GemmPlan plan_, rowsPlan_;    // rowsPlan_: the positionRows strategy's product
    bool rowsTransposed_ = false; // positionRows: its [positions, cout] rows transposed into the output
    std::size_t rowsFloats_ = 0;  // ... through this much scratch
    std::vector<PackedOperand> packedWeights_;
};

} // namespace sonotype::engine::kernels
