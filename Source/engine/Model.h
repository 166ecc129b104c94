// A loaded, validated, memory-planned model: immutable and shareable between threads.
// Run it through a Session (one per thread), which owns the mutable activation memory.
#pragma once

#include "engine/Graph.h"
#include "engine/MemoryPlan.h"
#include "engine/file/FrontendSettings.h"
#include "engine/file/LoadLimits.h"
#include "engine/file/ModelFile.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sonotype::engine
{

/** What output 0 holds over its classes (its last axis), known from the node that computes it
    (through reshapes that keep that axis): a softmax over that axis gives probabilities, a
    log-softmax log-probabilities, a sigmoid independent per-class probabilities (multi-label, as
    PANNs); anything else is logits. */
enum class OutputScores
{
    logits,
    probabilities,
    logProbabilities,
    independentProbabilities,
};

struct ModelInfo
{
    std::string name; // file path or a caller-given name
    std::vector<Shape> inputShapes, outputShapes;
    std::vector<std::string> labels;             // class labels, in output order (may be empty)
    std::optional<int> embeddingOutput;          // which output is the model's embedding (metadata "embedding_output"; never 0)
    std::vector<int> classNotes;                 // per class, the MIDI note chosen for it (metadata "midi_notes"), -1: none; empty: none chosen
    std::string frontendJson = "{}";             // front-end settings as exported (JSON object)
    std::optional<FrontendSettings> frontend;    // as validated at load; none for an empty object (no front end). Its stored
                                                 // window and filterbank are the Model's memory: valid while the Model lives
    std::map<std::string, std::string> metadata; // everything in the file's __metadata__
    std::map<std::string, int> opCounts;
    OutputScores scores = OutputScores::logits;
    std::size_t numParameters = 0; // floats stored in the file
    std::size_t numNodes = 0;
    std::size_t activationBytes = 0;             // per Session
    std::size_t activationBytesWithoutReuse = 0; // what it would be if no buffer (nor any op's scratch) were shared
    std::size_t loadBytes = 0;                   // memory the load claimed from LoadLimits::maxMemoryBytes (one Session and one front end included)
    std::size_t frontendBytes = 0;               // of which one front end's buffers (FrontendSettings::cost)
    double opsPerRun = 0.0;                      // operations per Session::run(), in multiply-adds of the kernel path's product (engine/file/Work.h)
    double frontendOpsPerWindow = 0.0;           // the front end's, per window with every frame computed; with opsPerRun within the work budget
    double multiplyAdds = 0.0;                   // multiply-adds of the products and convolutions per run (FLOPs / 2)
};

/** A loaded model. Loading runs in stages, each in its own file and each refusing what it finds
    wrong with a ModelError:
      1. the file: safetensors container, tensors, metadata (ModelFile.h)
      2. the metadata's format marker, then the graph: values, nodes and their ops (ModelMetadata.h, Graph.h)
      3. the labels and the front end, checked against the graph's output and input (ModelMetadata.h, FrontendSettings.h)
      4. fusion (Fusion.h), then memory planning (MemoryPlan.h), inside the memory budget
      5. the work budget: the graph's and the front end's operations per run (Work.h)
    Sessions (Session.h) then run it. */
class Model
{
public:
    /** Loads and validates a model file; throws ModelError saying what is wrong. Nothing in the
        file is trusted: every size is checked, memory is claimed from limits.maxMemoryBytes before
        it is allocated (one Session's activations included), and a graph whose run() would do
        more than limits.maxOpsPerRun operations is refused. */
    static std::shared_ptr<const Model> load (const std::string& path, const LoadLimits& limits = {});
    static std::shared_ptr<const Model> fromMemory (const std::uint8_t* bytes, std::size_t numBytes, const std::string& name,
                                                    const LoadLimits& limits = {});

    const ModelInfo& info() const noexcept { return info_; }

    /** A tensor stored in the file (weights, or extras such as the front end's filterbank), or nullptr. */
    const StoredTensor* storedTensor (const std::string& name) const noexcept { return file_.find (name); }
    const float* storedData (const StoredTensor& tensor) const noexcept { return file_.data (tensor); }

    // ----- for Session and profiles ---------------------------------------------------------
    const std::vector<Node>& nodes() const noexcept { return graph_.nodes; }
    const std::vector<ValueId>& inputValues() const noexcept { return graph_.inputs; }
    const std::vector<ValueId>& outputValues() const noexcept { return graph_.outputs; }
    const ValueLocation& location (ValueId value) const noexcept { return graph_.location (value); }
    std::size_t arenaFloats() const noexcept { return memory_.arenaFloats; }
    std::size_t scratchFloats() const noexcept { return memory_.scratchFloats; }

    Model (const Model&) = delete;
    Model& operator= (const Model&) = delete;

private:
    Model() = default;
    static std::shared_ptr<const Model> fromFile (ModelFile file, const std::string& name, LoadBudget& budget);
    void build (LoadBudget& budget);
    void readFrontend (LoadBudget& budget);
    void checkWork (const LoadLimits& limits) const;

    ModelFile file_;
    ModelInfo info_;
    Graph graph_;
    MemoryPlan memory_;
};

} // namespace sonotype::engine
