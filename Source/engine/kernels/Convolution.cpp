// The conv op itself (Convolution.h): its attributes and shapes checked, its strategy chosen at load
// (Conv::Strategy), the fusions it takes (a BatchNorm folded into its weights, a ReLU, a max
// pooling, an output written strided), and run()'s dispatch to the strategy's own file. The
// choice is made here, in one place, because it weighs the strategies against each other; what
// each strategy plans, runs and costs is in its own file.
#include "engine/kernels/Convolution.h"

#include "engine/file/AlignedBuffer.h"
#include "engine/file/CheckedArithmetic.h"
#include "engine/file/LoadBudget.h"
#include "engine/file/ModelError.h"
#include "engine/kernels/Gemm.h"
#include "engine/kernels/Kernels.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

namespace sonotype::engine::kernels
{

Conv::Conv (const OpArgs& args)
{
    const int numSpatial = readGeometry (args);
    checkOutputAndBias (args, numSpatial);
    planStrategy (args, numSpatial);
    // The weights, one [cout / groups, patch] matrix per group (or 16 per group for
    // Winograd, or their transpose for positionRows), are packed once, here.
    packWeights (args.budget());
    const int64_t patch = args.input (1).product (1, args.input (1).rank());
    work_ = static_cast<double> (batches_) * static_cast<double> (groups_) * workPerGroup (patch, outH_ * outW_);
    pooling_ = { 1, 1, outH_, outW_ };
}

/** The attributes and the input's and weight's shapes, checked: the convolution's geometry.
    Returns its spatial axes (1 or 2). */
int Conv::readGeometry (const OpArgs& args)
{
    const auto& x = args.input (0);
    const auto& w = args.input (1);
    const int numSpatial = w.rank() - 2;
    if (numSpatial != 1 && numSpatial != 2)
        throw ModelError ("conv supports 1-d and 2-d kernels, got weight " + w.toString());
    batched_ = x.rank() == numSpatial + 2;
    if (! batched_ && x.rank() != numSpatial + 1)
        throw ModelError ("conv input " + x.toString() + " does not match weight " + w.toString());
    const auto stride = args.integers ("stride"), padding = args.integers ("padding"), dilation = args.integers ("dilation");
    if (static_cast<int> (stride.size()) != numSpatial || static_cast<int> (padding.size()) != numSpatial
        || static_cast<int> (dilation.size()) != numSpatial)
        throw ModelError ("stride, padding and dilation need " + std::to_string (numSpatial) + " entries each");
    groups_ = args.integer ("groups", 1);
    const int offset = batched_ ? 1 : 0;
    batches_ = batched_ ? x[0] : 1;
    inChannels_ = x[offset];
    outChannels_ = w[0];
    if (inChannels_ < 1 || outChannels_ < 1)
        throw ModelError ("conv input " + x.toString() + " and weight " + w.toString() + " must have channels");
    if (groups_ < 1 || groups_ > inChannels_ || inChannels_ % groups_ != 0 || outChannels_ % groups_ != 0 || w[1] != inChannels_ / groups_)
        throw ModelError ("conv groups=" + std::to_string (groups_) + " do not fit input " + x.toString() + " and weight " + w.toString());
    // 1-d runs as 2-d with a height of 1.
    auto pick = [&] (const std::vector<int64_t>& values, int i, int64_t fallback) {
        return numSpatial == 2 ? values[static_cast<std::size_t> (i)] : (i == 0 ? fallback : values[0]);
    };
    inH_ = numSpatial == 2 ? x[offset + 1] : 1;
    inW_ = x[offset + numSpatial];
    kH_ = numSpatial == 2 ? w[2] : 1;
    kW_ = w[w.rank() - 1];
    strideH_ = pick (stride, 0, 1);
    strideW_ = pick (stride, 1, 1);
    padH_ = pick (padding, 0, 0);
    padW_ = pick (padding, 1, 0);
    dilH_ = pick (dilation, 0, 1);
    dilW_ = pick (dilation, 1, 1);
    if (strideH_ < 1 || strideW_ < 1 || dilH_ < 1 || dilW_ < 1 || padH_ < 0 || padW_ < 0)
        throw ModelError ("conv stride and dilation must be >= 1 and padding >= 0");
    if (kH_ < 1 || kW_ < 1)
        throw ModelError ("conv kernel " + w.toString() + " must not be empty");
    return numSpatial;
}

/** The output's size from the geometry, checked against the graph's, and the bias's shape; the
    weights and bias the file stores (null where the graph computes them). */
void Conv::checkOutputAndBias (const OpArgs& args, int numSpatial)
{
    const auto& x = args.input (0);
    const auto& w = args.input (1);
    outH_ = outputSize (inH_, padH_, dilH_, kH_, strideH_);
    outW_ = outputSize (inW_, padW_, dilW_, kW_, strideW_);
    if (outH_ < 1 || outW_ < 1)
        throw ModelError ("conv kernel " + w.toString() + " is larger than the padded input " + x.toString());
    Shape computed;
    if (batched_)
        computed.push (batches_);
    computed.push (outChannels_);
    if (numSpatial == 2)
        computed.push (outH_);
    computed.push (outW_);
    args.checkOutput (0, computed);
    if (args.hasInput (2) && args.input (2) != Shape { outChannels_ })
        throw ModelError ("conv bias " + args.input (2).toString() + " should be [" + std::to_string (outChannels_) + "]");
    hasBias_ = args.hasInput (2);
    weightData_ = args.constant (1);
    biasData_ = args.constant (2);
}

/** Which strategy run() takes, and the buffers it needs: direct or im2col by default; on a packing
    path with stored weights the columns packed a chunk at a time, and for stride 1 the shifted
    plane, or on it Winograd or the positions' rows where they pay. */
void Conv::planStrategy (const OpArgs& args, int numSpatial)
{
    const auto& w = args.input (1);
    const bool direct = kH_ == 1 && kW_ == 1 && strideH_ == 1 && strideW_ == 1 && padH_ == 0 && padW_ == 0;
    strategy_ = direct ? Strategy::direct : Strategy::im2col;
    // The weight's per-group patch (w[1] * kH * kW) and the output's spatial size are
    // products of checked shapes; their product, the column buffer, is checked here.
    const int64_t patch = w.product (1, w.rank());
    const int64_t spatialOut = outH_ * outW_;
    const int64_t columns = checkedMul (patch, spatialOut, "the conv column buffer");
    if (! direct && columns > kMaxElements)
        throw ModelError ("the conv column buffer would hold more than 2^40 floats");
    colFloats_ = direct ? 0 : AlignedBuffer::roundUp (static_cast<std::size_t> (columns));
    plan_ = GemmPlan (outChannels_ / groups_, spatialOut, patch);
    // On a packing path, the columns are written straight into the product's packed
    // layout, a chunk of output positions at a time (about 512 KiB, to stay in cache).
    panelColumns_ = plan_.kernels().packedColumns;
    if (panelColumns_ > 0 && args.constant (1) != nullptr)
    {
        const int64_t fit = (int64_t { 1 } << 17) / std::max<int64_t> (patch, 1) / panelColumns_ * panelColumns_;
        chunk_ = std::min (std::max<int64_t> (fit, panelColumns_), (spatialOut + panelColumns_ - 1) / panelColumns_ * panelColumns_);
        colFloats_ = AlignedBuffer::roundUp (static_cast<std::size_t> (checkedMul (chunk_, patch, "the conv column buffer")));
        strategy_ = Strategy::packedColumns;
        // Stride 1: the input is copied once into a zero-padded plane, where the inputs of
        // consecutive output positions are consecutive floats for every tap: the product
        // reads its columns straight from there, each tap (channel, ky, kx) at its own
        // offset, and nothing is packed. It covers the padded width (paddedW - outW extra
        // positions per output row, dropped when copied out). Not when the padding dwarfs
        // the input (a crafted padding and dilation would make every run fill a plane of
        // mostly zeros): then the columns are packed, as for other strides.
        const double inputPlane = static_cast<double> (inH_) * static_cast<double> (inW_);
        const double paddedPlane = (static_cast<double> (inH_) + 2.0 * static_cast<double> (padH_))
                                   * (static_cast<double> (inW_) + 2.0 * static_cast<double> (padW_));
        if (strideH_ == 1 && strideW_ == 1 && plan_.kernels().shiftedGemm != nullptr && paddedPlane <= 4.0 * inputPlane + 4096.0)
        {
            planShiftedPlane (args, patch);
            const int64_t cinG = inChannels_ / groups_;
            if (numSpatial == 2 && kH_ == 3 && kW_ == 3 && dilH_ == 1 && dilW_ == 1 && cinG >= kWinogradMinChannels
                && outChannels_ / groups_ >= kWinogradMinChannels && plan_.kernels().winogradInput != nullptr)
                planWinograd();
            else if (numSpatial == 1 && kW_ == 1 && padW_ == 0 && groups_ == 1 && batched_)
                preferPositionRows();
        }
    }
}

// (in + 2 pad - dilation (kernel - 1) - 1) / stride + 1, as torch, with every step checked.
int64_t Conv::outputSize (int64_t in, int64_t pad, int64_t dilation, int64_t kernel, int64_t stride)
{
    const char* what = "the conv output size";
    const int64_t padded = checkedAdd (in, checkedMul (2, pad, what), what);
    const int64_t span = checkedAdd (checkedMul (dilation, kernel - 1, what), 1, what);
    if (padded < span)
        return 0;
    return (padded - span) / stride + 1;
}

bool Conv::foldScaleShift (const std::vector<float>& scale, const std::vector<float>& shift, LoadBudget& budget)
{
    if (! batched_ || weightData_ == nullptr || (hasBias_ && biasData_ == nullptr) || relu_ || pooled()
        || static_cast<int64_t> (scale.size()) != outChannels_ || static_cast<int64_t> (shift.size()) != outChannels_)
        return false;
    const int64_t patch = inChannels_ / groups_ * kH_ * kW_;
    budget.claim (static_cast<std::uint64_t> (outChannels_ * (patch + 1)), sizeof (float), "a convolution's folded weights");
    AlignedBuffer weights (static_cast<std::size_t> (outChannels_ * patch)), bias (static_cast<std::size_t> (outChannels_));
    for (int64_t co = 0; co < outChannels_; ++co)
    {
        const auto c = static_cast<std::size_t> (co);
        for (int64_t p = 0; p < patch; ++p)
            weights.data()[co * patch + p] = weightData_[co * patch + p] * scale[c];
        bias.data()[co] = (hasBias_ ? biasData_[co] : 0.0f) * scale[c] + shift[c];
    }
    ownedWeights_ = std::move (weights);
    ownedBias_ = std::move (bias);
    weightData_ = ownedWeights_.data();
    biasData_ = ownedBias_.data();
    hasBias_ = true;
    packWeights (budget);
    return true;
}

/** A 1-d pointwise convolution whose output is read as [batch, positions, channels] (a
    projection to tokens, then a permute) writes it so: the product's rows are then the
    positions, its columns the output channels (no columns padded to the tile where the
    positions are few), bias and ReLU in its store, and the permute is not run. */
bool Conv::writeOutputStrided (const std::vector<int64_t>& strides, LoadBudget& budget)
{
    const bool pointwise = kH_ == 1 && kW_ == 1 && strideW_ == 1 && padW_ == 0 && inH_ == 1 && groups_ == 1;
    if (! pointwise || ! batched_ || weightData_ == nullptr || pooled() || strides.size() != 3 || strides[0] != outW_ * outChannels_
        || strides[1] != 1 || strides[2] != outChannels_)
        return false;
    rowsPlan_ = GemmPlan (outW_, outChannels_, inChannels_);
    strategy_ = Strategy::positionRows;
    rowsTransposed_ = false;
    colFloats_ = paddedFloats_ = chunkOutFloats_ = rowsFloats_ = 0;
    packWeights (budget);
    work_ = static_cast<double> (batches_) * workPerGroup (inChannels_, outW_);
    return true;
}

bool Conv::fuseRelu() noexcept
{
    relu_ = true;
    return true;
}

// Winograd's output pass takes a following max pooling whose windows are the tiles' halves
// or wholes (2x1, 1x2, 2x2): the pooling's own pass over the outputs and 1/2 or 3/4 of the
// writes go. The stride-1 path takes a 2x1 one: it computes each pair of output rows side
// by side and writes their max (no products' buffer, no copy out).
bool Conv::fuseMaxPool (const MaxPoolTiling& pooling) noexcept
{
    const auto fits = [] (int64_t pooledSize, int64_t size, int64_t window) {
        return pooledSize == size / window || pooledSize == (size + window - 1) / window; // floor or ceil mode
    };
    const bool shiftedRows = strategy_ == Strategy::shiftedPlane && pooling.windowH == 2 && pooling.windowW == 1;
    if ((strategy_ != Strategy::winograd && ! shiftedRows) || pooled() || ! fits (pooling.outH, outH_, pooling.windowH)
        || ! fits (pooling.outW, outW_, pooling.windowW))
        return false;
    if (shiftedRows)
        chunkOutFloats_ = 0;
    pooling_ = pooling;
    const int64_t patch = (inChannels_ / groups_) * kH_ * kW_;
    work_ = static_cast<double> (batches_) * static_cast<double> (groups_) * workPerGroup (patch, outH_ * outW_);
    return true;
}

std::size_t Conv::scratchFloats() const noexcept
{
    if (strategy_ == Strategy::winograd)
        return splitFloats_ + transformedFloats_ + productFloats_;
    if (strategy_ == Strategy::positionRows)
        return rowsFloats_ + rowsPlan_.scratchFloats();
    return colFloats_ + paddedFloats_ + chunkOutFloats_ + plan_.scratchFloats();
}

double Conv::multiplyAdds() const noexcept
{
    return static_cast<double> (batches_) * static_cast<double> (outChannels_) * static_cast<double> (outH_ * outW_)
           * static_cast<double> (inChannels_ / groups_) * static_cast<double> (kH_ * kW_);
}

void Conv::run (const float* const* in, float* const* out, float* scratch) const noexcept
{
    // Weights and bias folded at load (a BatchNorm absorbed) replace the graph's.
    const float* weightInput = ownedWeights_.size() > 0 ? ownedWeights_.data() : in[1];
    const float* biasInput = ownedBias_.size() > 0 ? ownedBias_.data() : (hasBias_ ? in[2] : nullptr);
    if (strategy_ == Strategy::positionRows)
    {
        runPositionRows (in[0], out[0], weightInput, biasInput, scratch);
        return;
    }
    const int64_t cinG = inChannels_ / groups_, coutG = outChannels_ / groups_;
    const int64_t patch = cinG * kH_ * kW_;
    const int64_t outPlane = pooling_.outH * pooling_.outW; // the output's spatial size unless a pooling was fused
    for (int64_t n = 0; n < batches_; ++n)
        for (int64_t g = 0; g < groups_; ++g)
        {
            const float* x = in[0] + (n * inChannels_ + g * cinG) * inH_ * inW_;
            float* y = out[0] + (n * outChannels_ + g * coutG) * outPlane;
            const float* weights = packedWeights_.empty() ? nullptr : packedWeights_[static_cast<std::size_t> (g)].data();
            const float* bias = biasInput != nullptr ? biasInput + g * coutG : nullptr;
            if (strategy_ == Strategy::winograd)
                runWinograd (x, y, g, bias, scratch);
            else if (strategy_ == Strategy::shiftedPlane)
                runShifted (x, y, { weightInput + g * coutG * patch, patch, false, weights }, bias, scratch);
            else
                runColumns (x, y, { weightInput + g * coutG * patch, patch, false, weights }, bias, scratch);
        }
}

/** The weights, in the layout the strategy multiplies by, packed for the active path (none
    on a path that does not pack, or when the graph computes the weights). */
void Conv::packWeights (LoadBudget& budget)
{
    packedWeights_.clear();
    if (weightData_ == nullptr)
        return;
    if (strategy_ == Strategy::winograd)
    {
        packWinogradWeights (budget);
        return;
    }
    const int64_t cinG = inChannels_ / groups_, coutG = outChannels_ / groups_;
    const int64_t patch = cinG * kH_ * kW_;
    if (strategy_ == Strategy::positionRows)
    {
        packedWeights_.push_back (PackedOperand::right (rowsPlan_, inChannels_, outChannels_, { weightData_, inChannels_, true, nullptr }, budget));
        return;
    }
    for (int64_t g = 0; g < groups_; ++g)
        packedWeights_.push_back (PackedOperand::left (plan_, coutG, patch, { weightData_ + g * coutG * patch, patch, false, nullptr }, budget));
}

/** What run() costs per batch and group on the strategy chosen at load. */
Work Conv::workPerGroup (int64_t patch, int64_t spatialOut) const noexcept
{
    if (strategy_ == Strategy::positionRows)
        return workPositionRows (spatialOut);
    if (strategy_ == Strategy::winograd)
        return workWinograd (spatialOut);
    if (strategy_ == Strategy::shiftedPlane)
        return workShifted (patch);
    return workColumns (patch, spatialOut);
}

std::unique_ptr<Op> makeConv (const OpArgs& args)
{
    return std::make_unique<Conv> (args);
}

} // namespace sonotype::engine::kernels
