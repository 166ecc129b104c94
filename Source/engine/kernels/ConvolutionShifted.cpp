// The conv's stride-1 strategy, shiftedPlane (Convolution.h): an implicit im2col. The input is
// copied once into a zero-padded plane, where the inputs of consecutive output positions are
// consecutive floats for every tap, and the product reads its columns in place there, each tap
// (channel, ky, kx) at its own offset: nothing is packed. It also takes a fused 2x1 max pooling,
// computing each pair of output rows side by side. Winograd and the positions' rows start from
// this plan (Convolution.cpp chooses).
#include "engine/kernels/Convolution.h"

#include "engine/file/AlignedBuffer.h"
#include "engine/file/CheckedArithmetic.h"
#include "engine/file/ModelError.h"

#include <algorithm>
#include <cmath>

namespace sonotype::engine::kernels
{

/** The padded plane, the tap offsets and the output chunks. The product covers the padded width
    (paddedW - outW extra positions per output row, dropped when copied out). */
void Conv::planShiftedPlane (const OpArgs& args, int64_t patch)
{
    const char* what = "the conv's padded input";
    paddedH_ = checkedAdd (inH_, 2 * padH_, what);
    paddedW_ = checkedAdd (inW_, 2 * padW_, what);
    const int64_t cinG = inChannels_ / groups_;
    const int64_t padded = checkedMul (cinG, checkedMul (paddedH_, paddedW_, what), what);
    if (padded > kMaxElements)
        throw ModelError ("the conv's padded input would hold more than 2^40 floats");
    // Unpadded, the input is its own plane, read in place.
    paddedFloats_ = padH_ == 0 && padW_ == 0 ? 0 : AlignedBuffer::roundUp (static_cast<std::size_t> (padded));
    shiftedColumns_ = outH_ * paddedW_ - (paddedW_ - outW_);
    // Output chunks of about 128 KiB.
    const int64_t outFit = (int64_t { 1 } << 15) / (outChannels_ / groups_) / panelColumns_ * panelColumns_;
    chunk_ = std::min (std::max<int64_t> (outFit, panelColumns_), (shiftedColumns_ + panelColumns_ - 1) / panelColumns_ * panelColumns_);
    colFloats_ = 0;
    args.claimTable (static_cast<std::uint64_t> (patch), sizeof (int64_t), "conv tap offsets");
    for (int64_t c = 0; c < cinG; ++c)
        for (int64_t ky = 0; ky < kH_; ++ky)
            for (int64_t kx = 0; kx < kW_; ++kx)
                tapOffsets_.push_back (c * paddedH_ * paddedW_ + ky * dilH_ * paddedW_ + kx * dilW_);
    // Where every padded-width position is an output (a 1-wide kernel over an
    // unpadded width), the products are the output rows themselves, written in place.
    chunkOutFloats_ = paddedW_ == outW_ ? 0 : AlignedBuffer::roundUp (static_cast<std::size_t> (checkedMul (outChannels_ / groups_, chunk_, what)));
    strategy_ = Strategy::shiftedPlane;
}

/** Stride 1: pad, then per chunk of padded-width positions multiply (the columns read in place)
    and copy the valid positions out. */
void Conv::runShifted (const float* x, float* y, const GemmOperand& weights, const float* bias, float* scratch) const noexcept
{
    const int64_t cinG = inChannels_ / groups_, coutG = outChannels_ / groups_, patch = cinG * kH_ * kW_;
    const int64_t plane = paddedH_ * paddedW_;
    float* chunkOut = scratch + paddedFloats_;
    const bool inPlace = padH_ == 0 && padW_ == 0;
    float* padded = inPlace ? nullptr : scratch;
    for (int64_t c = 0; c < cinG && ! inPlace; ++c)
    {
        float* dst = padded + c * plane;
        std::fill (dst, dst + padH_ * paddedW_, 0.0f);
        for (int64_t iy = 0; iy < inH_; ++iy)
        {
            float* row = dst + (iy + padH_) * paddedW_;
            std::fill (row, row + padW_, 0.0f);
            std::copy (x + (c * inH_ + iy) * inW_, x + (c * inH_ + iy + 1) * inW_, row + padW_);
            std::fill (row + padW_ + inW_, row + paddedW_, 0.0f);
        }
        std::fill (dst + (padH_ + inH_) * paddedW_, dst + plane, 0.0f);
    }
    const float* input = inPlace ? x : padded;
    if (pooled())
    {
        // A fused 2x1 max pooling: each pooled row is the max of two output rows computed
        // side by side (ceil mode's last row alone: twice the same).
        const int64_t pooledPlane = pooling_.outH * pooling_.outW;
        for (int64_t py = 0; py < pooling_.outH; ++py)
        {
            const int64_t oy = 2 * py, pairStride = oy + 1 < outH_ ? paddedW_ : 0;
            plan_.kernels().shiftedRowPairs (coutG, outW_, patch, weights.packed, input + oy * paddedW_, tapOffsets_.data(), pairStride, bias, relu_,
                                             y + py * outW_, pooledPlane);
        }
        return;
    }
    const int64_t spatialOut = outH_ * outW_;
    for (int64_t j0 = 0; j0 < shiftedColumns_; j0 += chunk_)
    {
        const int64_t count = std::min (chunk_, shiftedColumns_ - j0);
        if (paddedW_ == outW_) // the positions are the outputs: no copy out
        {
            plan_.kernels().shiftedGemm (coutG, count, patch, weights.packed, input + j0, tapOffsets_.data(), bias, y + j0, spatialOut);
            for (int64_t co = 0; co < coutG && relu_; ++co)
                plan_.kernels().copy (y + co * spatialOut + j0, y + co * spatialOut + j0, count, true);
            continue;
        }
        plan_.kernels().shiftedGemm (coutG, count, patch, weights.packed, input + j0, tapOffsets_.data(), bias, chunkOut, count);
        for (int64_t co = 0; co < coutG; ++co)
        {
            const float* from = chunkOut + co * count - j0;
            float* to = y + co * outH_ * outW_;
            for (int64_t j = j0; j < j0 + count;)
            {
                const int64_t oy = j / paddedW_, ox = j % paddedW_;
                const int64_t length = std::min (paddedW_ - ox, j0 + count - j);
                const int64_t valid = std::min (length, std::max<int64_t> (outW_ - ox, 0));
                plan_.kernels().copy (from + j, to + oy * outW_ + ox, valid, relu_);
                j += length;
            }
        }
    }
}

/** What runShifted costs per batch and group: the zero-padded planes written whole, then either
    the pooled rows or the chunks of padded-width positions and their copy out. */
Work Conv::workShifted (int64_t patch) const noexcept
{
    const int64_t coutG = outChannels_ / groups_;
    const auto& k = plan_.kernels();
    Work work;
    if (pooled())
    {
        // The zero-padded planes written whole, each pooled row's two output rows computed
        // over the output width rounded up to a register, the pooled outputs written.
        const double rows = 2.0 * static_cast<double> (pooling_.outH), width = paddedTo (outW_, k.tileColumns / 2);
        work.streamed = static_cast<double> (inChannels_ / groups_) * static_cast<double> (paddedH_) * static_cast<double> (paddedW_)
                        + static_cast<double> (coutG) * static_cast<double> (pooling_.outH * pooling_.outW);
        work.multiplyAdds = paddedTo (coutG, k.tileRows) * rows * width * static_cast<double> (patch);
        work.calls = static_cast<double> (pooling_.outH) * (1.0 + width / static_cast<double> (k.tileColumns / 2));
        return work;
    }
    // The zero-padded planes written whole, the product over every padded-width position
    // of the output rows (the columns read in place), each chunk copied out.
    const auto shifted = static_cast<double> (shiftedColumns_);
    work.streamed = static_cast<double> (inChannels_ / groups_) * static_cast<double> (paddedH_) * static_cast<double> (paddedW_)
                    + 2.0 * static_cast<double> (coutG) * shifted;
    work.multiplyAdds = paddedTo (coutG, k.tileRows) * paddedTo (shiftedColumns_, k.tileColumns) * static_cast<double> (patch);
    work.calls = std::ceil (shifted / static_cast<double> (chunk_)) * (1.0 + static_cast<double> (coutG))
                 + static_cast<double> (coutG) * static_cast<double> (outH_);
    return work;
}

} // namespace sonotype::engine::kernels
