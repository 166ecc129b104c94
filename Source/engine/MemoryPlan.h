// Memory planning at load: where each value a node computes lives in a Session's arena. Buffers
// live from the node that writes them to the last node that reads them and are reused after;
// a node's outputs never share memory with its inputs; aliases (reshapes, fused nodes) take their
// input's buffer; graph inputs and outputs live through the whole run.
#pragma once

#include "engine/Graph.h"

#include <cstddef>

namespace sonotype::engine
{

struct MemoryPlan
{
    std::size_t arenaFloats = 0;       // the values' buffers
    std::size_t scratchFloats = 0;     // the largest scratch any op needs (shared by all)
    std::size_t bytesWithoutReuse = 0; // if no buffer (nor any op's scratch) were shared
};

/** Plans the arena: sets every computed value's ValueLocation (its arena offset, or the stored
    tensor an alias of one reads). Best-fit placement in run order with coalescing free blocks:
    O(n log n) in the number of values. */
MemoryPlan planMemory (Graph& graph);

} // namespace sonotype::engine
