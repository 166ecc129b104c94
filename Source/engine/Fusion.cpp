#include "engine/Fusion.h"

#include "engine/kernels/Kernels.h"

namespace sonotype::engine
{

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
        const auto source = node.inputs[0].index();
        if (readers[source] != 1 || producer[source] < 0)
            continue;
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
}

} // namespace sonotype::engine
