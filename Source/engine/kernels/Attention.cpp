// Fused scaled-dot-product attention: softmax(scale * q @ k^T + mask) @ v per batch/head, on the
// active path's attention kernel; with the probabilities written out (nn.MultiheadAttention's
// need_weights), as two products around a softmax.
// A row whose keys are all masked gets zero probabilities (as PyTorch's fused kernels do).
#include "engine/file/AlignedBuffer.h"
#include "engine/file/ModelError.h"
#include "engine/kernels/Broadcast.h"
#include "engine/kernels/Gemm.h"
#include "engine/kernels/Kernels.h"

#include <array>

namespace sonotype::engine::kernels
{
namespace
{
    class Attention final : public Op
    {
    public:
        explicit Attention (const OpArgs& args)
        {
            const auto &q = args.input (0), &k = args.input (1), &v = args.input (2);
            const int rank = q.rank();
            if (rank < 2 || k.rank() != rank || v.rank() != rank)
                throw ModelError ("attention q, k, v must have the same rank >= 2, got " + q.toString() + ", " + k.toString() + ", " + v.toString());
            for (int axis = 0; axis < rank - 2; ++axis)
                if (k[axis] != q[axis] || v[axis] != q[axis])
                    throw ModelError ("attention batch axes differ: " + q.toString() + ", " + k.toString() + ", " + v.toString());
            l_ = q[rank - 2];
            d_ = q[rank - 1];
            s_ = k[rank - 2];
            dv_ = v[rank - 1];
            if (k[rank - 1] != d_ || v[rank - 2] != s_)
                throw ModelError ("attention shapes do not fit: q " + q.toString() + ", k " + k.toString() + ", v " + v.toString());
            scale_ = static_cast<float> (args.real ("scale", -kMaxFactor, kMaxFactor));
            numBatches_ = q.product (0, rank - 2);
            args.checkOutput (0, q.with (rank - 1, dv_));
            const Shape scores = q.with (rank - 1, s_);
            withWeights_ = args.numOutputs() == 2;
            if (withWeights_)
                args.checkOutput (1, scores);
            hasMask_ = args.hasInput (3);
            if (hasMask_)
            {
                const auto& mask = args.input (3);
                if (! broadcastsTo (mask, scores))
                    throw ModelError ("attention mask " + mask.toString() + " does not broadcast to the scores " + scores.toString());
                const auto strides = broadcastStrides (mask, scores);
                maskRow_ = strides[static_cast<std::size_t> (rank - 2)];
                maskColumn_ = strides[static_cast<std::size_t> (rank - 1)];
                Shape batchShape;
                for (int axis = 0; axis < rank - 2; ++axis)
                    batchShape.push (q[axis]);
                Strides batchStrides {};
                for (int axis = 0; axis < rank - 2; ++axis)
                    batchStrides[static_cast<std::size_t> (axis)] = strides[static_cast<std::size_t> (axis)];
                const std::array<Strides, 1> walk { batchStrides };
                const int64_t inner = rank > 2 ? batchStrides[static_cast<std::size_t> (rank - 3)] : 0;
                args.claimTable (static_cast<std::uint64_t> (batchShape.numElements()), sizeof (int64_t), "attention mask offsets");
                forEachRow (batchShape, walk, [&] (int64_t, const std::array<int64_t, 1>& offsets, int64_t count) {
                    for (int64_t j = 0; j < count; ++j)
                        maskOffsets_.push_back (offsets[0] + j * inner);
                });
            }
            // Each batch's q, k, v and output matrices, contiguous until a permute is absorbed.
            rank_ = rank;
            for (int axis = 0; axis < rank - 2; ++axis)
                batchShape_.push (q[axis]);
            args.claimTable (static_cast<std::uint64_t> (4 * numBatches_), sizeof (int64_t), "attention batch offsets");
            const int64_t rows[4] = { l_, s_, s_, l_ }, columns[4] = { d_, d_, dv_, dv_ };
            for (std::size_t t = 0; t < 4; ++t)
            {
                rowStrides_[t] = columns[t];
                for (int64_t b = 0; b < numBatches_; ++b)
                    batchOffsets_[t].push_back (b * rows[t] * columns[t]);
            }
            scores_ = GemmPlan (l_, s_, d_);
            values_ = GemmPlan (l_, dv_, s_);
            scoreFloats_ = AlignedBuffer::roundUp (static_cast<std::size_t> (scores.product (rank - 2, rank)));
        }

