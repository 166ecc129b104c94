// 1-d and 2-d convolution (stride, padding, dilation, groups) as a matrix product per group, in one
// of five strategies chosen at load (Conv::Strategy).
#include "engine/CpuDispatch.h"
#include "engine/file/AlignedBuffer.h"
#include "engine/file/CheckedArithmetic.h"
#include "engine/kernels/Gemm.h"
#include "engine/kernels/Kernels.h"
#include "engine/file/LoadBudget.h"
#include "engine/file/ModelError.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sonotype::engine::kernels
{
namespace
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

        explicit Conv (const OpArgs& args)
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
                    chunkOutFloats_ = paddedW_ == outW_ ? 0
                                                        : AlignedBuffer::roundUp (static_cast<std::size_t> (checkedMul (outChannels_ / groups_, chunk_, what)));
                    strategy_ = Strategy::shiftedPlane;
                    if (numSpatial == 2 && kH_ == 3 && kW_ == 3 && dilH_ == 1 && dilW_ == 1 && cinG >= kWinogradMinChannels
                        && outChannels_ / groups_ >= kWinogradMinChannels && plan_.kernels().winogradInput != nullptr)
                        planWinograd();
                    else if (numSpatial == 1 && kW_ == 1 && padW_ == 0 && groups_ == 1 && batched_)
                        preferPositionRows();
                }
            }
            // The weights, one [cout / groups, patch] matrix per group (or 16 per group for
            // Winograd, or their transpose for positionRows), are packed once, here.
            packWeights (args.budget());
            work_ = static_cast<double> (batches_) * static_cast<double> (groups_) * workPerGroup (patch, spatialOut);
            pooling_ = { 1, 1, outH_, outW_ };
        }

        bool foldScaleShift (const std::vector<float>& scale, const std::vector<float>& shift, LoadBudget& budget) override
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
        bool writeOutputStrided (const std::vector<int64_t>& strides, LoadBudget& budget) override
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

        bool fuseRelu() noexcept override
        {
            relu_ = true;
            return true;
        }

        // Winograd's output pass takes a following max pooling whose windows are the tiles' halves
        // or wholes (2x1, 1x2, 2x2): the pooling's own pass over the outputs and 1/2 or 3/4 of the
        // writes go. The stride-1 path takes a 2x1 one: it computes each pair of output rows side
        // by side and writes their max (no products' buffer, no copy out).
        bool fuseMaxPool (const MaxPoolTiling& pooling) noexcept override
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

        std::size_t scratchFloats() const noexcept override
        {
            if (strategy_ == Strategy::winograd)
                return splitFloats_ + transformedFloats_ + productFloats_;
            if (strategy_ == Strategy::positionRows)
                return rowsFloats_ + rowsPlan_.scratchFloats();
            return colFloats_ + paddedFloats_ + chunkOutFloats_ + plan_.scratchFloats();
        }
        Work work() const noexcept override { return work_; }
        double multiplyAdds() const noexcept override
        {
            return static_cast<double> (batches_) * static_cast<double> (outChannels_) * static_cast<double> (outH_ * outW_)
                   * static_cast<double> (inChannels_ / groups_) * static_cast<double> (kH_ * kW_);
        }

        void run (const float* const* in, float* const* out, float* scratch) const noexcept override
        {
            // Weights and bias folded at load (a BatchNorm absorbed) replace the graph's.
            const float* weightInput = ownedWeights_.size() > 0 ? ownedWeights_.data() : in[1];
            const float* biasInput = ownedBias_.size() > 0 ? ownedBias_.data() : (hasBias_ ? in[2] : nullptr);
            const int64_t cinG = inChannels_ / groups_, coutG = outChannels_ / groups_;
            const int64_t patch = cinG * kH_ * kW_, spatialOut = outH_ * outW_;
            float* col = scratch;
            float* gemmScratch = scratch + colFloats_ + paddedFloats_ + chunkOutFloats_;
            const int64_t outPlane = pooling_.outH * pooling_.outW; // spatialOut unless a pooling was fused
            if (strategy_ == Strategy::positionRows)
            {
                for (int64_t n = 0; n < batches_; ++n)
                {
                    float* y = out[0] + n * outW_ * outChannels_;
                    float* rows = rowsTransposed_ ? scratch : y;
                    rowsPlan_.runColumnBias ({ in[0] + n * inChannels_ * inW_, inW_, true, nullptr },
                                             { weightInput, inChannels_, true, packedWeights_[0].data() }, rows, outChannels_, biasInput, relu_,
                                             nullptr, 0, scratch + rowsFloats_);
                    if (rowsTransposed_)
                        transposeRows (rows, y);
                }
                return;
            }
            for (int64_t n = 0; n < batches_; ++n)
                for (int64_t g = 0; g < groups_; ++g)
                {
                    const float* x = in[0] + (n * inChannels_ + g * cinG) * inH_ * inW_;
                    float* y = out[0] + (n * outChannels_ + g * coutG) * outPlane;
                    const float* weights = packedWeights_.empty() ? nullptr : packedWeights_[static_cast<std::size_t> (g)].data();
                    const float* bias = biasInput != nullptr ? biasInput + g * coutG : nullptr;
                    if (strategy_ == Strategy::winograd)
                    {
                        runWinograd (x, y, g, bias, scratch);
                        continue;
                    }
                    if (strategy_ == Strategy::shiftedPlane)
                    {
                        runShifted (x, y, { weightInput + g * coutG * patch, patch, false, weights }, bias, scratch);
                        continue;
                    }
                    for (int64_t c = 0; c < coutG; ++c)
                        std::fill (y + c * spatialOut, y + (c + 1) * spatialOut, bias != nullptr ? bias[c] : 0.0f);
                    switch (strategy_)
                    {
                        case Strategy::packedColumns:
                            for (int64_t j0 = 0; j0 < spatialOut; j0 += chunk_)
                            {
                                const int64_t count = std::min (chunk_, spatialOut - j0);
                                packColumns (x, cinG, j0, count, col);
                                plan_.kernels().gemm (coutG, count, patch, { weightInput + g * coutG * patch, patch, false, weights },
                                                      { col, 0, false, col }, y + j0, spatialOut, 1.0f, gemmScratch);
                            }
                            break;
                        case Strategy::im2col:
                            im2col (x, cinG, col);
                            plan_.run ({ weightInput + g * coutG * patch, patch, false, weights }, { col, spatialOut, false, nullptr }, y, spatialOut,
                                       1.0f, gemmScratch);
                            break;
                        case Strategy::direct:
                            plan_.run ({ weightInput + g * coutG * patch, patch, false, weights }, { x, spatialOut, false, nullptr }, y, spatialOut,
                                       1.0f, gemmScratch);
                            break;
                        case Strategy::shiftedPlane:
                        case Strategy::winograd:
                        case Strategy::positionRows: break;
                    }
                    if (relu_)
                        plan_.kernels().copy (y, y, coutG * spatialOut, true);
                }
        }

    private:
        // Winograd pays where both channel counts are at least this: below it the transforms cost
        // more than the multiplies they save (the built-in model's 1 -> 16 stem with its pooling
        // took 0.096 ms by Winograd against 0.064 ms direct, AMD EPYC, AVX-512 path).
        static constexpr int64_t kWinogradMinChannels = 8;

        bool pooled() const noexcept { return pooling_.windowH * pooling_.windowW > 1; }

        /** A 1-d pointwise convolution (a projection to tokens) on the stride-1 path multiplies
            [cout, cin] by [cin, positions], the positions padded to the micro-kernel's columns;
            where the positions are few (the built-in model's 51 on 16- or 32-float tiles) the
            product over the positions' rows pads less: it is taken where it costs less, its
            transpose included. */
        void preferPositionRows()
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

        /** [positions, cout] rows into the output [cout, positions], in blocks that stay in cache. */
        void transposeRows (const float* rows, float* y) const noexcept
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

        /** The weights, in the layout the strategy multiplies by, packed for the active path (none
            on a path that does not pack, or when the graph computes the weights). */
        void packWeights (LoadBudget& budget)
        {
            packedWeights_.clear();
            if (weightData_ == nullptr)
                return;
            const int64_t cinG = inChannels_ / groups_, coutG = outChannels_ / groups_;
            const int64_t patch = cinG * kH_ * kW_;
            if (strategy_ == Strategy::positionRows)
            {
                packedWeights_.push_back (PackedOperand::right (rowsPlan_, inChannels_, outChannels_, { weightData_, inChannels_, true, nullptr }, budget));
                return;
            }
            if (strategy_ != Strategy::winograd)
            {
                for (int64_t g = 0; g < groups_; ++g)
                    packedWeights_.push_back (PackedOperand::left (plan_, coutG, patch, { weightData_ + g * coutG * patch, patch, false, nullptr }, budget));
                return;
            }
            // U = G_rows g G^T per (output, input) channel, G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
            // (F(2, 3), along the rows) and G_rows that or, for 4-row tiles, F(4, 3)'s [1/4 0 0;
            // -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1], in double and
            // rounded once; element xi of every pair makes one [cout, cin] matrix.
            budget.claim (static_cast<std::uint64_t> (elements_ * coutG * cinG), sizeof (float), "a convolution's Winograd weights");
            std::vector<float> transformed (static_cast<std::size_t> (elements_ * coutG * cinG));
            static constexpr double kG[4][3] = { { 1.0, 0.0, 0.0 }, { 0.5, 0.5, 0.5 }, { 0.5, -0.5, 0.5 }, { 0.0, 0.0, 1.0 } };
            static constexpr double kG4[6][3] = { { 1.0 / 4.0, 0.0, 0.0 },           { -1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0 },
                                                  { -1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0 }, { 1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0 },
                                                  { 1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0 }, { 0.0, 0.0, 1.0 } };
            const int inputRows = static_cast<int> (tileRows_) + 2;
            const auto gRows = [&] (int i, int r) { return tileRows_ == 4 ? kG4[i][r] : kG[i][r]; };
            for (int64_t g = 0; g < groups_; ++g)
            {
                for (int64_t co = 0; co < coutG; ++co)
                    for (int64_t ci = 0; ci < cinG; ++ci)
                    {
                        const float* w = weightData_ + ((g * coutG + co) * cinG + ci) * 9;
                        double gw[6][3] = {}; // G_rows g
                        for (int i = 0; i < inputRows; ++i)
                            for (int c = 0; c < 3; ++c)
                                for (int r = 0; r < 3; ++r)
                                    gw[i][c] += gRows (i, r) * static_cast<double> (w[r * 3 + c]);
                        for (int i = 0; i < inputRows; ++i)
                            for (int k = 0; k < 4; ++k)
                            {
                                double u = 0.0;
                                for (int c = 0; c < 3; ++c)
                                    u += gw[i][c] * kG[k][c];
                                transformed[static_cast<std::size_t> (((4 * i + k) * coutG + co) * cinG + ci)] = static_cast<float> (u);
                            }
                    }
                for (int64_t xi = 0; xi < elements_; ++xi)
                    packedWeights_.push_back (
                        PackedOperand::left (plan_, coutG, cinG, { transformed.data() + xi * coutG * cinG, cinG, false, nullptr }, budget));
            }
        }

        /** Winograd F(2x2, 3x3) or F(4x2, 3x3) (vector/WinogradKernels.h has the transforms). Each
            block of 2 or 4 output rows by 2 columns (a tile) comes from the 4x4 or 6x4 inputs around
            it: B^T d B per input channel, then for each of the 16 or 24 elements a product of the
            transformed weights [cout, cin] by the transformed inputs [cin, tiles], then A^T m A per
            output channel: per output and input channel 4 or 3 multiplies where the direct
            convolution does 9. 4-row tiles where they take fewer products (the rows rounded up to
            the tile count): the built-in model's 16 -> 32 convolution took 0.183 ms with 2-row
            tiles, 0.145 ms with 4-row ones (AMD EPYC, AVX2 path). Their transform's coefficients
            (up to 8) round a few times more than the 2-row tiles' 0 and +-1 (2e-6 against 4e-7 on
            outputs of about 3, measured), far inside the parity bound. Tiles of 4 x 4 (F(4, 3)
            both ways) would take a fifth of the products away but round about five times more
            again (1.1e-5 on outputs of about 2.5, measured: past the parity bound). The padded
            input is split once into even and odd columns, so that the transforms read whole
            registers of consecutive tiles; the tiles go through in chunks whose transformed inputs
            and products stay in a core's L2 cache. */
        void planWinograd()
        {
            const char* what = "the conv's Winograd buffers";
            const int64_t cinG = inChannels_ / groups_, coutG = outChannels_ / groups_;
            const auto tileRowsFor = [this] (int64_t rows) { return (outH_ + rows - 1) / rows; };
            tileRows_ = 24 * tileRowsFor (4) < 16 * tileRowsFor (2) ? 4 : 2;
            elements_ = 4 * (tileRows_ + 2);
            tilesH_ = tileRowsFor (tileRows_);
            tilesW_ = (outW_ + 1) / 2;
            splitRow_ = tilesW_ + 1; // even (or odd) columns of a padded row the tiles read
            // The padded rows the tiles read, split, in tileRows_ planes per channel (row py in
            // plane py % tileRows_), each one row after another. Tile t of the tile rows laid end to
            // end (each row's extra tile, never written out, included) reads elements t and t + 1
            // of its rows tileRows_ * ty + r: one run of the input transform covers any span of tiles.
            splitLength_ = checkedAdd (checkedMul (tilesH_ + 1, splitRow_, what), 1, what);
            const int64_t tiles = tilesH_ * splitRow_;
            const int64_t split = checkedMul (cinG, checkedMul (splitLength_, 2 * tileRows_, what), what);
            if (split > kMaxElements)
                throw ModelError ("the conv's Winograd input would hold more than 2^40 floats");
            const int64_t columns = plan_.kernels().tileColumns;
            const int64_t fit = (int64_t { 1 } << 16) / (elements_ * (cinG + coutG)) / columns * columns;
            winogradChunk_ = std::min (std::max (fit, columns), (tiles + columns - 1) / columns * columns);
            splitFloats_ = AlignedBuffer::roundUp (static_cast<std::size_t> (split));
            // A tile's elements lie a matrix apart; one cache line more keeps them off one cache
            // set (4 KiB apart, 16 addresses would contend for a set's 8 ways).
            transformedStride_ = checkedAdd (checkedMul (cinG, winogradChunk_, what), 16, what);
            productStride_ = checkedAdd (checkedMul (coutG, winogradChunk_, what), 16, what);
            transformedFloats_ = AlignedBuffer::roundUp (static_cast<std::size_t> (checkedMul (elements_, transformedStride_, what)));
            productFloats_ = AlignedBuffer::roundUp (static_cast<std::size_t> (checkedMul (elements_, productStride_, what)));
            channelOffsets_.clear();
            for (int64_t c = 0; c < cinG; ++c)
                channelOffsets_.push_back (c * winogradChunk_);
            tapOffsets_.clear();
            tapOffsets_.shrink_to_fit();
            plan_ = GemmPlan (coutG, winogradChunk_, cinG);
            strategy_ = Strategy::winograd;
        }

        /** One group of one batch item by Winograd (see planWinograd). */
        void runWinograd (const float* x, float* y, int64_t g, const float* bias, float* scratch) const noexcept
        {
            const auto& k = plan_.kernels();
            const int64_t cinG = inChannels_ / groups_, coutG = outChannels_ / groups_;
            float* split = scratch;
            float* transformed = split + splitFloats_;
            float* products = transformed + transformedFloats_;
            // Padded row py, split: its even columns at split + c * channelStride + (py % tileRows_)
            // * 2 * length + (py / tileRows_) * splitRow_, its odd ones a length further.
            const int64_t length = splitLength_, channelStride = 2 * tileRows_ * length;
            k.winogradSplit (x, cinG, inH_, inW_, padH_, padW_, static_cast<int> (tileRows_), tileRows_ * (tilesH_ + 1), splitRow_, split, length,
                             channelStride);
            for (int64_t c = 0; c < cinG; ++c)
            {
                float* plane = split + c * channelStride;
                for (int64_t q = 0; q < tileRows_; ++q) // read by the last row's extra tile
                    plane[q * 2 * length + (tilesH_ + 1) * splitRow_] = plane[q * 2 * length + length + (tilesH_ + 1) * splitRow_] = 0.0f;
            }
            const int64_t tiles = tilesH_ * splitRow_;
            const int64_t xiIn = transformedStride_, xiOut = productStride_;
            const std::size_t firstWeights = static_cast<std::size_t> (g * elements_);
            const int rowsPerTile = static_cast<int> (tileRows_);
            for (int64_t j0 = 0; j0 < tiles; j0 += winogradChunk_)
            {
                const int64_t count = std::min (winogradChunk_, tiles - j0);
                k.winogradInput (rowsPerTile, split + j0, cinG, channelStride, length, splitRow_, count, transformed, xiIn, winogradChunk_);
                for (int64_t xi = 0; xi < elements_; ++xi)
                    k.shiftedGemm (coutG, count, cinG, packedWeights_[firstWeights + static_cast<std::size_t> (xi)].data(), transformed + xi * xiIn,
                                   channelOffsets_.data(), nullptr, products + xi * xiOut, winogradChunk_);
                for (int64_t j = j0; j < j0 + count;)
                {
                    const int64_t ty = j / splitRow_, tx = j % splitRow_, run = std::min (tilesW_ - tx, j0 + count - j);
                    if (run <= 0) // a row's extra tile
                    {
                        ++j;
                        continue;
                    }
                    // The outputs of these tiles that count: a pooling in floor mode drops an odd last row or column.
                    const int64_t oy = tileRows_ * ty, ox = 2 * tx;
                    const int64_t rows = std::min ({ tileRows_, outH_ - oy, pooling_.windowH * pooling_.outH - oy });
                    const int64_t width = std::min ({ 2 * run, outW_ - ox, pooling_.windowW * pooling_.outW - ox });
                    const int64_t toY = oy / pooling_.windowH, toX = ox / pooling_.windowW;
                    if (rows > 0)
                        k.winogradOutput (rowsPerTile, products + (j - j0), xiOut, coutG, winogradChunk_, run, bias, relu_, y + toY * pooling_.outW + toX,
                                          pooling_.outH * pooling_.outW, pooling_.outW, rows, width, static_cast<int> (pooling_.windowH),
                                          static_cast<int> (pooling_.windowW));
                    j += run;
                }
            }
        }

        /** What run() costs per batch and group on the strategy chosen at load. */
        Work workPerGroup (int64_t patch, int64_t spatialOut) const noexcept
        {
            const int64_t coutG = outChannels_ / groups_;
            const auto& k = plan_.kernels();
            const auto padded = [] (int64_t size, int64_t step) { return static_cast<double> ((size + step - 1) / step * step); };
            const auto outputs = static_cast<double> (coutG) * static_cast<double> (spatialOut);
            Work work;
            if (strategy_ == Strategy::positionRows)
            {
                // The product over the positions' rows; transposed into the output (read and written).
                work = rowsPlan_.work (false, ! packedWeights_.empty() && packedWeights_[0].data() != nullptr);
                if (rowsTransposed_)
                    work.gatheredNear += 2.0 * outputs;
                return work;
            }
            if (strategy_ == Strategy::winograd)
            {
                // The padded rows split (read and written), each tile's elements (16 or 24) read
                // and written transformed per input channel, as many products per tile and output
                // channel written and read back, the outputs written; a product per element and
                // chunk. Tiles count each tile row's extra one.
                const auto cinG = static_cast<double> (inChannels_ / groups_);
                const auto tiles = static_cast<double> (tilesH_ * splitRow_);
                const double chunks = std::ceil (tiles / static_cast<double> (winogradChunk_));
                const double runs = chunks + static_cast<double> (tilesH_);
                const auto elements = static_cast<double> (elements_);
                work.streamed = 2.0 * cinG * 2.0 * static_cast<double> (tileRows_) * static_cast<double> (splitLength_)
                                + 2.0 * elements * cinG * tiles + 2.0 * elements * static_cast<double> (coutG) * tiles + outputs;
                work.multiplyAdds = elements * padded (coutG, k.tileRows) * chunks * padded (winogradChunk_, k.tileColumns) * cinG;
                work.calls = elements * chunks + cinG * static_cast<double> (tileRows_ * (tilesH_ + 1)) + chunks * cinG
                             + runs * static_cast<double> (coutG);
                return work;
            }
            if (strategy_ == Strategy::shiftedPlane && pooled())
            {
                // The zero-padded planes written whole, each pooled row's two output rows computed
                // over the output width rounded up to a register, the pooled outputs written.
                const double rows = 2.0 * static_cast<double> (pooling_.outH), width = padded (outW_, k.tileColumns / 2);
                work.streamed = static_cast<double> (inChannels_ / groups_) * static_cast<double> (paddedH_) * static_cast<double> (paddedW_)
                                + static_cast<double> (coutG) * static_cast<double> (pooling_.outH * pooling_.outW);
                work.multiplyAdds = padded (coutG, k.tileRows) * rows * width * static_cast<double> (patch);
                work.calls = static_cast<double> (pooling_.outH) * (1.0 + width / static_cast<double> (k.tileColumns / 2));
                return work;
            }
            if (strategy_ == Strategy::shiftedPlane)
            {
                // The zero-padded planes written whole, the product over every padded-width position
                // of the output rows (the columns read in place), each chunk copied out.
                const auto shifted = static_cast<double> (shiftedColumns_);
                work.streamed = static_cast<double> (inChannels_ / groups_) * static_cast<double> (paddedH_) * static_cast<double> (paddedW_)
                                + 2.0 * static_cast<double> (coutG) * shifted;
                work.multiplyAdds = padded (coutG, k.tileRows) * padded (shiftedColumns_, k.tileColumns) * static_cast<double> (patch);
                work.calls = std::ceil (shifted / static_cast<double> (chunk_)) * (1.0 + static_cast<double> (coutG))
                             + static_cast<double> (coutG) * static_cast<double> (outH_);
                return work;
            }
            work.streamed = outputs; // the bias fill
            if (strategy_ == Strategy::packedColumns)
            {
                // Columns packed straight into the product's layout, a run of positions per tap and row.
                const double columns = padded (spatialOut, panelColumns_) * static_cast<double> (patch);
                work.scalar = columns;
                work.calls = static_cast<double> (patch) * (padded (spatialOut, panelColumns_) / static_cast<double> (panelColumns_))
                             * (1.0 + static_cast<double> (panelColumns_) / static_cast<double> (outW_));
                work.multiplyAdds = padded (coutG, k.tileRows) * padded (spatialOut, panelColumns_) * static_cast<double> (patch);
                work.calls += std::ceil (static_cast<double> (spatialOut) / static_cast<double> (chunk_));
                return work;
            }
            if (strategy_ == Strategy::im2col)
            {
                work.scalar = 3.0 * static_cast<double> (patch) * static_cast<double> (spatialOut); // im2col: index, bounds check, copy
                work.calls = static_cast<double> (patch) * static_cast<double> (outH_);
            }
            work += plan_.work (! packedWeights_.empty(), false);
            return work;
        }

        // (in + 2 pad - dilation (kernel - 1) - 1) / stride + 1, as torch, with every step checked.
        static int64_t outputSize (int64_t in, int64_t pad, int64_t dilation, int64_t kernel, int64_t stride)
        {
            const char* what = "the conv output size";
            const int64_t padded = checkedAdd (in, checkedMul (2, pad, what), what);
            const int64_t span = checkedAdd (checkedMul (dilation, kernel - 1, what), 1, what);
            if (padded < span)
                return 0;
            return (padded - span) / stride + 1;
        }

        /** Stride 1 (see the constructor): pad, then per chunk of padded-width positions multiply
            (the columns read in place) and copy the valid positions out. */
        void runShifted (const float* x, float* y, const GemmOperand& weights, const float* bias, float* scratch) const noexcept
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
                    plan_.kernels().shiftedRowPairs (coutG, outW_, patch, weights.packed, input + oy * paddedW_, tapOffsets_.data(), pairStride, bias,
                                                     relu_, y + py * outW_, pooledPlane);
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

        /** The columns of output positions [j0, j0 + count) in the packed-B layout: panels of
            panelColumns_ positions, each patch rows (channel, ky, kx) of panelColumns_ floats. */
        void packColumns (const float* x, int64_t channels, int64_t j0, int64_t count, float* out) const noexcept
        {
            const int64_t nr = panelColumns_, patch = channels * kH_ * kW_;
            for (int64_t panel = 0; panel < count; panel += nr)
            {
                float* dst = out + (panel / nr) * patch * nr;
                const int64_t columns = std::min (nr, count - panel);
                const int64_t oyStart = (j0 + panel) / outW_, oxStart = (j0 + panel) % outW_;
                int64_t p = 0;
                for (int64_t c = 0; c < channels; ++c)
                    for (int64_t ky = 0; ky < kH_; ++ky)
                        for (int64_t kx = 0; kx < kW_; ++kx, ++p)
                        {
                            float* d = dst + p * nr;
                            const float* plane = x + c * inH_ * inW_;
                            int64_t done = 0, oy = oyStart, ox = oxStart;
                            while (done < columns)
                            {
                                // One run of output positions along a row: their inputs lie on one input row.
                                const int64_t run = std::min (columns - done, outW_ - ox);
                                const int64_t iy = oy * strideH_ - padH_ + ky * dilH_;
                                float* segment = d + done;
                                if (iy < 0 || iy >= inH_)
                                    std::fill (segment, segment + run, 0.0f);
                                else
                                {
                                    const float* src = plane + iy * inW_;
                                    const int64_t base = ox * strideW_ - padW_ + kx * dilW_; // ix of the run's first position
                                    // Positions t with 0 <= base + t * stride < inW read the input; the rest are padding.
                                    const int64_t first = base >= 0 ? 0 : std::min (run, (-base + strideW_ - 1) / strideW_);
                                    const int64_t end = base >= inW_ ? first : std::max (first, std::min (run, (inW_ - 1 - base) / strideW_ + 1));
                                    // Plain loops: a run is at most one panel wide, too short for memcpy calls.
                                    for (int64_t t = 0; t < first; ++t)
                                        segment[t] = 0.0f;
                                    const float* from = src + base;
                                    if (strideW_ == 1)
                                        for (int64_t t = first; t < end; ++t)
                                            segment[t] = from[t];
                                    else
                                        for (int64_t t = first; t < end; ++t)
                                            segment[t] = from[t * strideW_];
                                    for (int64_t t = end; t < run; ++t)
                                        segment[t] = 0.0f;
                                }
                                done += run;
                                ox = 0;
                                ++oy;
                            }
                            std::fill (d + columns, d + nr, 0.0f);
                        }
            }
        }

        void im2col (const float* x, int64_t channels, float* col) const noexcept
        {
            for (int64_t c = 0; c < channels; ++c)
                for (int64_t ky = 0; ky < kH_; ++ky)
                    for (int64_t kx = 0; kx < kW_; ++kx)
                    {
                        float* row = col + ((c * kH_ + ky) * kW_ + kx) * outH_ * outW_;
                        for (int64_t oy = 0; oy < outH_; ++oy)
                        {
                            const int64_t iy = oy * strideH_ - padH_ + ky * dilH_;
                            for (int64_t ox = 0; ox < outW_; ++ox)
                            {
                                const int64_t ix = ox * strideW_ - padW_ + kx * dilW_;
                                row[oy * outW_ + ox] = (iy >= 0 && iy < inH_ && ix >= 0 && ix < inW_) ? x[(c * inH_ + iy) * inW_ + ix] : 0.0f;
                            }
                        }
                    }
        }

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
        GemmPlan plan_, rowsPlan_; // rowsPlan_: the positionRows strategy's product
        bool rowsTransposed_ = false; // positionRows: its [positions, cout] rows transposed into the output
        std::size_t rowsFloats_ = 0;  // ... through this much scratch
        std::vector<PackedOperand> packedWeights_;
    };
} // namespace

std::unique_ptr<Op> makeConv (const OpArgs& args)
{
    return std::make_unique<Conv> (args);
}

} // namespace sonotype::engine::kernels
