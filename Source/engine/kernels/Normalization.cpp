// LayerNorm over the trailing axes from `axis` on, and eval-mode BatchNorm over axis 1.
#include "engine/CpuDispatch.h"
#include "engine/file/ModelError.h"
#include "engine/kernels/Kernels.h"

#include <cmath>

namespace sonotype::engine::kernels
{
namespace
{
    Shape tail (const Shape& shape, int from)
    {
        Shape result;
        for (int axis = from; axis < shape.rank(); ++axis)
            result.push (shape[axis]);
        return result;
    }

    class LayerNorm final : public Op
    {
    public:
        explicit LayerNorm (const OpArgs& args)
        {
            const auto& in = args.input (0);
            const int axis = args.axis ("axis", in.rank());
            eps_ = args.real ("eps", 0.0, 1.0);
            const Shape normalized = tail (in, axis);
            for (std::size_t i = 1; i <= 2; ++i)
                if (args.hasInput (i) && args.input (i) != normalized)
                    throw ModelError (std::string (i == 1 ? "weight" : "bias") + " shape " + args.input (i).toString()
                                      + " differs from the normalized shape " + normalized.toString());
            hasWeight_ = args.hasInput (1);
            hasBias_ = args.hasInput (2);
            args.checkOutput (0, in);
            size_ = normalized.numElements();
            rows_ = size_ == 0 ? 0 : in.numElements() / size_;
        }

        Work work() const noexcept override
        {
            // Two more passes over each row (mean and variance, then the normalisation) and the
            // vector kernel's fixed cost per row.
            Work work;
            work.streamed = 2.0 * static_cast<double> (rows_) * static_cast<double> (size_);
            work.calls = 3.5 * static_cast<double> (rows_);
            return work;
        }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            kernels_->layerNormRows (in[0], out[0], rows_, size_, hasWeight_ ? in[1] : nullptr, hasBias_ ? in[2] : nullptr, static_cast<float> (eps_));
        }

    private:
        double eps_ = 1e-5;
        bool hasWeight_ = false, hasBias_ = false;
        int64_t size_ = 0, rows_ = 0;
        const KernelTable* kernels_ = activeKernelPath().table;
    };

    class BatchNorm final : public Op
    {
    public:
        explicit BatchNorm (const OpArgs& args)
        {
            const auto& in = args.input (0);
            if (in.rank() < 2)
                throw ModelError ("batch_norm needs an input of rank 2 or more, got " + in.toString());
            channels_ = in[1];
            const Shape perChannel { channels_ };
            for (std::size_t i = 1; i <= 4; ++i)
                if (args.hasInput (i) && args.input (i) != perChannel)
                    throw ModelError ("batch_norm parameter " + std::to_string (i) + " has shape " + args.input (i).toString() + ", expected "
                                      + perChannel.toString());
            hasWeight_ = args.hasInput (3);
            hasBias_ = args.hasInput (4);
            eps_ = args.real ("eps", 0.0, 1.0);
            args.checkOutput (0, in);
            batches_ = in[0];
            inner_ = in.product (2, in.rank());
        }

        Work work() const noexcept override
        {
            Work work; // per channel a square root, per batch and channel a loop
            work.scalar = 3.0 * static_cast<double> (channels_);
            work.calls = 1.5 * static_cast<double> (batches_) * static_cast<double> (channels_);
            return work;
        }

        bool scaleShift (const std::vector<const float*>& constants, std::vector<float>& scale, std::vector<float>& shift) const override
        {
            const auto stored = [&] (std::size_t i) { return i < constants.size() ? constants[i] : nullptr; };
            if (stored (1) == nullptr || stored (2) == nullptr || (hasWeight_ && stored (3) == nullptr) || (hasBias_ && stored (4) == nullptr))
                return false;
            scale.resize (static_cast<std::size_t> (channels_));
            shift.resize (static_cast<std::size_t> (channels_));
            for (int64_t c = 0; c < channels_; ++c)
            {
                const auto i = static_cast<std::size_t> (c);
                // The same float arithmetic as run().
                const float invstd = 1.0f / std::sqrt (stored (2)[i] + static_cast<float> (eps_));
                scale[i] = hasWeight_ ? stored (3)[i] * invstd : invstd;
                shift[i] = (hasBias_ ? stored (4)[i] : 0.0f) - stored (1)[i] * scale[i];
            }
            return true;
        }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            const float *mean = in[1], *var = in[2];
            for (int64_t c = 0; c < channels_; ++c)
            {
                // As PyTorch's CPU inference kernel: y = x * alpha + beta.
                const float invstd = 1.0f / std::sqrt (var[c] + static_cast<float> (eps_));
                const float alpha = hasWeight_ ? in[3][c] * invstd : invstd;
                const float beta = (hasBias_ ? in[4][c] : 0.0f) - mean[c] * alpha;
                for (int64_t b = 0; b < batches_; ++b)
                {
                    const int64_t base = (b * channels_ + c) * inner_;
                    for (int64_t i = 0; i < inner_; ++i)
                        out[0][base + i] = in[0][base + i] * alpha + beta;
                }
            }
        }

    private:
        int64_t channels_ = 0, batches_ = 0, inner_ = 0;
        bool hasWeight_ = false, hasBias_ = false;
        double eps_ = 1e-5;
    };
} // namespace

std::unique_ptr<Op> makeNormalization (const OpArgs& args)
{
    switch (args.kind())
    {
        case OpKind::layerNorm: return std::make_unique<LayerNorm> (args);
        case OpKind::batchNorm: return std::make_unique<BatchNorm> (args);
        default: break;
    }
    throw ModelError ("not a normalization: " + std::string (opName (args.kind())));
}

} // namespace sonotype::engine::kernels
