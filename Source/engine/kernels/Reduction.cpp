// Reductions over any set of axes (sum, mean, max, min, var), arg-reductions, softmax.
// Sums accumulate in double: at least as accurate as PyTorch's float cascade sums.
#include "engine/CpuDispatch.h"
#include "engine/file/ModelError.h"
#include "engine/kernels/Broadcast.h"
#include "engine/kernels/Kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sonotype::engine::kernels
{
namespace
{
    enum class ReduceKind
    {
        sum,
        mean,
        max,
        min,
        var
    };

    class Reduce final : public Op
    {
    public:
        Reduce (const OpArgs& args, ReduceKind kind) : kind_ (kind)
        {
            const auto& in = args.input (0);
            const auto axes = args.integers ("axes");
            const bool keepdim = args.flag ("keepdim", false);
            correction_ = args.real ("correction", 1.0, -16777216.0, 16777216.0);
            // A 0-d input takes axis 0 or -1 as PyTorch does: the reduction of its one element (kept_ and
            // the output stay 0-d, keepdim or not).
            std::array<bool, kMaxRank> reduced {};
            for (auto value : axes)
            {
                const int axis = checkedAxis (value, in.rank(), true, "reduction axis");
                if (reduced[static_cast<std::size_t> (axis)])
                    throw ModelError ("reduction axis " + std::to_string (value) + " is listed twice");
                reduced[static_cast<std::size_t> (axis)] = true;
            }
            Shape computed;
            kept_ = Shape();
            Shape reducedShape;
            std::array<int64_t, kMaxRank> reducedStrides {};
            const auto inStrides = in.strides();
            int numReduced = 0;
            for (int axis = 0; axis < in.rank(); ++axis)
            {
                const bool isReduced = reduced[static_cast<std::size_t> (axis)];
                if (! isReduced || keepdim)
                    computed.push (isReduced ? 1 : in[axis]);
                kept_.push (isReduced ? 1 : in[axis]);
                if (isReduced)
                {
                    reducedShape.push (in[axis]);
                    reducedStrides[static_cast<std::size_t> (numReduced++)] = inStrides[static_cast<std::size_t> (axis)];
                }
            }
            args.checkOutput (0, computed);
            strides_[0] = inStrides;
            // Offsets of the reduced sub-block's elements relative to its first element.
            args.claimTable (static_cast<std::uint64_t> (reducedShape.numElements()), sizeof (int64_t), "reduction offsets");
            offsets_.reserve (static_cast<std::size_t> (reducedShape.numElements()));
            const std::array<Strides, 1> subStrides { reducedStrides };
            const int64_t innerStride = numReduced > 0 ? reducedStrides[static_cast<std::size_t> (numReduced - 1)] : 0;
            forEachRow (reducedShape, subStrides, [&] (int64_t, const std::array<int64_t, 1>& offsets, int64_t count) {
                for (int64_t j = 0; j < count; ++j)
                    offsets_.push_back (offsets[0] + j * innerStride);
            });
            if (kind == ReduceKind::var && static_cast<double> (offsets_.size()) - correction_ <= 0.0)
                divisorInvalid_ = true;
            // Per output a call; per element of its block a read through the offset table and a
            // dependent step in double (two passes for var), scattered when the block is not contiguous.
            // A sum or mean whose outputs lie side by side takes kBlock of them at once (run()):
            // their elements are read kBlock in a row, the adds side by side.
            const auto outputs = static_cast<double> (kept_.numElements());
            const auto elements = outputs * static_cast<double> (offsets_.size());
            const double passes = kind == ReduceKind::var ? 2.0 : 1.0;
            const auto last = static_cast<std::size_t> (std::max (kept_.rank() - 1, 0));
            inBlocks_ = (kind == ReduceKind::sum || kind == ReduceKind::mean) && strides_[0][last] == 1;
            const double row = kept_.rank() > 0 ? static_cast<double> (kept_[kept_.rank() - 1]) : 1.0;
            const double blocked = inBlocks_ && row >= kBlock ? std::floor (row / kBlock) * kBlock / row : 0.0;
            work_.calls = outputs * (1.0 - blocked) + outputs * blocked / kBlock + 0.25 * rowsOf (kept_);
            work_.streamed = passes * elements;
            work_.scalar = 2.0 * passes * elements * (1.0 - blocked) + elements * blocked;
            if (! offsets_.empty() && offsets_.back() != static_cast<int64_t> (offsets_.size()) - 1)
                work_ += (1.0 - blocked) * passes * Work::gathered (elements, static_cast<double> (in.numElements()));
        }

        Work work() const noexcept override { return work_; }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            const float* x = in[0];
            float* y = out[0];
            const auto last = static_cast<std::size_t> (std::max (kept_.rank() - 1, 0));
            const int64_t keptInner = strides_[0][last];
            const auto count = static_cast<double> (offsets_.size());
            int64_t index = 0;
            forEachRow (kept_, strides_, [&] (int64_t, const std::array<int64_t, 1>& rowOffsets, int64_t rowCount) {
                int64_t j = 0;
                if (inBlocks_) // outputs side by side in memory: kBlock sums at once, each in its own order
                    for (; j + kBlock <= rowCount; j += kBlock, index += kBlock)
                        sumBlock (x + rowOffsets[0] + j, count, y + index);
                for (; j < rowCount; ++j)
                {
                    const float* base = x + rowOffsets[0] + j * keptInner;
                    y[index++] = reduce (base, count);
                }
            });
        }

    private:
        static constexpr int kBlock = 8;
        bool inBlocks_ = false; // a sum or mean whose outputs lie side by side: kBlock at a time

        /** y[j] = sum (or mean) of the block at base + j, for kBlock consecutive outputs: the same
            sums as reduce() (in double, in the offsets' order), side by side in vector registers. */
        void sumBlock (const float* base, double count, float* y) const noexcept
        {
            double sums[kBlock] = {};
            for (auto offset : offsets_)
                for (int j = 0; j < kBlock; ++j)
                    sums[j] += base[offset + j];
            for (int j = 0; j < kBlock; ++j)
                y[j] = static_cast<float> (kind_ == ReduceKind::mean ? sums[j] / count : sums[j]);
        }

        float reduce (const float* base, double count) const noexcept
        {
            switch (kind_)
            {
                case ReduceKind::sum:
                case ReduceKind::mean:
                {
                    double sum = 0.0;
                    for (auto offset : offsets_)
                        sum += base[offset];
                    return static_cast<float> (kind_ == ReduceKind::mean ? sum / count : sum);
                }
                case ReduceKind::max:
                case ReduceKind::min:
                {
                    if (offsets_.empty())
                        return std::numeric_limits<float>::quiet_NaN();
                    float best = base[offsets_[0]];
                    for (auto offset : offsets_)
                    {
                        const float v = base[offset];
                        if (std::isnan (v))
                            return v;
                        best = kind_ == ReduceKind::max ? std::max (best, v) : std::min (best, v);
                    }
                    return best;
                }
                case ReduceKind::var:
                {
                    if (divisorInvalid_)
                        return std::numeric_limits<float>::quiet_NaN();
                    double sum = 0.0;
                    for (auto offset : offsets_)
                        sum += base[offset];
                    const double mean = sum / count;
                    double squares = 0.0;
                    for (auto offset : offsets_)
                        squares += (base[offset] - mean) * (base[offset] - mean);
                    return static_cast<float> (squares / (count - correction_));
                }
            }
            return 0.0f;
        }

        ReduceKind kind_;
        Shape kept_;
        std::array<Strides, 1> strides_ {};
        std::vector<int64_t> offsets_;
        double correction_ = 1.0;
        bool divisorInvalid_ = false;
        Work work_;
    };

    /** Columns a pass off the last axis walks at a time (softmax, cumsum): their running sums stay in L1. */
    constexpr int64_t kColumnBlock = 512;

    // Shared by arg-reductions, softmax, cumsum and topk: the input seen as [outer, dim, inner]; a
    // 0-d input (axis 0 or -1, see OpArgs::axisOrScalar) as [1, 1, 1], as PyTorch computes it.
    struct AxisView
    {
        int64_t outer = 1, dim = 1, inner = 1;
        AxisView (const Shape& shape, int axis)
        {
            if (shape.rank() == 0)
                return;
            outer = shape.product (0, axis);
            dim = shape[axis];
            inner = shape.product (axis + 1, shape.rank());
        }
    };

    /** The steps of `passes` scalar passes along the axis of an AxisView over a tensor of
        `floats`: a step each, scattered when the axis is not the innermost. */
    Work axisPasses (const AxisView& view, double passes, double floats)
    {
        const double elements = static_cast<double> (view.outer) * static_cast<double> (view.dim) * static_cast<double> (view.inner);
        Work work;
        work.scalar = passes * elements;
        work.calls = static_cast<double> (view.outer) * static_cast<double> (view.inner);
        if (view.inner > 1)
            work += passes * Work::gathered (elements, floats);
        return work;
    }

    /** The input's shape with axis `axis` set to `size` (removed when `keep` is false); a 0-d
        input gives a 0-d output, as in PyTorch. */
    Shape withAxis (const Shape& in, int axis, int64_t size, bool keep)
    {
        Shape result;
        for (int a = 0; a < in.rank(); ++a)
            if (a != axis || keep)
                result.push (a == axis ? size : in[a]);
        return result;
    }

    class ArgReduce final : public Op
    {
    public:
        ArgReduce (const OpArgs& args, bool isMax) : view_ (args.input (0), args.axisOrScalar ("axis", args.input (0).rank())), isMax_ (isMax)
        {
            const auto& in = args.input (0);
            args.checkOutput (0, withAxis (in, args.axisOrScalar ("axis", in.rank()), 1, args.flag ("keepdim", false)));
            if (view_.dim == 0)
                throw ModelError ("arg-reduction over an empty axis");
        }

        Work work() const noexcept override { return axisPasses (view_, 2.0, static_cast<double> (view_.outer * view_.dim * view_.inner)); }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            for (int64_t o = 0; o < view_.outer; ++o)
                for (int64_t i = 0; i < view_.inner; ++i)
                {
                    const float* x = in[0] + o * view_.dim * view_.inner + i;
                    int64_t best = 0;
                    for (int64_t d = 1; d < view_.dim; ++d)
                    {
                        const float v = x[d * view_.inner], b = x[best * view_.inner];
                        if (std::isnan (b))
                            break;
                        if (std::isnan (v) || (isMax_ ? v > b : v < b))
                            best = d;
                    }
                    out[0][o * view_.inner + i] = static_cast<float> (best);
                }
        }

    private:
        AxisView view_;
        bool isMax_;
    };

    class Softmax final : public Op
    {
    public:
        Softmax (const OpArgs& args, bool logarithmic) : view_ (args.input (0), args.axisOrScalar ("axis", args.input (0).rank())), log_ (logarithmic)
        {
            args.checkOutput (0, args.input (0));
        }

        Work work() const noexcept override
        {
            const auto rows = static_cast<double> (view_.outer) * static_cast<double> (view_.inner);
            const auto elements = rows * static_cast<double> (view_.dim);
            Work work;
            if (view_.inner == 1 && ! log_)
            {
                // The copy and the vector kernel, whose fixed cost per row is that of a dozen calls.
                work.streamed = 2.0 * elements;
                work.vectorMath = elements;
                work.calls = 12.0 * rows;
                return work;
            }
            // Three passes (maximum, exp and sum, scale or subtract), a C library exp per element and
            // (log_softmax) a log per distribution; off the last axis row by row over blocks of columns.
            const double blocks = std::ceil (static_cast<double> (view_.inner) / static_cast<double> (kColumnBlock));
            work.streamed = 3.0 * elements;
            work.scalar = 2.0 * elements;
            work.calls = view_.inner == 1 ? rows : 3.0 * static_cast<double> (view_.outer) * blocks * static_cast<double> (view_.dim);
            work.libm = elements + (log_ ? rows : 0.0);
            return work;
        }

        std::size_t scratchFloats() const noexcept override
        {
            // Off the last axis: a block's sums in double, maxima and factors.
            return view_.inner == 1 ? 0 : 4 * static_cast<std::size_t> (std::min (view_.inner, kColumnBlock));
        }

        void run (const float* const* in, float* const* out, float* scratch) const noexcept override
        {
            const int64_t n = view_.dim, stride = view_.inner;
            if (stride == 1 && ! log_)
            {
                // Over the last axis: the vector kernel, in place on a copy.
                std::copy (in[0], in[0] + view_.outer * n, out[0]);
                kernels_->softmaxRows (out[0], view_.outer, n, n);
                return;
            }
            if (stride == 1) // log_softmax over the last axis: a row at a time, the sum in a register
            {
                for (int64_t o = 0; o < view_.outer; ++o)
                {
                    const float* x = in[0] + o * n;
                    float* y = out[0] + o * n;
                    float maximum = -std::numeric_limits<float>::infinity();
                    for (int64_t d = 0; d < n; ++d)
                        maximum = std::max (maximum, x[d]);
                    double sum = 0.0;
                    for (int64_t d = 0; d < n; ++d)
                        sum += std::exp (x[d] - maximum);
                    const auto logSum = static_cast<float> (std::log (sum));
                    for (int64_t d = 0; d < n; ++d)
                        y[d] = x[d] - maximum - logSum;
                }
                return;
            }
            // Off the last axis, each of the `stride` columns of a block is one distribution along d:
            // the passes walk the block row by row over up to kColumnBlock columns at a time
            // (contiguous whatever the axis), each column with its own maximum and sum in scratch.
            // Per column: the same arithmetic in the same order as one column at a time.
            const int64_t block = std::min (stride, kColumnBlock); // scratchFloats(): 4 * block
            auto* sums = reinterpret_cast<double*> (scratch);
            float* maxima = scratch + 2 * block;
            float* factors = maxima + block; // log_softmax: the log of the sum; softmax: 1 / sum
            for (int64_t o = 0; o < view_.outer; ++o)
                for (int64_t i0 = 0; i0 < stride; i0 += kColumnBlock)
                {
                    const int64_t width = std::min (kColumnBlock, stride - i0);
                    const float* x = in[0] + o * n * stride + i0;
                    float* y = out[0] + o * n * stride + i0;
                    std::fill (maxima, maxima + width, -std::numeric_limits<float>::infinity());
                    std::fill (sums, sums + width, 0.0);
                    for (int64_t d = 0; d < n; ++d)
                        for (int64_t i = 0; i < width; ++i)
                            maxima[i] = std::max (maxima[i], x[d * stride + i]);
                    if (log_)
                    {
                        for (int64_t d = 0; d < n; ++d)
                            for (int64_t i = 0; i < width; ++i)
                                sums[i] += std::exp (x[d * stride + i] - maxima[i]);
                        for (int64_t i = 0; i < width; ++i)
                            factors[i] = static_cast<float> (std::log (sums[i]));
                        for (int64_t d = 0; d < n; ++d)
                            for (int64_t i = 0; i < width; ++i)
                                y[d * stride + i] = x[d * stride + i] - maxima[i] - factors[i];
                    }
                    else
                    {
                        for (int64_t d = 0; d < n; ++d)
                            for (int64_t i = 0; i < width; ++i)
                            {
                                const float e = std::exp (x[d * stride + i] - maxima[i]);
                                y[d * stride + i] = e;
                                sums[i] += e;
                            }
                        for (int64_t i = 0; i < width; ++i)
                            factors[i] = static_cast<float> (1.0 / sums[i]);
                        for (int64_t d = 0; d < n; ++d)
                            for (int64_t i = 0; i < width; ++i)
                                y[d * stride + i] *= factors[i];
                    }
                }
        }

    private:
        AxisView view_;
        bool log_;
        const KernelTable* kernels_ = activeKernelPath().table;
    };

    /** Running sum along an axis, accumulated in double as PyTorch's CPU kernel does. */
    class Cumsum final : public Op
    {
    public:
        explicit Cumsum (const OpArgs& args) : view_ (args.input (0), args.axisOrScalar ("axis", args.input (0).rank()))
        {
            args.checkOutput (0, args.input (0));
        }

        Work work() const noexcept override
        {
            // An add in double and a store per element: along each row, or row by row over blocks of columns.
            const double elements = static_cast<double> (view_.outer) * static_cast<double> (view_.dim) * static_cast<double> (view_.inner);
            const double blocks = std::ceil (static_cast<double> (view_.inner) / static_cast<double> (kColumnBlock));
            Work work;
            work.scalar = view_.inner == 1 ? 2.0 * elements : elements;
            work.calls = static_cast<double> (view_.outer) * (view_.inner == 1 ? 1.0 : blocks * static_cast<double> (view_.dim));
            return work;
        }

        std::size_t scratchFloats() const noexcept override
        {
            return view_.inner == 1 ? 0 : 2 * static_cast<std::size_t> (std::min (view_.inner, kColumnBlock)); // sums in double
        }

        void run (const float* const* in, float* const* out, float* scratch) const noexcept override
        {
            const int64_t n = view_.dim, stride = view_.inner;
            if (stride == 1) // along the last axis: a row at a time, the sum in a register
            {
                for (int64_t o = 0; o < view_.outer; ++o)
                {
                    double sum = 0.0;
                    for (int64_t d = 0; d < n; ++d)
                    {
                        sum += static_cast<double> (in[0][o * n + d]);
                        out[0][o * n + d] = static_cast<float> (sum);
                    }
                }
                return;
            }
            // Off the last axis: each column of a block summed along d in its own double, row by row
            // over up to kColumnBlock columns at a time.
            auto* sums = reinterpret_cast<double*> (scratch);
            for (int64_t o = 0; o < view_.outer; ++o)
                for (int64_t i0 = 0; i0 < stride; i0 += kColumnBlock)
                {
                    const int64_t width = std::min (kColumnBlock, stride - i0);
                    const float* x = in[0] + o * n * stride + i0;
                    float* y = out[0] + o * n * stride + i0;
                    std::fill (sums, sums + width, 0.0);
                    for (int64_t d = 0; d < n; ++d)
                        for (int64_t i = 0; i < width; ++i)
                        {
                            sums[i] += static_cast<double> (x[d * stride + i]);
                            y[d * stride + i] = static_cast<float> (sums[i]);
                        }
                }
        }

    private:
        AxisView view_;
    };

    /** The k largest (or smallest) entries along an axis, sorted, and their indices (optional second
        output). NaN counts as larger than every number, as in PyTorch; equal values keep index order. */
    class TopK final : public Op
    {
    public:
        explicit TopK (const OpArgs& args) : view_ (args.input (0), args.axisOrScalar ("axis", args.input (0).rank()))
        {
            const auto& in = args.input (0);
            const int axis = args.axisOrScalar ("axis", in.rank());
            k_ = args.integer ("k");
            largest_ = args.flag ("largest", true);
            if (k_ < 0 || k_ > view_.dim)
                throw ModelError ("topk k = " + std::to_string (k_) + " for an axis of " + std::to_string (view_.dim));
            if (view_.dim > (int64_t { 1 } << 24))
                throw ModelError ("topk over an axis of more than 2^24 entries");
            // A 0-d input gives its value and index 0 for k = 0 and k = 1 alike, as PyTorch does.
            if (in.rank() == 0)
                k_ = 1;
            const Shape computed = withAxis (in, axis, k_, true);
            args.checkOutput (0, computed);
            writeIndices_ = args.numOutputs() > 1;
            if (writeIndices_)
                args.checkOutput (1, computed);
        }

        Work work() const noexcept override
        {
            // Per row: the index fill and a compare per element (through the index: scattered when the
            // axis is not the innermost), then the heap of k's sift steps: the worst case, counted, is
            // input in increasing order, where every element replaces the heap's top and sinks
            // through it (measured: about 0.55 ns times log2(k) squared per element, the deeper
            // heaps' steps dearer), then the sort of the k.
            const auto rows = static_cast<double> (view_.outer) * static_cast<double> (view_.inner);
            const auto dim = static_cast<double> (view_.dim), k = static_cast<double> (k_);
            const double depth = std::log2 (std::max (k, 1.0));
            Work work;
            work.calls = rows;
            work.streamed = rows * dim;
            work.scalar = rows * (10.0 * dim + 1.8 * (dim - k) * depth * depth + 3.0 * k * std::log2 (k + 1.0));
            if (view_.inner > 1)
                work += Work::gathered (rows * dim, rows * dim);
            return work;
        }
        std::size_t scratchFloats() const noexcept override { return static_cast<std::size_t> (view_.dim); }
        void outputUnused (std::size_t i) noexcept override
        {
            if (i == 1)
                writeIndices_ = false;
        }

        void run (const float* const* in, float* const* out, float* scratch) const noexcept override
        {
            for (int64_t o = 0; o < view_.outer; ++o)
                for (int64_t i = 0; i < view_.inner; ++i)
                {
                    const float* x = in[0] + o * view_.dim * view_.inner + i;
                    for (int64_t d = 0; d < view_.dim; ++d)
                        scratch[d] = static_cast<float> (d);
                    const auto before = [&] (float a, float b) {
                        const float va = x[static_cast<int64_t> (a) * view_.inner], vb = x[static_cast<int64_t> (b) * view_.inner];
                        const bool nanA = std::isnan (va), nanB = std::isnan (vb);
                        if (nanA || nanB)
                            return nanA && ! nanB ? largest_ : (nanB && ! nanA ? ! largest_ : a < b);
                        if (va != vb)
                            return largest_ ? va > vb : va < vb;
                        return a < b;
                    };
                    std::partial_sort (scratch, scratch + k_, scratch + view_.dim, before);
                    const int64_t base = o * k_ * view_.inner + i;
                    for (int64_t j = 0; j < k_; ++j)
                    {
                        out[0][base + j * view_.inner] = x[static_cast<int64_t> (scratch[j]) * view_.inner];
                        if (writeIndices_)
                            out[1][base + j * view_.inner] = scratch[j];
                    }
                }
        }

    private:
        AxisView view_;
        int64_t k_ = 0;
        bool largest_ = true;
        bool writeIndices_ = false;
    };
} // namespace

std::unique_ptr<Op> makeReduction (const OpArgs& args)
{
    switch (args.kind())
    {
        case OpKind::reduceSum: return std::make_unique<Reduce> (args, ReduceKind::sum);
        case OpKind::reduceMean: return std::make_unique<Reduce> (args, ReduceKind::mean);
        case OpKind::reduceMax: return std::make_unique<Reduce> (args, ReduceKind::max);
        case OpKind::reduceMin: return std::make_unique<Reduce> (args, ReduceKind::min);
        case OpKind::var: return std::make_unique<Reduce> (args, ReduceKind::var);
        case OpKind::argmax: return std::make_unique<ArgReduce> (args, true);
        case OpKind::argmin: return std::make_unique<ArgReduce> (args, false);
        case OpKind::softmax: return std::make_unique<Softmax> (args, false);
        case OpKind::logSoftmax: return std::make_unique<Softmax> (args, true);
        case OpKind::cumsum: return std::make_unique<Cumsum> (args);
        case OpKind::topk: return std::make_unique<TopK> (args);
        default: break;
    }
    throw ModelError ("not a reduction: " + std::string (opName (args.kind())));
}

} // namespace sonotype::engine::kernels