        Work work() const noexcept override
        {
            const auto batches = static_cast<double> (numBatches_);
            const auto scores = static_cast<double> (l_) * static_cast<double> (s_);
            Work work;
            if (! withWeights_)
            {
                // The fused kernel: K transposed into scratch (keys padded to a block of two
                // registers), queries in groups of 8, values in registers; an exp per padded score.
                const auto& k = scores_.kernels();
                const auto padded = [] (int64_t size, int64_t step) { return static_cast<double> ((size + step - 1) / step * step); };
                const double keys = padded (s_, k.tileColumns), queries = padded (l_, 8);
                work.multiplyAdds = batches * queries * (keys * static_cast<double> (d_) + static_cast<double> (s_) * padded (dv_, k.tileColumns / 2));
                work.gatheredNear = batches * keys * static_cast<double> (d_);
                work.vectorMath = batches * queries * keys;
                work.calls = batches * (2.0 + queries);
                if (hasMask_)
                    work.scalar = batches * scores;
                return work;
            }
            // Per batch: the mask copy (or a fill), q k^T, the softmax rows and p v.
            work = batches * (scores_.work (false, false) + values_.work (false, false));
            work.streamed += batches * (scores + static_cast<double> (l_) * static_cast<double> (dv_));
            work.vectorMath += batches * scores;
            work.calls += batches * 12.0 * static_cast<double> (l_);
            if (hasMask_)
                work.scalar += batches * scores;
            return work;
        }
        void outputUnused (std::size_t i) noexcept override
        {
            if (i == 1)
                withWeights_ = false; // nobody reads the probabilities: the fused kernel may run
        }
        // q, k or v read through a permute's strides (the heads split from a [..., tokens, heads,
        // features] product), the output written through them (the heads merged back): rows
        // must keep their features contiguous. Only the fused kernel does.
        bool readInputStrided (std::size_t input, const std::vector<int64_t>& strides, int64_t offset) noexcept override
        {
            return input < 3 && setStrides (input, strides, offset);
        }
        bool writeOutputStrided (const std::vector<int64_t>& strides, LoadBudget&) noexcept override { return setStrides (3, strides, 0); }

        double multiplyAdds() const noexcept override
        {
            return static_cast<double> (numBatches_) * static_cast<double> (l_) * static_cast<double> (s_) * static_cast<double> (d_ + dv_);
        }

        std::size_t scratchFloats() const noexcept override
        {
            if (! withWeights_)
                return scores_.kernels().attentionScratchFloats (s_, d_);
            return scoreFloats_ + std::max (scores_.scratchFloats(), values_.scratchFloats());
        }

        void run (const float* const* in, float* const* out, float* scratch) const noexcept override
        {
            if (! withWeights_)
            {
                // The fused kernel: no score matrix, no packing.
                for (std::size_t b = 0; b < static_cast<std::size_t> (numBatches_); ++b)
                    scores_.kernels().attention (in[0] + batchOffsets_[0][b], rowStrides_[0], in[1] + batchOffsets_[1][b], rowStrides_[1],
                                                 in[2] + batchOffsets_[2][b], rowStrides_[2], out[0] + batchOffsets_[3][b], rowStrides_[3], l_, s_, d_,
                                                 dv_, scale_, hasMask_ ? in[3] + maskOffsets_[b] : nullptr, maskRow_, maskColumn_, scratch);
                return;
            }
            float* gemmScratch = scratch + scoreFloats_;
            for (int64_t b = 0; b < numBatches_; ++b)
            {
                float* p = withWeights_ ? out[1] + b * l_ * s_ : scratch;
                if (hasMask_)
                {
                    const float* mask = in[3] + maskOffsets_[static_cast<std::size_t> (b)];
                    for (int64_t i = 0; i < l_; ++i)
                        for (int64_t j = 0; j < s_; ++j)
                            p[i * s_ + j] = mask[i * maskRow_ + j * maskColumn_];
                }
                else
                    std::fill (p, p + l_ * s_, 0.0f);
                scores_.run (in[0] + b * l_ * d_, d_, false, in[1] + b * s_ * d_, d_, true, p, s_, scale_, gemmScratch);
                scores_.kernels().softmaxRows (p, l_, s_, s_);
                float* y = out[0] + b * l_ * dv_;
                std::fill (y, y + l_ * dv_, 0.0f);
                values_.run (p, s_, false, in[2] + b * s_ * dv_, dv_, false, y, dv_, 1.0f, gemmScratch);
            }
        }

    private:
        /** Matrix t (q, k, v, out) through `strides` over its shape, from `offset`: the batch
            offsets and the row stride from them. */
        bool setStrides (std::size_t t, const std::vector<int64_t>& strides, int64_t offset) noexcept
        {
            const auto r = static_cast<std::size_t> (rank_);
            if (withWeights_ || strides.size() != r || strides[r - 1] != 1)
                return false;
            rowStrides_[t] = strides[r - 2];
            std::array<int64_t, kMaxRank> index {};
            for (auto& batchOffset : batchOffsets_[t])
            {
                batchOffset = offset;
                for (std::size_t axis = 0; axis + 2 < r; ++axis)
                    batchOffset += index[axis] * strides[axis];
                for (int axis = rank_ - 3; axis >= 0; --axis) // the next batch, row-major
                {
                    if (++index[static_cast<std::size_t> (axis)] < batchShape_[axis])
                        break;
                    index[static_cast<std::size_t> (axis)] = 0;
                }
            }
            return true;
        }

        int64_t l_ = 0, s_ = 0, d_ = 0, dv_ = 0, numBatches_ = 1;
        int rank_ = 0;
        Shape batchShape_;
        std::array<std::vector<int64_t>, 4> batchOffsets_;
        std::array<int64_t, 4> rowStrides_ {};
        float scale_ = 1.0f;
        bool withWeights_ = false, hasMask_ = false;
        int64_t maskRow_ = 0, maskColumn_ = 0;
        std::vector<int64_t> maskOffsets_;
        GemmPlan scores_, values_;
        std::size_t scoreFloats_ = 0;
    };
} // namespace

std::unique_ptr<Op> makeAttention (const OpArgs& args)
{
    return std::make_unique<Attention> (args);
}

} // namespace sonotype::engine::kernels
