// A model's graph as loading builds it from the file's graph JSON: its values (shape, and where each
// lives) and its nodes in run order, each with its op built and checked against the op table.
#pragma once

#include "engine/Op.h"
#include "engine/file/ModelFile.h"
#include "engine/file/Work.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sonotype::engine
{

/** A value of the graph (a graph input, a stored tensor or a node's output): its index in the
    file's value list. Absent (an optional input left out) is -1. */
struct ValueId
{
    std::int32_t id = -1;

    constexpr bool present() const noexcept { return id >= 0; }
    constexpr std::size_t index() const noexcept { return static_cast<std::size_t> (id); }
    friend constexpr bool operator== (ValueId, ValueId) noexcept = default;
};

/** Where a value's floats are: a stored tensor (or a reshape of one), else an offset into a
    Session's arena (set by memory planning, engine/MemoryPlan.h). */
struct ValueLocation
{
    const float* stored = nullptr;
    std::size_t arenaOffset = 0;
};

struct Node
{
    OpKind kind {};
    std::string source;                   // the exporter's "file.py:line", for messages and profiles
    std::vector<ValueId> inputs, outputs; // an input may be absent
    std::unique_ptr<Op> kernel;
    int fusedInto = -1;    // the node that computes this node's output too (a BatchNorm folded into a conv), or -1
    int64_t rowLength = 0; // softmax and log-softmax over their input's last axis (only ones after their axis): its size

    std::string_view op() const noexcept { return opName (kind); }
};

struct Graph
{
    std::vector<Shape> shapes;            // per value
    std::vector<ValueLocation> locations; // per value
    std::vector<Node> nodes;              // in run order
    std::vector<ValueId> inputs, outputs;

    const Shape& shape (ValueId v) const noexcept { return shapes[v.index()]; }
    ValueLocation& location (ValueId v) noexcept { return locations[v.index()]; }
    const ValueLocation& location (ValueId v) const noexcept { return locations[v.index()]; }

    // One run's cost, from each op's steps (engine/file/Work.h) on the active kernel path.
    double opsPerRun = 0.0;    // in multiply-adds of the path's packed product
    double multiplyAdds = 0.0; // of the products and convolutions (FLOPs / 2)
    double heaviestOps = 0.0;  // the costliest node's share, and which node that is
    std::string heaviest;
};

/** Builds the graph the file's graph JSON describes: every value's shape and kind, every node's
    op (found in the op table, its counts, attributes and shapes checked by its factory), the graph's
    inputs and outputs, and one run's work weighed with `weights`. Claims the parsed JSON and
    per-value tables from `budget`; throws ModelError saying which value or node is wrong. */
Graph buildGraph (const std::string& graphJson, const ModelFile& file, const WorkWeights& weights, LoadBudget& budget);

/** How many nodes read each value (the graph's outputs count as readers). */
std::vector<int> countReaders (const Graph& graph);

} // namespace sonotype::engine
