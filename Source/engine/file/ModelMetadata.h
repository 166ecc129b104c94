// The metadata a model file carries beside its graph (its safetensors "__metadata__"): the format
// marker and version, the class labels and the front end. Each is checked here, before or beside
// the graph: nothing in them is trusted.
#pragma once

#include "engine/file/LoadBudget.h"
#include "engine/file/Shape.h"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sonotype::engine
{

using Metadata = std::map<std::string, std::string>;

/** The model file format this engine reads. */
constexpr int kModelFormatVersion = 1;

/** Labels are shown in CSV rows, terminals and the GUI: each one at most this long (and valid
    UTF-8, distinct, without control or invisible characters: engine/file/Text.h), all together at most
    kMaxLabelsBytes. */
constexpr std::size_t kMaxLabelBytes = 256;
constexpr std::size_t kMaxLabelsBytes = std::size_t { 256 } << 10;

/** The graph JSON, once the metadata says this is a Sonotype model of kModelFormatVersion; throws
    ModelError saying what it is not. */
const std::string& graphOf (const Metadata& metadata);

/** The class labels (none without a "labels" entry), each checked as above, as many as output 0's
    last axis has entries; claims the parsed list from `budget`. Throws ModelError naming the label. */
std::vector<std::string> readLabels (const Metadata& metadata, const Shape& output0, LoadBudget& budget);

/** Which graph output is the model's embedding: none without an "embedding_output" entry, else its
    index, a decimal number naming one of the outputs after output 0 (which holds the class
    scores). Throws ModelError saying what is wrong with any other value. */
std::optional<int> readEmbeddingOutput (const Metadata& metadata, std::size_t numOutputs);

} // namespace sonotype::engine
