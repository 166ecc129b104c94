// Max / average pooling and adaptive average pooling over the last 1 or 2 axes, as PyTorch's CPU kernels.
#include "engine/CpuDispatch.h"
#include "engine/file/CheckedArithmetic.h"
#include "engine/file/ModelError.h"
#include "engine/kernels/Kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace sonotype::engine::kernels
{
namespace
{
    // torch's pooling_output_shape, every step checked (the operands come from the file)
    int64_t pooledSize (int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation, bool ceilMode)
    {
        const char* what = "the pooling output size";
        const int64_t span = checkedAdd (checkedMul (dilation, kernel - 1, what), 1, what);
        const int64_t padded = checkedAdd (in, checkedMul (2, pad, what), what);
        const int64_t numerator = checkedAdd (checkedSub (padded, span, what), ceilMode ? stride - 1 : 0, what);
        int64_t out = (numerator >= 0 ? numerator / stride : -((-numerator + stride - 1) / stride)) + 1;
        if (ceilMode && (out - 1) * stride >= in + pad)
            --out;
        return out;
    }

    struct Geometry
    {
        int64_t planes = 1, inH = 1, inW = 1, outH = 1, outW = 1;
    };

    Geometry geometry (const Shape& in, const Shape& out, int numSpatial)
    {
        if (in.rank() < numSpatial + 1 || out.rank() != in.rank())
            throw ModelError ("pooling input " + in.toString() + " and output " + out.toString() + " do not fit " + std::to_string (numSpatial) + "-d pooling");
        Geometry g;
        g.planes = in.product (0, in.rank() - numSpatial);
        g.inW = in[in.rank() - 1];
        g.outW = out[out.rank() - 1];
        if (numSpatial == 2)
        {
            g.inH = in[in.rank() - 2];
            g.outH = out[out.rank() - 2];
        }
        if (out.product (0, out.rank() - numSpatial) != g.planes)
            throw ModelError ("pooling output " + out.toString() + " does not keep the leading axes of " + in.toString());
        return g;
    }

    class Pool final : public Op
    {
    public:
        Pool (const OpArgs& args, bool isMax) : isMax_ (isMax)
        {
            const auto kernel = args.integers ("kernel");
            const int numSpatial = static_cast<int> (kernel.size());
            if (numSpatial != 1 && numSpatial != 2)
                throw ModelError ("pooling kernel must have 1 or 2 entries");
            auto list = [&] (const char* name, int64_t fallback) {
                auto values = args.has (name) ? args.integers (name) : std::vector<int64_t> (kernel.size(), fallback);
                if (values.size() != kernel.size())
                    throw ModelError (std::string (name) + " must have as many entries as kernel");
                return values;
            };
            const auto stride = list ("stride", 1), padding = list ("padding", 0), dilation = list ("dilation", 1);
            const bool ceilMode = args.flag ("ceil_mode", false);
            countIncludePad_ = args.flag ("count_include_pad", true);
            divisorOverride_ = args.integer ("divisor_override", 0);
            const auto& in = args.input (0);
            const std::size_t w = kernel.size() - 1;
            kW_ = kernel[w];
            sW_ = stride[w];
            pW_ = padding[w];
            dW_ = dilation[w];
            twoDimensional_ = numSpatial == 2;
            if (numSpatial == 2)
            {
                kH_ = kernel[0];
                sH_ = stride[0];
                pH_ = padding[0];
                dH_ = dilation[0];
            }
            if (kH_ < 1 || kW_ < 1 || sH_ < 1 || sW_ < 1 || dH_ < 1 || dW_ < 1 || pH_ < 0 || pW_ < 0 || pH_ > kH_ / 2 || pW_ > kW_ / 2)
                throw ModelError ("pooling needs kernel, stride, dilation >= 1 and 0 <= padding <= kernel / 2");
            if (in.rank() < numSpatial + 1)
                throw ModelError ("pooling input " + in.toString() + " has too few axes");
            const int64_t outW = pooledSize (in[in.rank() - 1], kW_, pW_, sW_, dW_, ceilMode);
            const int64_t outH = numSpatial == 2 ? pooledSize (in[in.rank() - 2], kH_, pH_, sH_, dH_, ceilMode) : 1;
            if (outW < 1 || outH < 1)
                throw ModelError ("pooling output would be empty for input " + in.toString());
            Shape computed = in.with (in.rank() - 1, outW);
            if (numSpatial == 2)
                computed = computed.with (in.rank() - 2, outH);
            for (int axis = 0; axis < computed.rank(); ++axis)
                if (computed[axis] < 1)
                    throw ModelError ("pooling output would be empty for input " + in.toString());
            args.checkOutput (0, computed);
            g_ = geometry (in, computed, numSpatial);
            if (divisorOverride_ < 0)
                throw ModelError ("divisor_override must not be negative");
            // Outputs whose whole window lies inside the input need no bounds checks.
            interiorY_ = interior (g_.inH, g_.outH, kH_, sH_, pH_, dH_);
            interiorX_ = interior (g_.inW, g_.outW, kW_, sW_, pW_, dW_);
            // Interior outputs: a vectorised pass per tap over each row's run of them (average
            // pooling: summed in float in the taps' order, then divided, as torch does; not with a
            // dilation, which average pooling does not have). Every other output: a call and a
            // scalar loop over its taps (a sum in double for avg).
            if (! isMax_ && (dH_ != 1 || dW_ != 1))
                interiorY_ = { 0, 0 };
            const auto taps = static_cast<double> (kH_) * static_cast<double> (kW_);
            const auto planes = static_cast<double> (g_.planes);
            const auto interiorRows = planes * static_cast<double> (interiorY_.second - interiorY_.first);
            const double interiorOutputs = interiorRows * static_cast<double> (interiorX_.second - interiorX_.first);
            const double edgeOutputs = static_cast<double> (computed.numElements()) - interiorOutputs;
            work_.streamed = 2.0 * interiorOutputs * taps + (isMax_ ? 0.0 : 2.0 * interiorOutputs);
            work_.calls = planes * static_cast<double> (g_.outH) + interiorRows * taps + edgeOutputs;
            work_.scalar = 2.0 * edgeOutputs * taps;
        }

        Work work() const noexcept override { return work_; }

        std::optional<MaxPoolTiling> maxPoolTiling() const noexcept override
        {
            const bool tiles = isMax_ && twoDimensional_ && sH_ == kH_ && sW_ == kW_ && kH_ <= 2 && kW_ <= 2 && kH_ * kW_ > 1 && pH_ == 0 && pW_ == 0
                               && dH_ == 1 && dW_ == 1;
            if (! tiles)
                return std::nullopt;
            return MaxPoolTiling { kH_, kW_, g_.outH, g_.outW };
        }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            for (int64_t p = 0; p < g_.planes; ++p)
            {
                const float* x = in[0] + p * g_.inH * g_.inW;
                float* y = out[0] + p * g_.outH * g_.outW;
                for (int64_t oy = 0; oy < g_.outH; ++oy)
                {
                    float* row = y + oy * g_.outW;
                    const bool inside = oy >= interiorY_.first && oy < interiorY_.second;
                    const int64_t x0 = inside ? interiorX_.first : g_.outW, x1 = inside ? interiorX_.second : g_.outW;
                    for (int64_t ox = 0; ox < x0; ++ox)
                        row[ox] = isMax_ ? maxAt (x, oy, ox) : averageAt (x, oy, ox);
                    if (x0 < x1)
                        poolInside (x + (oy * sH_ - pH_) * g_.inW, row, x0, x1);
                    for (int64_t ox = std::max (x0, x1); ox < g_.outW; ++ox)
                        row[ox] = isMax_ ? maxAt (x, oy, ox) : averageAt (x, oy, ox);
                }
            }
        }

    private:
        /** The outputs [first, second) along one axis whose window lies wholly inside the input. */
        static std::pair<int64_t, int64_t> interior (int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation)
        {
            const int64_t first = (pad + stride - 1) / stride;
            const int64_t lastStart = in - 1 - (kernel - 1) * dilation + pad; // o * stride <= lastStart
            const int64_t end = lastStart < 0 ? 0 : std::min (out, lastStart / stride + 1);
            return { std::min (first, end), end };
        }

        /** Pooling of one output row's outputs [x0, x1), all of whose windows are inside: tap by
            tap over the row (vectorised for strides 1 and 2). Max: with selects instead of
            branches, a NaN wins and stays, as in torch. Average: the float sum in the order torch
            adds the taps, divided by the window's size (or the divisor override). */
        void poolInside (const float* top, float* row, int64_t x0, int64_t x1) const noexcept
        {
            std::fill (row + x0, row + x1, isMax_ ? -std::numeric_limits<float>::infinity() : 0.0f);
            const auto into = isMax_ ? kernels_->maxInto : kernels_->addInto;
            for (int64_t ky = 0; ky < kH_; ++ky)
                for (int64_t kx = 0; kx < kW_; ++kx)
                {
                    const float* tap = top + ky * dH_ * g_.inW + kx * dW_ - pW_;
                    into (tap + x0 * sW_, sW_, row + x0, x1 - x0);
                }
            if (! isMax_)
            {
                const auto divisor = static_cast<float> (divisorOverride_ != 0 ? divisorOverride_ : kH_ * kW_);
                for (int64_t ox = x0; ox < x1; ++ox)
                    row[ox] /= divisor;
            }
        }

        float maxAt (const float* x, int64_t oy, int64_t ox) const noexcept
        {
            float best = -std::numeric_limits<float>::infinity();
            for (int64_t ky = 0; ky < kH_; ++ky)
            {
                const int64_t iy = oy * sH_ - pH_ + ky * dH_;
                if (iy < 0 || iy >= g_.inH)
                    continue;
                for (int64_t kx = 0; kx < kW_; ++kx)
                {
                    const int64_t ix = ox * sW_ - pW_ + kx * dW_;
                    if (ix < 0 || ix >= g_.inW)
                        continue;
                    const float v = x[iy * g_.inW + ix];
                    if (v > best || std::isnan (v))
                        best = v;
                    if (std::isnan (v))
                        return v;
                }
            }
            return best;
        }

        float averageAt (const float* x, int64_t oy, int64_t ox) const noexcept
        {
            int64_t y0 = oy * sH_ - pH_, x0 = ox * sW_ - pW_;
            int64_t y1 = std::min (y0 + kH_, g_.inH + pH_), x1 = std::min (x0 + kW_, g_.inW + pW_);
            const int64_t poolSize = (y1 - y0) * (x1 - x0);
            y0 = std::max<int64_t> (y0, 0);
            x0 = std::max<int64_t> (x0, 0);
            y1 = std::min (y1, g_.inH);
            x1 = std::min (x1, g_.inW);
            if (y0 >= y1 || x0 >= x1)
                return 0.0f;
            double sum = 0.0;
            for (int64_t iy = y0; iy < y1; ++iy)
                for (int64_t ix = x0; ix < x1; ++ix)
                    sum += x[iy * g_.inW + ix];
            const int64_t divisor = divisorOverride_ != 0 ? divisorOverride_ : countIncludePad_ ? poolSize
                                                                                                : (y1 - y0) * (x1 - x0);
            return static_cast<float> (sum / static_cast<double> (divisor));
        }

        bool isMax_, twoDimensional_ = false;
        bool countIncludePad_ = true;
        int64_t divisorOverride_ = 0;
        int64_t kH_ = 1, kW_ = 1, sH_ = 1, sW_ = 1, pH_ = 0, pW_ = 0, dH_ = 1, dW_ = 1;
        Geometry g_;
        Work work_;
        std::pair<int64_t, int64_t> interiorY_ {}, interiorX_ {};
        const KernelTable* kernels_ = activeKernelPath().table;
    };

    class AdaptiveAvgPool final : public Op
    {
    public:
        explicit AdaptiveAvgPool (const OpArgs& args)
        {
            const auto numSpatial = args.integer ("num_spatial", 2);
            if (numSpatial != 1 && numSpatial != 2)
                throw ModelError ("num_spatial must be 1 or 2");
            g_ = geometry (args.input (0), args.output (0), static_cast<int> (numSpatial));
            if (g_.outH < 1 || g_.outW < 1)
                throw ModelError ("adaptive pooling output size must be at least 1");
            // run() computes (o + 1) * in for each output position o.
            checkedMul (g_.outH + 1, g_.inH, "adaptive pooling window bounds");
            checkedMul (g_.outW + 1, g_.inW, "adaptive pooling window bounds");
            // Each output window spans at most in / out + 2 positions along an axis: a call and a sum
            // in double over its taps per output.
            auto span = [] (int64_t in, int64_t out) { return static_cast<double> (in) + 2.0 * static_cast<double> (out); };
            work_.scalar = 2.0 * static_cast<double> (g_.planes) * span (g_.inH, g_.outH) * span (g_.inW, g_.outW);
            work_.calls = static_cast<double> (g_.planes) * static_cast<double> (g_.outH) * static_cast<double> (g_.outW);
        }

        Work work() const noexcept override { return work_; }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            for (int64_t p = 0; p < g_.planes; ++p)
            {
                const float* x = in[0] + p * g_.inH * g_.inW;
                float* y = out[0] + p * g_.outH * g_.outW;
                for (int64_t oy = 0; oy < g_.outH; ++oy)
                {
                    const int64_t y0 = oy * g_.inH / g_.outH, y1 = ((oy + 1) * g_.inH + g_.outH - 1) / g_.outH;
                    for (int64_t ox = 0; ox < g_.outW; ++ox)
                    {
                        const int64_t x0 = ox * g_.inW / g_.outW, x1 = ((ox + 1) * g_.inW + g_.outW - 1) / g_.outW;
                        double sum = 0.0;
                        for (int64_t iy = y0; iy < y1; ++iy)
                            for (int64_t ix = x0; ix < x1; ++ix)
                                sum += x[iy * g_.inW + ix];
                        y[oy * g_.outW + ox] = static_cast<float> (sum / static_cast<double> ((y1 - y0) * (x1 - x0)));
                    }
                }
            }
        }

    private:
        Geometry g_;
        Work work_;
    };
} // namespace

std::unique_ptr<Op> makePooling (const OpArgs& args)
{
    switch (args.kind())
    {
        case OpKind::maxPool: return std::make_unique<Pool> (args, true);
        case OpKind::avgPool: return std::make_unique<Pool> (args, false);
        case OpKind::adaptiveAvgPool: return std::make_unique<AdaptiveAvgPool> (args);
        default: break;
    }
    throw ModelError ("not a pooling op: " + std::string (opName (args.kind())));
}

} // namespace sonotype::engine::kernels
