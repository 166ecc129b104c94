// What loading one model may cost: memory (the parsed header and graph, the weights, the tables ops
// build at load, one Session's activations) and work per Session::run(). A model file comes from
// anywhere; these budgets are checked before anything is allocated or run, so no file can exhaust
// the host or make run() take forever.
#pragma once

#include <cstddef>

namespace sonotype::engine
{

struct LoadLimits
{
    static constexpr std::size_t kDefaultMaxMemoryBytes = std::size_t { 2 } << 30; // 2 GiB
    static constexpr double kDefaultMaxOpsPerRun = 1e11;                          // ~ seconds on one core

    /** Bytes the load may allocate in all, including one Session's activation arena. */
    std::size_t maxMemoryBytes = kDefaultMaxMemoryBytes;
    /** Operations one Session::run() may do: multiply-adds, pooling taps, elements visited. */
    double maxOpsPerRun = kDefaultMaxOpsPerRun;
};

} // namespace sonotype::engine
