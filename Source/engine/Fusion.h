// Fusion at load: a node that is the only reader of a single-output producer's value may be
// absorbed by that producer (an eval-mode BatchNorm folded into a convolution's weights, a ReLU
// applied by the op that writes its input, through reshapes); the absorbed node becomes an alias
// of that value. A permute around an op that reads or writes through strides is absorbed the same
// way.
#pragma once

#include "engine/Graph.h"

#include <vector>

namespace sonotype::engine
{

/** Fuses what can be fused; `readers` is countReaders (graph), taken before (a permute read
    through strides hands its input to its reader). Claims what folded weights keep from `budget`. */
void fuseNodes (Graph& graph, const std::vector<int>& readers, LoadBudget& budget);

} // namespace sonotype::engine
