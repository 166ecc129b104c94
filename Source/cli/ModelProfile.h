// `sonotype run-model --profile`: where a model's run() spends its time, per op kind and per node.
#pragma once

#include "engine/Session.h"

#include <ostream>

namespace sonotype::cli
{

/** Runs the session `runs` times timing every node, and prints the mean time per run by op kind
    and the slowest nodes, with multiply-adds and GFLOP/s where the op does products. */
void printProfile (engine::Session& session, int runs, std::ostream& out);

} // namespace sonotype::cli
