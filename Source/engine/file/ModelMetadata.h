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

/** The MIDI notes chosen for the classes (metadata "midi_notes": a JSON object of labels and
    notes, {"kick": 36, "snare": 38}; what `sonotype learn --note` and the Teach view write): per
    class its note 0-127, or -1 where none is chosen (its note is then the one its name says, or
    base note + index: timeline/NoteMap.h). Empty without the entry. Throws ModelError naming what
    is wrong: not an object, a name that is no label, a label twice, a note that is not an
    integer 0-127. Claims the parsed object from `budget`. */
std::vector<int> readClassNotes (const Metadata& metadata, const std::vector<std::string>& labels, LoadBudget& budget);

/** The "midi_notes" entry for `notes` (per class of `labels`, -1: none chosen): the object of the
    chosen ones (its keys sorted, as the writer writes every object); empty when none is chosen
    (the entry is then left out). */
std::string classNotesEntry (const std::vector<std::string>& labels, const std::vector<int>& notes);

} // namespace sonotype::engine
