// The conv's positionRows strategy (Convolution.h): a 1-d pointwise convolution (a projection to
// tokens) run as a linear layer over the positions, [positions, cin] (the input read transposed)
// by the weights' transpose. Its rows are the output where a permute after it was absorbed
// (Conv::writeOutputStrided), else they are transposed into the output, where that costs less
// than the shifted plane's product padding the positions to the micro-kernel's columns.
#include "engine/kernels/Convolution.h"

#include "engine/CpuDispatch.h"
#include "engine/file/AlignedBuffer.h"
#include "engine/file/CheckedArithmetic.h"

#include <algorithm>

namespace sonotype::engine::kernels
{

/** A 1-d pointwise convolution (a projection to tokens) on the stride-1 path multiplies
    [cout, cin] by [cin, positions], the positions padded to the micro-kernel's columns;
    where the positions are few (the built-in model's 51 on 16- or 32-float tiles) the
    product over the positions' rows pads less: it is taken where it costs less, its
    transpose included. */
void Conv::preferPositionRows()
{
    GemmPlan rows (outW_, outChannels_, inChannels_);
    if (rows.kernels().packB == nullptr)
        return;
    const auto& weights = *activeKernelPath().workWeights;
    const auto outputs = static_cast<double> (outChannels_) * static_cast<double> (outW_);
    Work transposed = rows.work (false, true);
    transposed.gatheredNear += 2.0 * outputs;
    const auto shifted = workPerGroup (inChannels_, outW_);
    if (weights.operations (transposed) >= weights.operations (shifted))
        return;
    rowsPlan_ = rows;
    strategy_ = Strategy::positionRows;
    rowsTransposed_ = true;
    rowsFloats_ = AlignedBuffer::roundUp (static_cast<std::size_t> (checkedMul (outW_, outChannels_, "the conv's rows")));
    colFloats_ = paddedFloats_ = chunkOutFloats_ = 0;
    tapOffsets_.clear();
}

/** Every batch item's product over the positions' rows, from the bias, with the ReLU in its
    store; written as the output, or through scratch and transposed into it. */
void Conv::runPositionRows (const float* x, float* y, const float* weights, const float* bias, float* scratch) const noexcept
{
    for (int64_t n = 0; n < batches_; ++n)
    {
        float* item = y + n * outW_ * outChannels_;
        float* rows = rowsTransposed_ ? scratch : item;
        rowsPlan_.runColumnBias ({ x + n * inChannels_ * inW_, inW_, true, nullptr }, { weights, inChannels_, true, packedWeights_[0].data() }, rows,
                                 outChannels_, bias, relu_, nullptr, 0, scratch + rowsFloats_);
        if (rowsTransposed_)
            transposeRows (rows, item);
    }
}

/** [positions, cout] rows into the output [cout, positions], in blocks that stay in cache. */
void Conv::transposeRows (const float* rows, float* y) const noexcept
{
    constexpr int64_t kBlock = 16;
    for (int64_t p0 = 0; p0 < outW_; p0 += kBlock)
        for (int64_t c0 = 0; c0 < outChannels_; c0 += kBlock)
        {
            const int64_t pEnd = std::min (p0 + kBlock, outW_), cEnd = std::min (c0 + kBlock, outChannels_);
            for (int64_t c = c0; c < cEnd; ++c)
                for (int64_t p = p0; p < pEnd; ++p)
                    y[c * outW_ + p] = rows[p * outChannels_ + c];
        }
}

/** What runPositionRows costs per batch item: the product over the positions' rows; transposed
    into the output (read and written). */
Work Conv::workPositionRows (int64_t spatialOut) const noexcept
{
    const int64_t coutG = outChannels_ / groups_;
    const auto outputs = static_cast<double> (coutG) * static_cast<double> (spatialOut);
    Work work = rowsPlan_.work (false, ! packedWeights_.empty() && packedWeights_[0].data() != nullptr);
    if (rowsTransposed_)
        work.gatheredNear += 2.0 * outputs;
    return work;
}

} // namespace sonotype::engine::kernels
