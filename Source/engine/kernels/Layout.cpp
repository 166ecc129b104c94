// Layout ops: reshape (aliasing), permute, expand, slice, concat, pad, index_select, as_strided,
// as_strided_scatter, gather.
#include "engine/file/CheckedArithmetic.h"
#include "engine/file/ModelError.h"
#include "engine/kernels/Broadcast.h"
#include "engine/kernels/Kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sonotype::engine::kernels
{
namespace
{
    std::size_t bytes (int64_t numFloats) noexcept { return static_cast<std::size_t> (numFloats) * sizeof (float); }

    /** What stridedCopy() costs beyond the passes: a call per row, and scattered reads of a source
        of `sourceFloats` unless the rows are contiguous. */
    Work stridedCopyWork (const Shape& shape, const std::array<Strides, 1>& strides, int64_t sourceFloats)
    {
        Work work;
        work.calls = rowsOf (shape);
        const int rank = shape.rank();
        const int64_t inner = rank > 0 ? strides[0][static_cast<std::size_t> (rank - 1)] : 1;
        if (inner != 1)
            work += Work::gathered (static_cast<double> (shape.numElements()), static_cast<double> (sourceFloats));
        else if (rank > 1 && strides[0][static_cast<std::size_t> (rank - 2)] != shape[rank - 1])
            work += Work::gathered (work.calls, static_cast<double> (sourceFloats)); // each row somewhere else
        return work;
    }

    /** y (contiguous, shaped `shape`) = the elements of x at the given strides, row by row. */
    void stridedCopy (const Shape& shape, const std::array<Strides, 1>& strides, const float* x, float* y) noexcept
    {
        const int64_t inner = shape.rank() > 0 ? strides[0][static_cast<std::size_t> (shape.rank() - 1)] : 1;
        forEachRow (shape, strides, [&] (int64_t outOffset, const std::array<int64_t, 1>& offsets, int64_t count) {
            if (inner == 1)
                std::memcpy (y + outOffset, x + offsets[0], bytes (count));
            else
                for (int64_t j = 0; j < count; ++j)
                    y[outOffset + j] = x[offsets[0] + j * inner];
        });
    }

    class Reshape final : public Op
    {
    public:
        bool aliasesInput() const noexcept override { return true; }
        void run (const float* const*, float* const*, float*) const noexcept override {}
    };

    class Permute final : public Op
    {
    public:
        explicit Permute (const OpArgs& args) : out_ (args.output (0))
        {
            const auto& in = args.input (0);
            const auto perm = args.integers ("perm");
            if (static_cast<int> (perm.size()) != in.rank())
                throw ModelError ("perm has " + std::to_string (perm.size()) + " entries for a rank-" + std::to_string (in.rank()) + " input");
            std::vector<bool> seen (perm.size(), false);
            const auto inStrides = in.strides();
            Shape computed;
            for (std::size_t i = 0; i < perm.size(); ++i)
            {
                const int p = checkedAxis (perm[i], in.rank(), false, "perm entry " + std::to_string (i));
                if (seen[static_cast<std::size_t> (p)])
                    throw ModelError ("perm is not a permutation of 0.." + std::to_string (in.rank() - 1));
                seen[static_cast<std::size_t> (p)] = true;
                computed.push (in[static_cast<int> (p)]);
                strides_[0][i] = inStrides[static_cast<std::size_t> (p)];
                perm_.push_back (p);
            }
            args.checkOutput (0, computed);
            work_ = stridedCopyWork (out_, strides_, in.numElements());
        }

        Work work() const noexcept override { return work_; }
        std::optional<std::vector<int>> permutation() const override { return perm_; }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            stridedCopy (out_, strides_, in[0], out[0]);
        }

    private:
        Shape out_;
        std::array<Strides, 1> strides_ {};
        std::vector<int> perm_;
        Work work_;
    };

    class Expand final : public Op
    {
    public:
        explicit Expand (const OpArgs& args) : in_ (args.input (0)), out_ (args.output (0))
        {
            if (! broadcastsTo (in_, out_))
                throw ModelError ("cannot expand " + in_.toString() + " to " + out_.toString());
        }
        Work work() const noexcept override
        {
            // A loop over each row of the output, scalar when the input is broadcast along the rows.
            Work work;
            work.calls = rowsOf (out_);
            const auto strides = broadcastStrides (in_, out_);
            if (out_.rank() > 0 && strides[static_cast<std::size_t> (out_.rank() - 1)] != 1)
                work.scalar = static_cast<double> (out_.numElements());
            return work;
        }
        void run (const float* const* in, float* const* out, float*) const noexcept override { broadcastCopy (in[0], in_, out[0], out_); }

    private:
        Shape in_, out_;
    };

    class Slice final : public Op
    {
    public:
        explicit Slice (const OpArgs& args)
        {
            const auto& in = args.input (0);
            const int axis = args.axis ("axis", in.rank());
            start_ = args.integer ("start");
            step_ = args.integer ("step", 1);
            const auto& out = args.output (0);
            length_ = out.rank() == in.rank() ? out[axis] : -1;
            if (step_ < 1)
                throw ModelError ("slice step must be at least 1");
            if (length_ < 0)
                throw ModelError ("slice output " + out.toString() + " does not have the input's rank " + std::to_string (in.rank()));
            args.checkOutput (0, in.with (axis, length_));
            if (length_ > 0 && (start_ < 0 || start_ >= in[axis] || (length_ - 1) > (in[axis] - 1 - start_) / step_))
                throw ModelError ("slice [" + std::to_string (start_) + ", step " + std::to_string (step_) + ", length " + std::to_string (length_)
                                  + "] is outside axis " + std::to_string (axis) + " of size " + std::to_string (in[axis]));
            outer_ = in.product (0, axis);
            inner_ = in.product (axis + 1, in.rank());
            inDim_ = in[axis];
        }

        Work work() const noexcept override
        {
            Work work; // a copy per block: one per outer index, or per element of the axis with a step
            work.calls = static_cast<double> (outer_) * (step_ == 1 ? 1.0 : static_cast<double> (length_));
            return work;
        }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            const float* x = in[0];
            float* y = out[0];
            if (step_ == 1) // one contiguous block per outer index
            {
                for (int64_t o = 0; o < outer_; ++o)
                    std::memcpy (y + o * length_ * inner_, x + (o * inDim_ + start_) * inner_, bytes (length_ * inner_));
                return;
            }
            for (int64_t o = 0; o < outer_; ++o)
                for (int64_t i = 0; i < length_; ++i)
                    std::memcpy (y + (o * length_ + i) * inner_, x + (o * inDim_ + start_ + i * step_) * inner_, bytes (inner_));
        }

        /** The output's element at linear index (o * length + i) * inner + n is the input's at
            (o * inDim + start + i * step) * inner + n: three digits of the linear index, each a
            stride of its own in the input. A reader's axis maps to one stride when it moves
            within one digit without carrying into the next; every axis must. */
        bool viewOfInput (const std::vector<int64_t>& extents, std::vector<int64_t>& strides, int64_t& offset) const noexcept override
        {
            const int64_t units[3] = { 1, inner_, inner_ * length_ }, limits[3] = { inner_, inner_ * length_, outer_ * inner_ * length_ };
            const int64_t inputStrides[3] = { 1, step_ * inner_, inDim_ * inner_ };
            // The reader's view must start on whole digits: at offset 0 of the output.
            if (offset != 0 || extents.size() != strides.size() || outer_ * inner_ * length_ == 0)
                return false;
            int64_t reach[3] = {}; // the furthest each digit is moved by the axes on it
            std::vector<int64_t> mapped (strides.size());
            for (std::size_t a = 0; a < strides.size(); ++a)
            {
                if (extents[a] <= 1)
                    continue; // never moves: any stride
                int digit = 2;
                while (digit > 0 && (strides[a] < units[digit] || strides[a] % units[digit] != 0))
                    --digit;
                if (strides[a] < 0 || strides[a] % units[digit] != 0)
                    return false;
                reach[digit] += strides[a] * (extents[a] - 1);
                mapped[a] = strides[a] / units[digit] * inputStrides[digit];
            }
            for (int digit = 0; digit < 3; ++digit)
                if (reach[digit] >= limits[digit])
                    return false;
            strides = mapped;
            offset = start_ * inner_;
            return true;
        }

    private:
        int64_t start_ = 0, step_ = 1, length_ = 0, outer_ = 0, inner_ = 0, inDim_ = 0;
    };

    class Concat final : public Op
    {
    public:
        explicit Concat (const OpArgs& args)
        {
            const auto& first = args.input (0);
            const int axis = args.axis ("axis", first.rank());
            int64_t total = 0;
            for (std::size_t i = 0; i < args.numInputs(); ++i)
            {
                const auto& in = args.input (i);
                if (in.rank() != first.rank() || in.with (axis, first[axis]) != first)
                    throw ModelError ("concat input " + std::to_string (i) + " has shape " + in.toString() + ", incompatible with "
                                      + first.toString() + " along axis " + std::to_string (axis));
                total += in[axis]; // at most 4096 inputs of at most 2^40: no overflow
                blocks_.push_back (in.product (axis, in.rank()));
            }
            args.checkOutput (0, first.with (axis, total));
            outer_ = first.product (0, axis);
        }

        Work work() const noexcept override
        {
            Work work; // a copy per input and outer index
            work.calls = static_cast<double> (outer_) * static_cast<double> (blocks_.size());
            return work;
        }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            float* y = out[0];
            for (int64_t o = 0; o < outer_; ++o)
                for (std::size_t i = 0; i < blocks_.size(); ++i)
                {
                    std::memcpy (y, in[i] + o * blocks_[i], bytes (blocks_[i]));
                    y += blocks_[i];
                }
        }

    private:
        std::vector<int64_t> blocks_;
        int64_t outer_ = 0;
    };

    class Pad final : public Op
    {
    public:
        explicit Pad (const OpArgs& args) : in_ (args.input (0)), out_ (args.output (0))
        {
            const auto pads = args.integers ("pads");
            if (static_cast<int> (pads.size()) != 2 * in_.rank())
                throw ModelError ("pads needs a [before, after] pair for each of the " + std::to_string (in_.rank()) + " axes");
            value_ = static_cast<float> (args.real ("value", 0.0, -kFiniteFloat, kFiniteFloat));
            const auto mode = args.text ("mode", "constant");
            if (mode == "reflect")
                mode_ = Mode::reflect;
            else if (mode == "replicate")
                mode_ = Mode::replicate;
            else if (mode != "constant")
                throw ModelError ("pad mode must be constant, reflect or replicate, not " + quote (mode));
            Shape computed;
            for (int axis = 0; axis < in_.rank(); ++axis)
            {
                const auto before = pads[static_cast<std::size_t> (2 * axis)], after = pads[static_cast<std::size_t> (2 * axis + 1)];
                if (before < 0 || after < 0 || before > (1 << 24) || after > (1 << 24))
                    throw ModelError ("pads must be between 0 and 2^24");
                if (mode_ == Mode::reflect && (before > 0 || after > 0) && (before >= in_[axis] || after >= in_[axis]))
                    throw ModelError ("reflect padding of " + std::to_string (std::max (before, after)) + " must be less than the size "
                                      + std::to_string (in_[axis]) + " of axis " + std::to_string (axis));
                if (mode_ == Mode::replicate && (before > 0 || after > 0) && in_[axis] == 0)
                    throw ModelError ("replicate padding of an empty axis " + std::to_string (axis));
                before_[static_cast<std::size_t> (axis)] = before;
                after_[static_cast<std::size_t> (axis)] = after;
                computed.push (in_[axis] + before + after);
            }
            args.checkOutput (0, computed);
            const auto outStrides = out_.strides();
            strides_[0] = outStrides;
            for (int axis = 0; axis < in_.rank(); ++axis)
                base_ += pads[static_cast<std::size_t> (2 * axis)] * outStrides[static_cast<std::size_t> (axis)];
            // The fill of the whole output, a copy per row of the input, then (reflect, replicate)
            // a copy per padded row of each axis, at each interior position of the axes before it.
            work_.streamed = static_cast<double> (out_.numElements());
            work_.calls = rowsOf (in_);
            if (mode_ != Mode::constant && in_.numElements() > 0)
                for (int axis = 0; axis < in_.rank(); ++axis)
                {
                    const auto a = static_cast<std::size_t> (axis);
                    const double copies = static_cast<double> (in_.product (0, axis)) * static_cast<double> (before_[a] + after_[a]);
                    work_.calls += copies;
                    work_.streamed += 2.0 * copies * static_cast<double> (outStrides[a]);
                }
        }

        Work work() const noexcept override { return work_; }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            float* y = out[0];
            std::fill (y, y + out_.numElements(), value_);
            const float* x = in[0];
            forEachRow (in_, strides_, [&] (int64_t inOffset, const std::array<int64_t, 1>& offsets, int64_t count) {
                std::memcpy (y + base_ + offsets[0], x + inOffset, bytes (count));
            });
            if (mode_ == Mode::constant || in_.numElements() == 0)
                return;
            // Reflect / replicate one axis at a time, innermost first: the pads of axis a are copies of
            // whole rows (all of the already padded inner axes) at interior positions of the outer axes.
            const auto outStrides = strides_[0];
            for (int axis = in_.rank() - 1; axis >= 0; --axis)
            {
                const auto a = static_cast<std::size_t> (axis);
                if (before_[a] == 0 && after_[a] == 0)
                    continue;
                const int64_t row = outStrides[a];
                std::array<int64_t, kMaxRank> index {};
                const int64_t outerCount = in_.product (0, axis);
                for (int64_t o = 0; o < outerCount; ++o)
                {
                    int64_t base = 0;
                    for (int i = 0; i < axis; ++i)
                        base += (index[static_cast<std::size_t> (i)] + before_[static_cast<std::size_t> (i)]) * outStrides[static_cast<std::size_t> (i)];
                    for (int64_t p = 0; p < before_[a]; ++p)
                    {
                        const int64_t source = mode_ == Mode::reflect ? 2 * before_[a] - p : before_[a];
                        std::memcpy (y + base + p * row, y + base + source * row, bytes (row));
                    }
                    const int64_t last = before_[a] + in_[axis] - 1;
                    for (int64_t j = 0; j < after_[a]; ++j)
                    {
                        const int64_t source = mode_ == Mode::reflect ? last - 1 - j : last;
                        std::memcpy (y + base + (last + 1 + j) * row, y + base + source * row, bytes (row));
                    }
                    for (int i = axis - 1; i >= 0; --i) // next interior position of the outer axes
                    {
                        const auto ii = static_cast<std::size_t> (i);
                        if (++index[ii] < in_[i])
                            break;
                        index[ii] = 0;
                    }
                }
            }
        }

    private:
        enum class Mode
        {
            constant,
            reflect,
            replicate
        };
        Shape in_, out_;
        std::array<Strides, 1> strides_ {};
        std::array<int64_t, kMaxRank> before_ {}, after_ {};
        int64_t base_ = 0;
        float value_ = 0.0f;
        Mode mode_ = Mode::constant;
        Work work_;
    };

    class IndexSelect final : public Op
    {
    public:
        explicit IndexSelect (const OpArgs& args)
        {
            // A 0-d input is seen as [1] (PyTorch takes dim 0 or -1 of it and gives a 0-d result).
            const auto& in = args.input (0);
            const Shape view = in.rank() == 0 ? Shape { 1 } : in;
            const int axis = args.axisOrScalar ("axis", in.rank());
            indices_ = args.integers ("indices");
            for (auto index : indices_)
                if (index < 0 || index >= view[axis])
                    throw ModelError ("index " + std::to_string (index) + " is outside axis " + std::to_string (axis) + " of size " + std::to_string (view[axis]));
            if (in.rank() == 0)
            {
                // PyTorch gives the value for any number of 0s (and uninitialised memory for none).
                if (indices_.empty())
                    throw ModelError ("index_select of a 0-d value needs an index");
                args.checkOutput (0, in);
                indices_.resize (1, 0);
            }
            else
                args.checkOutput (0, in.with (axis, static_cast<int64_t> (indices_.size())));
            outer_ = view.product (0, axis);
            inner_ = view.product (axis + 1, view.rank());
            inDim_ = view[axis];
        }

        Work work() const noexcept override
        {
            Work work; // a copy per index and outer index
            work.calls = static_cast<double> (outer_) * static_cast<double> (indices_.size());
            return work;
        }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            float* y = out[0];
            for (int64_t o = 0; o < outer_; ++o)
                for (auto index : indices_)
                {
                    std::memcpy (y, in[0] + (o * inDim_ + index) * inner_, bytes (inner_));
                    y += inner_;
                }
        }

    private:
        std::vector<int64_t> indices_;
        int64_t outer_ = 0, inner_ = 0, inDim_ = 0;
    };
    /** The elements x.flat[offset + Σ i_k · stride_k] for i over `shape` (as_strided's geometry),
        checked at load to lie inside x. */
    struct StridedView
    {
        Shape shape;
        std::array<Strides, 1> strides {};
        int64_t offset = 0;

        StridedView (const OpArgs& args, const Shape& viewShape, const char* op) : shape (viewShape)
        {
            const auto stride = args.integers ("stride");
            offset = args.integer ("offset", 0);
            if (static_cast<int> (stride.size()) != shape.rank())
                throw ModelError ("stride has " + std::to_string (stride.size()) + " entries for a rank-" + std::to_string (shape.rank()) + " view");
            if (offset < 0)
                throw ModelError ("offset " + std::to_string (offset) + " is negative");
            int64_t last = offset;
            for (int axis = 0; axis < shape.rank(); ++axis)
            {
                const auto step = stride[static_cast<std::size_t> (axis)];
                if (step < 0)
                    throw ModelError ("stride " + std::to_string (step) + " is negative");
                if (shape[axis] > 0)
                    last = checkedAdd (last, checkedMul (shape[axis] - 1, step, "as_strided extent"), "as_strided extent");
                strides[0][static_cast<std::size_t> (axis)] = step;
            }
            if (shape.numElements() > 0 && last >= args.input (0).numElements())
                throw ModelError (std::string (op) + " reaches element " + std::to_string (last) + " of an input of " + std::to_string (args.input (0).numElements()));
        }
    };

    /** A strided view of the input's elements in memory order: out[i0, i1, …] =
        x.flat[offset + Σ i_k · stride_k] (PyTorch's as_strided on a contiguous tensor). */
    class AsStrided final : public Op
    {
    public:
        explicit AsStrided (const OpArgs& args) : view_ (args, args.output (0), "as_strided")
        {
            work_ = stridedCopyWork (view_.shape, view_.strides, args.input (0).numElements());
        }

        Work work() const noexcept override { return work_; }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            stridedCopy (view_.shape, view_.strides, in[0] + view_.offset, out[0]);
        }

    private:
        StridedView view_;
        Work work_;
    };

    /** x with a strided view of it replaced by src: out = x, then out.flat[offset + Σ i_k · stride_k]
        = src[i] (PyTorch's as_strided_scatter; what a write through a view, `y[:, t] = v`, does to
        the tensor viewed). Where the view visits an element twice, the later write wins. */
    class AsStridedScatter final : public Op
    {
    public:
        explicit AsStridedScatter (const OpArgs& args) : view_ (args, args.input (1), "as_strided_scatter")
        {
            args.checkOutput (0, args.input (0));
            size_ = args.input (0).numElements();
            // The copy, then a scalar loop per row of the view writing at its strides (a scattered
            // write costs a read of its line and the write).
            work_.streamed = static_cast<double> (size_);
            work_.calls = rowsOf (view_.shape);
            work_ += 2.0 * Work::gathered (static_cast<double> (view_.shape.numElements()), static_cast<double> (size_));
        }

        Work work() const noexcept override { return work_; }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            std::memcpy (out[0], in[0], bytes (size_));
            const float* src = in[1];
            float* y = out[0] + view_.offset;
            const int64_t inner = view_.shape.rank() > 0 ? view_.strides[0][static_cast<std::size_t> (view_.shape.rank() - 1)] : 1;
            forEachRow (view_.shape, view_.strides, [&] (int64_t srcOffset, const std::array<int64_t, 1>& offsets, int64_t count) {
                for (int64_t j = 0; j < count; ++j)
                    y[offsets[0] + j * inner] = src[srcOffset + j];
            });
        }

    private:
        StridedView view_;
        int64_t size_ = 0;
        Work work_;
    };

    /** out[i] = x.flat[indices.flat[i]], the indices stored in the file (whole numbers as float32). */
    class Gather final : public Op
    {
    public:
        explicit Gather (const OpArgs& args)
        {
            const float* stored = args.constant (1);
            if (stored == nullptr)
                throw ModelError ("gather's indices must be a tensor stored in the file");
            const auto& indices = args.input (1);
            const int64_t size = args.input (0).numElements();
            if (size > (int64_t { 1 } << 24))
                throw ModelError ("gather from " + std::to_string (size) + " elements: float32 indices address at most 2^24");
            args.checkOutput (0, indices);
            const int64_t count = indices.numElements();
            args.claimTable (static_cast<std::uint64_t> (count), sizeof (std::int32_t), "gather indices");
            indices_.resize (static_cast<std::size_t> (count));
            for (int64_t i = 0; i < count; ++i)
            {
                const float index = stored[i];
                if (! (index >= 0.0f && index < static_cast<float> (size)) || std::floor (index) != index)
                    throw ModelError ("gather index " + std::to_string (index) + " at " + std::to_string (i) + " is not a whole number in [0, " + std::to_string (size) + ")");
                indices_[static_cast<std::size_t> (i)] = static_cast<std::int32_t> (index);
            }
            work_ = Work::gathered (static_cast<double> (count), static_cast<double> (size));
        }

        Work work() const noexcept override { return work_; }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            const float* x = in[0];
            float* y = out[0];
            for (std::size_t i = 0; i < indices_.size(); ++i)
                y[i] = x[indices_[i]];
        }

    private:
        std::vector<std::int32_t> indices_;
        Work work_;
    };
} // namespace

