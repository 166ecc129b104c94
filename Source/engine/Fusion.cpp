#include "engine/Fusion.h"

#include "engine/kernels/Kernels.h"

#include <algorithm>

namespace sonotype::engine
{
namespace
{
    /** Row-major strides of `shape`. */
    std::vector<int64_t> contiguousStrides (const Shape& shape)
    {
        std::vector<int64_t> strides (static_cast<std::size_t> (shape.rank()), 1);
        for (int axis = shape.rank() - 2; axis >= 0; --axis)
            strides[static_cast<std::size_t> (axis)] = strides[static_cast<std::size_t> (axis) + 1] * shape[axis + 1];
        return strides;
    }

    /** What `value` is a reshape of: back through plain reshapes (aliases of their own, not ops
        fused away, which may lay their input out otherwise), each value read only by the next, to
        the first value another op computes (`value` itself if none). */
    std::size_t reshapedFrom (const Graph& graph, const std::vector<int>& readers, const std::vector<int>& producer, std::size_t value)
    {
        while (readers[value] == 1 && producer[value] >= 0)
        {
            const auto& alias = graph.nodes[static_cast<std::size_t> (producer[value])];
            if (! alias.kernel->aliasesInput() || alias.fusedInto >= 0 || alias.inputs.empty() || ! alias.inputs[0].present())
                break;
            const auto from = alias.inputs[0].index();
            if (readers[from] != 1 || producer[from] < 0)
                break;
            value = from;
        }
        return value;
    }

    /** A permute whose producer can write its output in the permuted layout, or whose one reader
        can read the permute's input through strides, is not run: the producer writes (or the
        reader reads) through the permutation's strides instead (a transformer's heads split
        and merged around attention). */
    void absorbPermutes (Graph& graph, const std::vector<int>& readers, const std::vector<int>& producer, LoadBudget& budget)
    {
        // The node each value is an output of (an op fused into its producer too: an alias).
        std::vector<int> writer (readers.size(), -1);
        for (std::size_t n = 0; n < graph.nodes.size(); ++n)
            for (const auto v : graph.nodes[n].outputs)
                writer[v.index()] = static_cast<int> (n);
        for (std::size_t n = 0; n < graph.nodes.size(); ++n)
        {
            auto& node = graph.nodes[n];
            const auto perm = node.kernel->permutation();
            if (! perm || node.inputs.size() != 1 || ! node.inputs[0].present() || node.outputs.size() != 1)
                continue;
            const auto in = node.inputs[0].index(), out = node.outputs[0].index();
            const Shape& inShape = graph.shapes[in];
            const Shape& outShape = graph.shapes[out];
            // The op that writes the permute's input: through ops fused into it (a BatchNorm, a
            // ReLU: aliases of the same shape), each value read only by the next.
            auto written = in;
            while (readers[written] == 1 && writer[written] >= 0)
            {
                const auto& fused = graph.nodes[static_cast<std::size_t> (writer[written])];
                if (fused.fusedInto < 0 || ! fused.kernel->aliasesInput() || fused.inputs.empty() || ! fused.inputs[0].present()
                    || graph.shapes[fused.inputs[0].index()] != inShape)
                    break;
                written = fused.inputs[0].index();
            }
            const int from = producer[in];
            if (readers[written] == 1 && from >= 0 && graph.nodes[static_cast<std::size_t> (from)].outputs[0].index() == written)
            {
                // The producer's element idx goes where the permute would put it.
                const auto outStrides = contiguousStrides (outShape);
                std::vector<int64_t> strides (outStrides.size());
                for (std::size_t a = 0; a < perm->size(); ++a)
                    strides[static_cast<std::size_t> ((*perm)[a])] = outStrides[a];
                if (graph.nodes[static_cast<std::size_t> (from)].kernel->writeOutputStrided (strides, budget))
                {
                    node.kernel = kernels::makeAlias();
                    node.fusedInto = from;
                    continue;
                }
            }
            if (readers[out] != 1)
                continue;
            // The one reader, and which of its inputs the permute's output is.
            const auto isOut = [out] (const ValueId& v) { return v.present() && v.index() == out; };
            std::size_t r = n + 1;
            while (r < graph.nodes.size() && std::none_of (graph.nodes[r].inputs.begin(), graph.nodes[r].inputs.end(), isOut))
                ++r;
            if (r == graph.nodes.size())
                continue; // a graph output
            auto& reader = graph.nodes[r];
            const auto i = static_cast<std::size_t> (std::find_if (reader.inputs.begin(), reader.inputs.end(), isOut) - reader.inputs.begin());
            // The reader's element idx of the permute's output, in the permute's input.
            const auto inStrides = contiguousStrides (inShape);
            std::vector<int64_t> strides (inStrides.size());
            for (std::size_t a = 0; a < perm->size(); ++a)
                strides[a] = inStrides[static_cast<std::size_t> ((*perm)[a])];
            // Through reshapes (the same elements in the same order), each value read only there,
            // back to a slice: the reader may read the slice's input through the composed view
            // (a transformer's q, k and v taken from one product), and the slice is not run.
            std::vector<int64_t> extents;
            for (int a = 0; a < outShape.rank(); ++a)
                extents.push_back (outShape[a]);
            const auto source = reshapedFrom (graph, readers, producer, in);
            const int slice = readers[source] == 1 ? producer[source] : -1;
            if (slice >= 0)
            {
                auto& sliceNode = graph.nodes[static_cast<std::size_t> (slice)];
                auto viewStrides = strides;
                int64_t offset = 0;
                if (sliceNode.inputs.size() == 1 && sliceNode.inputs[0].present() && sliceNode.outputs.size() == 1
                    && sliceNode.kernel->viewOfInput (extents, viewStrides, offset) && reader.kernel->readInputStrided (i, viewStrides, offset))
                {
                    reader.inputs[i] = sliceNode.inputs[0];
                    node.kernel = kernels::makeAlias();
                    node.fusedInto = static_cast<int> (r);
                    sliceNode.kernel = kernels::makeAlias(); // its output, now read by nobody, a view of its input's start
                    sliceNode.fusedInto = static_cast<int> (r);
                    continue;
                }
            }
            if (reader.kernel->readInputStrided (i, strides, 0))
            {
                reader.inputs[i] = node.inputs[0];
                node.kernel = kernels::makeAlias();
                node.fusedInto = static_cast<int> (r);
            }
        }
    }

