// gemm: out[..., M, N] = alpha * op(a)[..., M, K] @ op(b)[..., K, N] + beta * c, batch axes broadcast.
// Covers PyTorch's mm, addmm, bmm, baddbmm, matmul and nn.Linear.
#include "engine/file/ModelError.h"
#include "engine/kernels/Broadcast.h"
#include "engine/kernels/Gemm.h"
#include "engine/kernels/Kernels.h"

#include <algorithm>

namespace sonotype::engine::kernels
{
namespace
{
    Shape head (const Shape& shape, int count)
    {
        Shape result;
        for (int axis = 0; axis < count; ++axis)
            result.push (shape[axis]);
        return result;
    }

    class Gemm final : public Op
    {
    public:
        explicit Gemm (const OpArgs& args)
        {
            const auto& a = args.input (0);
            const auto& b = args.input (1);
            if (a.rank() < 2 || b.rank() < 2)
                throw ModelError ("gemm operands need rank 2 or more, got " + a.toString() + " and " + b.toString());
            transA_ = args.flag ("trans_a", false);
            transB_ = args.flag ("trans_b", false);
            alpha_ = static_cast<float> (args.real ("alpha", 1.0, -kMaxFactor, kMaxFactor));
            beta_ = static_cast<float> (args.real ("beta", 1.0, -kMaxFactor, kMaxFactor));
            m_ = transA_ ? a[a.rank() - 1] : a[a.rank() - 2];
            k_ = transA_ ? a[a.rank() - 2] : a[a.rank() - 1];
            const int64_t kb = transB_ ? b[b.rank() - 1] : b[b.rank() - 2];
            n_ = transB_ ? b[b.rank() - 2] : b[b.rank() - 1];
            if (k_ != kb)
                throw ModelError ("gemm inner dimensions differ: " + a.toString() + (transA_ ? "^T" : "") + " @ " + b.toString() + (transB_ ? "^T" : ""));
            const Shape aBatch = head (a, a.rank() - 2), bBatch = head (b, b.rank() - 2);
            batch_ = broadcastShapes (aBatch, bBatch);
            Shape computed = batch_;
            computed.push (m_);
            computed.push (n_);
            args.checkOutput (0, computed);
            out_ = computed;
            hasC_ = args.hasInput (2);
            if (hasC_)
            {
                c_ = args.input (2);
                if (! broadcastsTo (c_, out_))
                    throw ModelError ("gemm bias " + c_.toString() + " does not broadcast to " + out_.toString());
            }
            // b shared by every batch and a untransposed: one GEMM over all rows of a.
            folded_ = bBatch.rank() == 0 && ! transA_;
            // No bias, or one per output column (a linear layer's): the product writes C whole,
            // bias and ReLU in its last pass, rather than adding into a filled C.
            overwrite_ = alpha_ == 1.0f && (! hasC_ || (beta_ == 1.0f && c_.numElements() == n_ && c_.rank() > 0 && c_[c_.rank() - 1] == n_));
            numBatches_ = batch_.numElements();
            plan_ = folded_ ? GemmPlan (m_ * numBatches_, n_, k_) : GemmPlan (m_, n_, k_);
            // Weights (b stored in the file, shared by every batch) are packed once, here.
            if (bBatch.rank() == 0 && args.constant (1) != nullptr)
                packedB_ = PackedOperand::right (plan_, k_, n_, { args.constant (1), transB_ ? k_ : n_, transB_, nullptr }, args.budget());
            const Shape aMatrices = aBatch, bMatrices = bBatch;
            aStrides_ = broadcastStrides (aMatrices, batch_);
            bStrides_ = broadcastStrides (bMatrices, batch_);
            multiplyAdds_ = static_cast<double> (numBatches_) * static_cast<double> (m_) * static_cast<double> (n_) * static_cast<double> (k_);
            // The output's fill (or the bias' broadcast), then the products: one over all rows when
            // folded, else one per batch, each walked as forEachRow walks the batch shape.
            work_.streamed = overwrite_ ? 0.0 : static_cast<double> (out_.numElements());
            if (hasC_ && ! overwrite_)
            {
                work_.scalar += static_cast<double> (out_.numElements());
                work_.calls += rowsOf (out_);
            }
            const bool bPacked = packedB_.data() != nullptr;
            if (folded_)
                work_ += plan_.work (false, bPacked);
            else
            {
                work_ += static_cast<double> (numBatches_) * plan_.work (false, bPacked);
                work_.calls += rowsOf (batch_);
            }
        }

