// A model file opened for adding to its graph (what TaughtModel and HitEmbedding write): the
// header's JSON, the graph from its metadata, the tensor bytes; new values, stored tensors and
// nodes are appended, and bytes() puts the file back together. Internal to Source/teach.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sonotype::teach::detail
{

struct ModelFileEdit
{
    nlohmann::json header; // the safetensors header, "__metadata__" included
    nlohmann::json graph;  // parsed from the metadata's "graph"
    std::vector<std::uint8_t> data;

    /** Throws std::invalid_argument for a file too short or a header cut short (and nlohmann's
        errors for a header that is not JSON, or metadata without a graph). */
    explicit ModelFileEdit (std::span<const std::uint8_t> file);

    nlohmann::json& metadata() { return header.at ("__metadata__"); }

    /** The number of elements of graph value `index`. */
    int64_t elements (int index) const;

    /** A new value of the graph (a node's output); its index. */
    int value (const std::vector<int64_t>& shape);
    /** A new stored float32 tensor; its value's index. */
    int tensor (const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& values);
    /** A new node (its source: `source`); the index of its one output. */
    int node (const std::string& op, const std::vector<int>& inputs, const std::vector<int64_t>& shape,
              nlohmann::json attrs = nlohmann::json::object(), const std::string& source = "taught head");

    /** The file: the graph written back into the metadata, the header padded to 8 bytes. */
    std::vector<std::uint8_t> bytes();
};

} // namespace sonotype::teach::detail