    /** The node that computes `value` (through aliases), or -1 for a graph input or a stored tensor. */
    int computedBy (const Graph& graph, const std::vector<int>& producer, std::size_t value)
    {
        int n = producer[value];
        while (n >= 0)
        {
            const auto& node = graph.nodes[static_cast<std::size_t> (n)];
            if (! node.kernel->aliasesInput() || ! node.inputs[0].present())
                break;
            n = producer[node.inputs[0].index()];
        }
        return n;
    }

    /** An add of two values of its output's size, one of them a product's output (through
        reshapes, each the only reader) and the other computed before that product: the product
        adds the other (a residual connection) as it writes its output, and the add is not run. */
    void absorbResiduals (Graph& graph, const std::vector<int>& readers, std::vector<int>& producer)
    {
        for (std::size_t n = 0; n < graph.nodes.size(); ++n)
        {
            auto& node = graph.nodes[n];
            if (node.kind != OpKind::add || node.inputs.size() != 2 || ! node.inputs[0].present() || ! node.inputs[1].present()
                || node.outputs.size() != 1 || node.inputs[0].index() == node.inputs[1].index())
                continue;
            const int64_t elements = graph.shapes[node.outputs[0].index()].numElements();
            if (graph.shapes[node.inputs[0].index()].numElements() != elements || graph.shapes[node.inputs[1].index()].numElements() != elements)
                continue;
            for (std::size_t side = 0; side < 2; ++side)
            {
                if (readers[node.inputs[side].index()] != 1 || producer[node.inputs[side].index()] < 0)
                    continue;
                const auto value = reshapedFrom (graph, readers, producer, node.inputs[side].index());
                const int p = producer[value];
                auto& product = graph.nodes[static_cast<std::size_t> (p)];
                const auto residual = node.inputs[1 - side];
                if (product.outputs.size() != 1 || product.outputs[0].index() != value || computedBy (graph, producer, residual.index()) >= p
                    || ! product.kernel->fuseResidual (product.inputs.size()))
                    continue;
                product.inputs.push_back (residual);
                node.inputs = { node.inputs[side] }; // an alias of the product's output
                node.kernel = kernels::makeAlias();
                node.fusedInto = p;
                producer[node.outputs[0].index()] = p;
                break;
            }
        }
    }
} // namespace

void fuseNodes (Graph& graph, const std::vector<int>& readers, LoadBudget& budget)
{
    // Who computes each value.
    std::vector<int> producer (readers.size(), -1);
    for (std::size_t n = 0; n < graph.nodes.size(); ++n)
        for (const auto v : graph.nodes[n].outputs)
            producer[v.index()] = static_cast<int> (n);
    for (auto& node : graph.nodes)
    {
        if (node.inputs.empty() || ! node.inputs[0].present() || node.outputs.size() != 1)
            continue;
        auto source = node.inputs[0].index();
        if (readers[source] != 1 || producer[source] < 0)
            continue;
        // A ReLU reads its input's elements in memory order: through reshapes it may go to the op
        // that writes them.
        if (node.kind == OpKind::relu)
            source = reshapedFrom (graph, readers, producer, source);
        auto& from = graph.nodes[static_cast<std::size_t> (producer[source])];
        if (from.outputs.size() != 1)
            continue;
        bool fused = false;
        switch (node.kind)
        {
            case OpKind::batchNorm:
            {
                std::vector<const float*> constants;
                for (const auto v : node.inputs)
                    constants.push_back (v.present() ? graph.location (v).stored : nullptr);
                std::vector<float> scale, shift;
                fused = node.kernel->scaleShift (constants, scale, shift) && from.kernel->foldScaleShift (scale, shift, budget);
                break;
            }
            case OpKind::relu: fused = from.kernel->fuseRelu(); break;
            case OpKind::maxPool:
                if (const auto pooling = node.kernel->maxPoolTiling())
                    fused = from.kernel->fuseMaxPool (*pooling);
                break;
            default: break;
        }
        if (fused)
        {
            node.kernel = kernels::makeAlias();
            node.fusedInto = producer[source];
            // Its output is now the producer's: a following op may be absorbed by that one too.
            producer[node.outputs[0].index()] = producer[source];
        }
    }
    absorbResiduals (graph, readers, producer);
    absorbPermutes (graph, readers, producer, budget);
}

} // namespace sonotype::engine