std::unique_ptr<Op> makeAlias()
{
    return std::make_unique<Reshape>();
}

std::unique_ptr<Op> makeLayout (const OpArgs& args)
{
    switch (args.kind())
    {
        case OpKind::reshape:
            if (args.input (0).numElements() != args.output (0).numElements())
                throw ModelError ("cannot reshape " + args.input (0).toString() + " to " + args.output (0).toString());
            return std::make_unique<Reshape>();
        case OpKind::permute: return std::make_unique<Permute> (args);
        case OpKind::expand: return std::make_unique<Expand> (args);
        case OpKind::slice: return std::make_unique<Slice> (args);
        case OpKind::concat:
            for (std::size_t i = 0; i < args.numInputs(); ++i)
                args.input (i); // every input is required
            return std::make_unique<Concat> (args);
        case OpKind::pad: return std::make_unique<Pad> (args);
        case OpKind::indexSelect: return std::make_unique<IndexSelect> (args);
        case OpKind::asStrided: return std::make_unique<AsStrided> (args);
        case OpKind::asStridedScatter: return std::make_unique<AsStridedScatter> (args);
        case OpKind::gather: return std::make_unique<Gather> (args);
        default: break;
    }
    throw ModelError ("not a layout op: " + std::string (opName (args.kind())));
}

} // namespace sonotype::engine::kernels
