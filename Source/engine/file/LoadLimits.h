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
    // Operations are multiply-adds of the active kernel path's matrix product, every other kind of
    // step weighed by what it costs against one (engine/file/Work.h): 1e11 is about 2 s on one core of
    // the AMD EPYC the weights were measured on with AVX-512, 5 s on its baseline (SSE2) path.
    static constexpr double kDefaultMaxOpsPerRun = 1e11;

    /** Bytes the load may allocate in all, including one Session's activation arena and one front end's buffers. */
    std::size_t maxMemoryBytes = kDefaultMaxMemoryBytes;
    /** Operations one Session::run() may do, front end included (engine/file/Work.h). */
    double maxOpsPerRun = kDefaultMaxOpsPerRun;
};

} // namespace sonotype::engine
