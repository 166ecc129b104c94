// Every key of the model file, spelled once: the safetensors header's, the metadata's, the graph's
// and those of the records `sonotype learn` and the Teach panel write into the metadata. The reader
// (ModelFile, ModelMetadata, the engine's Graph and Model), the writer (ModelFileWriter) and what
// reads or writes the records (teach/, runtime/HitClassifier, cli/) all name them from here, so that a
// key renamed in one place cannot leave a reader behind. docs/ENGINE.md describes each.
#pragma once

namespace sonotype::engine::keys
{

// The safetensors header: one entry per tensor, and the metadata.
inline constexpr const char* metadata = "__metadata__";
inline constexpr const char* dtype = "dtype";
inline constexpr const char* shape = "shape"; // also a graph value's
inline constexpr const char* dataOffsets = "data_offsets";
inline constexpr const char* float32 = "F32"; // the one dtype the engine stores

// The metadata's entries (each a string; graph, labels, frontend, taught, midi_notes and hit_embedding hold JSON).
inline constexpr const char* format = "format";
inline constexpr const char* formatMarker = "sonotype"; // format's value
inline constexpr const char* formatVersion = "format_version";
inline constexpr const char* exporterVersion = "exporter_version";
inline constexpr const char* torchVersion = "torch_version";
inline constexpr const char* modelClass = "model_class";
inline constexpr const char* graph = "graph";
inline constexpr const char* labels = "labels";
inline constexpr const char* frontend = "frontend";
inline constexpr const char* embeddingOutput = "embedding_output";
inline constexpr const char* hitEmbedding = "hit_embedding";
inline constexpr const char* levelOutput = "level_output"; // which output is the window's level in dB (teach/WindowLevel.h)
inline constexpr const char* taught = "taught";
inline constexpr const char* midiNotes = "midi_notes"; // a JSON object: class label -> the MIDI note chosen for it (ModelMetadata.h)
inline constexpr const char* taughtExamples = "taught_examples";
// A taught head's stored tensors: taught.*, and a head taught again on a taught model taught2.*, ...
inline constexpr const char* taughtTensorPrefix = "taught";

// The graph: its lists, a value's kind (and the stored tensor it names), a node's parts.
inline constexpr const char* values = "values";
inline constexpr const char* nodes = "nodes";
inline constexpr const char* inputs = "inputs";
inline constexpr const char* outputs = "outputs";
inline constexpr const char* kind = "kind";
inline constexpr const char* kindInput = "input";
inline constexpr const char* kindTensor = "tensor";
inline constexpr const char* kindNode = "node";
inline constexpr const char* tensor = "tensor";
inline constexpr const char* op = "op";
inline constexpr const char* attrs = "attrs";
inline constexpr const char* source = "source";

// The "taught" record: the base model, the classes and the rule (teach/TaughtModel.h).
inline constexpr const char* taughtBase = "base";
inline constexpr const char* taughtClasses = "classes";
inline constexpr const char* taughtRule = "rule";
inline constexpr const char* taughtUnknownBelow = "unknown_below";
inline constexpr const char* taughtOnsetWindow = "onset_window";    // seconds of a hit's clip (runtime/HitClassifier.h)
inline constexpr const char* taughtEmbedding = "embedding";         // the hit_embedding record, repeated
inline constexpr const char* taughtGate = "unknown_gate";           // the gates' record: the two below (teach/Prototypes.h)
inline constexpr const char* taughtGateThresholds = "cosine_below"; // per class: a cosine under which it is not that class
inline constexpr const char* taughtGateLevel = "level_below_db";    // a level (dB of the loudest feature) under which nothing is a class
inline constexpr const char* taughtLiveHits = "live_hits";          // the live per-hit classifier's record: the five below (runtime/LiveHitClassifier.h)

// The "live_hits" record: the stored tensors of the kit's signatures, their labels and the scales, by
// name, the gate and the span after the onset (runtime/LiveHitClassifier.h).
inline constexpr const char* liveHitSignatures = "signatures";
inline constexpr const char* liveHitLabels = "labels";
inline constexpr const char* liveHitScales = "scales";
inline constexpr const char* liveHitGate = "gate";
inline constexpr const char* liveHitAfter = "after_seconds";

// The "hit_embedding" record: which value and tokens a hit is embedded from (teach/HitEmbedding.h).
inline constexpr const char* hitFrom = "from";
inline constexpr const char* hitTokens = "tokens";
inline constexpr const char* hitOf = "of";
inline constexpr const char* hitSeconds = "seconds";

} // namespace sonotype::engine::keys
