// A model file opened to be added to, then written back: how `sonotype learn` and the Teach panel
// make their files (teach/TaughtModel.h, teach/HitEmbedding.h). It starts from a file the reader
// accepts — the container checked by ModelFile::parseHeader, the metadata a Sonotype model's, its
// graph parsed by the same JSON reader — and keeps all of it: the tensors' bytes as they are, and
// every header entry, metadata entry, graph value and node, with any key it does not know. Graph
// values, stored float32 tensors and nodes are appended, metadata entries set or erased, the
// graph's outputs replaced; bytes() writes the file. The header and the graph are written as
// nlohmann/json wrote them before this writer (JsonWriter.h): the same additions to the same file
// give the same bytes.
//
// Ops are named as model files spell them, by a string: engine/file lies below the engine and its
// op table, so the writer cannot name an OpKind. Its callers take the name from the table
// (engine::opName (engine::OpKind::gemm)), and the engine checks the node, its counts, attributes
// and shapes, when the written file is loaded. The writer checks what it is given itself (value
// indices, shapes, tensor names, sizes) and refuses with a ModelError.
//
// Threads: none of its own; one writer is used by one thread at a time.
#pragma once

#include "engine/file/Json.h"
#include "engine/file/LoadLimits.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sonotype::engine
{

class ModelFileWriter
{
public:
    /** Reads `file` (named `name` in errors) with ModelFile's checks within `limits`; throws
        ModelError for a file the reader refuses, one that is not a Sonotype model, or a graph
        that is not an object with lists of values, nodes and outputs. */
    ModelFileWriter (std::span<const std::uint8_t> file, const std::string& name, const LoadLimits& limits = {});

    /** The metadata entry `key` (a metadata entry is a string), or nullptr. */
    const std::string* metadata (const std::string& key) const noexcept;
    /** Sets the metadata entry `key` (a new one is added; "graph" is the writer's own: refused). */
    void setMetadata (const std::string& key, std::string value);
    /** Removes the metadata entry `key`, if there is one. */
    void eraseMetadata (const std::string& key);

    /** The graph as it stands: its values, nodes, inputs and outputs, and whatever else it holds. */
    const JsonValue& graph() const noexcept { return graph_; }
    /** The number of the graph's values (the index the next one gets). */
    int numValues() const noexcept;
    /** Value `index`'s shape; throws ModelError for an index that is not a value, or a shape that
        is not a list of dimensions from 0 to 2^40 holding at most 2^40 elements. */
    std::vector<int64_t> shapeOf (int index) const;
    /** The number of elements of value `index` (checked as shapeOf). */
    int64_t elements (int index) const;
    /** The graph's outputs; throws ModelError for a list that holds anything but value indices. */
    std::vector<int> outputs() const;
    /** Replaces the graph's outputs (each a value of the graph). */
    void setOutputs (const std::vector<int>& outputs);

    /** A new value computed by a node; its index. */
    int value (const std::vector<int64_t>& shape);
    /** Whether the file has a stored tensor called `name`. */
    bool hasTensor (const std::string& name) const noexcept;
    /** A new stored float32 tensor, its bytes after the data section's, and its graph value; the
        value's index. Throws ModelError for a name the file has already (the old tensor's bytes
        would lie unnamed in the data section: a file the reader refuses). */
    int tensor (const std::string& name, const std::vector<int64_t>& shape, std::span<const float> values);
    /** A new node of op `op` (the op table's name) reading `inputs`, and its one output, a new
        value of `shape`; `attrs` are written when not empty, `source` says where the node comes
        from. The output's index. */
    int node (std::string_view op, const std::vector<int>& inputs, const std::vector<int64_t>& shape, JsonValue attrs,
              const std::string& source);

    /** The file: the header (its metadata's graph written from graph()) padded with spaces to a
        multiple of 8 bytes, then the data section. Throws ModelError for a header longer than the
        reader's limit (ModelFile::kMaxHeaderBytes), JsonError for text that is not UTF-8. */
    std::vector<std::uint8_t> bytes() const;

private:
    JsonValue& metadataObject();
    const JsonValue& metadataObject() const;
    void checkValue (int index, const char* what) const;
    void checkRoomForValue() const;
    static JsonValue shapeJson (const std::vector<int64_t>& shape);
    int appendValue (JsonValue value);

    JsonValue header_; // the safetensors header, "__metadata__" included (its "graph" is written from graph_)
    JsonValue graph_;
    std::vector<std::uint8_t> data_;
};

} // namespace sonotype::engine
