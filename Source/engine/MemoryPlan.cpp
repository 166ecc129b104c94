#include "engine/MemoryPlan.h"

#include "engine/file/AlignedBuffer.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace sonotype::engine
{
namespace
{
    /** A buffer to place: the value that owns it, its size and the node times it lives from and to. */
    struct Block
    {
        std::size_t value, size;
        int first, last;
    };

    /** The arena's free space: best fit by size, neighbours coalesced, the end given back to the top. */
    class FreeList
    {
    public:
        std::size_t top() const noexcept { return top_; }
        std::size_t peak() const noexcept { return peak_; }

        std::size_t allocate (std::size_t size)
        {
            const auto fit = bySize_.lower_bound ({ size, 0 });
            if (size == 0 || fit == bySize_.end())
            {
                const auto offset = top_;
                top_ += size;
                peak_ = std::max (peak_, top_);
                return offset;
            }
            const auto [freeSize, offset] = *fit;
            bySize_.erase (fit);
            byOffset_.erase (offset);
            if (freeSize > size)
                add (offset + size, freeSize - size);
            return offset;
        }

        void release (std::size_t offset, std::size_t size)
        {
            if (size == 0)
                return;
            auto next = byOffset_.lower_bound (offset);
            if (next != byOffset_.end() && offset + size == next->first)
            {
                size += next->second;
                bySize_.erase ({ next->second, next->first });
                next = byOffset_.erase (next);
            }
            if (next != byOffset_.begin())
                if (auto previous = std::prev (next); previous->first + previous->second == offset)
                {
                    offset = previous->first;
                    size += previous->second;
                    bySize_.erase ({ previous->second, previous->first });
                    byOffset_.erase (previous);
                }
            if (offset + size == top_)
            {
                top_ = offset; // the arena's end is free again
                return;
            }
            add (offset, size);
        }

    private:
        void add (std::size_t offset, std::size_t size)
        {
            byOffset_.emplace (offset, size);
            bySize_.emplace (size, offset);
        }

        std::map<std::size_t, std::size_t> byOffset_;          // offset -> size
        std::set<std::pair<std::size_t, std::size_t>> bySize_; // (size, offset)
        std::size_t top_ = 0, peak_ = 0;
    };
} // namespace

MemoryPlan planMemory (Graph& graph)
{
    MemoryPlan plan;
    // Each value lives in a "root" buffer: its own, its aliased input's (reshape), or a stored tensor.
    const std::size_t numValues = graph.shapes.size();
    std::vector<std::size_t> root (numValues);
    for (std::size_t v = 0; v < numValues; ++v)
        root[v] = v;
    const int numNodes = static_cast<int> (graph.nodes.size());
    constexpr int kUnused = std::numeric_limits<int>::min();
    std::vector<int> first (numValues, kUnused), last (numValues, kUnused);
    for (const auto v : graph.inputs)
        first[v.index()] = last[v.index()] = -1;
    for (int n = 0; n < numNodes; ++n)
    {
        const auto& node = graph.nodes[static_cast<std::size_t> (n)];
        for (const auto v : node.inputs)
            if (v.present())
            {
                auto& end = last[root[v.index()]];
                end = std::max (end, n);
            }
        if (node.kernel->aliasesInput())
        {
            const auto source = root[node.inputs[0].index()];
            root[node.outputs[0].index()] = source;
            graph.location (node.outputs[0]).stored = graph.locations[source].stored;
            continue;
        }
        for (const auto v : node.outputs)
            first[v.index()] = last[v.index()] = n;
        plan.scratchFloats = std::max (plan.scratchFloats, node.kernel->scratchFloats());
        plan.bytesWithoutReuse += AlignedBuffer::roundUp (node.kernel->scratchFloats()) * sizeof (float);
    }
    // Outputs are read after run(); inputs are written once and must survive run() unchanged.
    for (const auto v : graph.outputs)
        last[root[v.index()]] = numNodes;
    for (const auto v : graph.inputs)
        last[v.index()] = numNodes;

    std::vector<Block> blocks;
    for (std::size_t v = 0; v < numValues; ++v)
        if (root[v] == v && graph.locations[v].stored == nullptr && first[v] != kUnused)
        {
            blocks.push_back ({ v, AlignedBuffer::roundUp (static_cast<std::size_t> (graph.shapes[v].numElements())), first[v], last[v] });
            plan.bytesWithoutReuse += blocks.back().size * sizeof (float);
        }
    // Times run from -1 (the graph inputs) to numNodes (read after run()); index them from 0.
    const auto slot = [] (int time) { return static_cast<std::size_t> (time + 1); };
    std::vector<std::vector<std::size_t>> startingAt (static_cast<std::size_t> (numNodes) + 2), endingAt (static_cast<std::size_t> (numNodes) + 2);
    for (std::size_t b = 0; b < blocks.size(); ++b)
    {
        startingAt[slot (blocks[b].first)].push_back (b);
        endingAt[slot (blocks[b].last)].push_back (b);
    }
    FreeList arena;
    std::vector<std::size_t> offsets (blocks.size(), 0);
    for (int time = -1; time <= numNodes; ++time)
    {
        if (time >= 0)
            for (const auto b : endingAt[slot (time - 1)])
                arena.release (offsets[b], blocks[b].size);
        auto& starting = startingAt[slot (time)];
        std::sort (starting.begin(), starting.end(), [&] (std::size_t a, std::size_t b) { return blocks[a].size > blocks[b].size; });
        for (const auto b : starting)
            offsets[b] = arena.allocate (blocks[b].size);
    }
    for (std::size_t b = 0; b < blocks.size(); ++b)
        graph.locations[blocks[b].value].arenaOffset = offsets[b];
    for (std::size_t v = 0; v < numValues; ++v)
        if (root[v] != v)
            graph.locations[v] = graph.locations[root[v]];
    plan.arenaFloats = arena.peak();
    return plan;
}

} // namespace sonotype::engine