        Work work() const noexcept override { return work_; }
        bool fuseRelu() noexcept override
        {
            if (residualInput_ != 0) // the ReLU would come after the residual's add
                return false;
            relu_ = true;
            return true;
        }
        // A residual connection's add after a linear layer (ReLU'd or not): in the product's last pass.
        bool fuseResidual (std::size_t input) noexcept override
        {
            if (! overwrite_ || ! folded_ || residualInput_ != 0)
                return false;
            residualInput_ = input;
            work_.streamed += static_cast<double> (out_.numElements());
            return true;
        }
        double multiplyAdds() const noexcept override { return multiplyAdds_; }

        std::size_t scratchFloats() const noexcept override { return plan_.scratchFloats(); }

        void run (const float* const* in, float* const* out, float* scratch) const noexcept override
        {
            float* y = out[0];
            const int64_t lda = transA_ ? m_ : k_;
            const int64_t ldb = transB_ ? k_ : n_;
            const float* bias = hasC_ ? in[2] : nullptr;
            if (overwrite_ && folded_)
            {
                plan_.runColumnBias ({ in[0], lda, false, nullptr }, { in[1], ldb, transB_, packedB_.data() }, y, n_, bias, relu_,
                                     residualInput_ != 0 ? in[residualInput_] : nullptr, n_, scratch);
                return;
            }
            if (overwrite_)
            {
                forEachProduct (
                    in, [&] (const GemmOperand& a, const GemmOperand& b, float* c) {
                        plan_.runColumnBias (a, b, c, n_, bias, relu_, nullptr, 0, scratch);
                    },
                    y);
                return;
            }
            if (hasC_)
            {
                broadcastCopy (in[2], c_, y, out_);
                if (beta_ != 1.0f)
                    for (int64_t i = 0, n = out_.numElements(); i < n; ++i)
                        y[i] *= beta_;
            }
            else // a scaled product without bias
                std::fill (y, y + out_.numElements(), 0.0f);
            if (folded_)
            {
                plan_.run ({ in[0], lda, false, nullptr }, { in[1], ldb, transB_, packedB_.data() }, y, n_, alpha_, scratch);
                applyRelu (y);
                return;
            }
            forEachProduct (
                in, [&] (const GemmOperand& a, const GemmOperand& b, float* c) { plan_.run (a, b, c, n_, alpha_, scratch); }, y);
            applyRelu (y);
        }

        /** Calls product(a, b, c) for each batch's matrices, as forEachRow walks the batch shape. */
        template <typename Product>
        void forEachProduct (const float* const* in, Product&& product, float* y) const noexcept
        {
            const int64_t lda = transA_ ? m_ : k_;
            const int64_t ldb = transB_ ? k_ : n_;
            const int64_t aMatrix = m_ * k_, bMatrix = k_ * n_, outMatrix = m_ * n_;
            const std::array<Strides, 2> strides { aStrides_, bStrides_ };
            int64_t batch = 0;
            const auto last = static_cast<std::size_t> (std::max (batch_.rank() - 1, 0));
            forEachRow (batch_, strides, [&] (int64_t, const std::array<int64_t, 2>& offsets, int64_t count) {
                for (int64_t j = 0; j < count; ++j)
                {
                    const int64_t aIndex = offsets[0] + j * strides[0][last], bIndex = offsets[1] + j * strides[1][last];
                    product (GemmOperand { in[0] + aIndex * aMatrix, lda, transA_, nullptr },
                             GemmOperand { in[1] + bIndex * bMatrix, ldb, transB_, packedB_.data() }, y + batch * outMatrix);
                    ++batch;
                }
            });
        }

        /** A fused ReLU (engine/Fusion.cpp), on the active path's vector kernel, as the relu op. */
        void applyRelu (float* y) const noexcept
        {
            if (relu_)
                plan_.kernels().copy (y, y, out_.numElements(), true);
        }

    private:
        bool transA_ = false, transB_ = false, hasC_ = false, folded_ = false, relu_ = false, overwrite_ = false;
        std::size_t residualInput_ = 0; // the input a fused residual add reads (0: none)
        float alpha_ = 1.0f, beta_ = 1.0f;
        int64_t m_ = 0, n_ = 0, k_ = 0, numBatches_ = 1;
        double multiplyAdds_ = 0.0;
        Work work_;
        Shape batch_, out_, c_;
        Strides aStrides_ {}, bStrides_ {};
        GemmPlan plan_;
        PackedOperand packedB_;
    };
} // namespace

std::unique_ptr<Op> makeGemm (const OpArgs& args)
{
    return std::make_unique<Gemm> (args);
}

} // namespace sonotype::engine::kernels
