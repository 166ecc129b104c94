// A loaded, validated, memory-planned model: immutable and shareable between threads.
// Run it through a Session (one per thread), which owns the mutable activation memory.
#pragma once

#include "engine/FrontendSettings.h"
#include "engine/LoadLimits.h"
#include "engine/ModelFile.h"
#include "engine/Op.h"

#include <map>
#include <memory>
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
    std::string name;                        // file path or a caller-given name
    std::vector<Shape> inputShapes, outputShapes;
    std::vector<std::string> labels;         // class labels, in output order (may be empty)
    std::string frontendJson = "{}";        // front-end settings as exported (JSON object)
    std::optional<FrontendSettings> frontend; // as validated at load; none for an empty object (no front end). Its stored
                                              // window and filterbank are the Model's memory: valid while the Model lives
    std::map<std::string, std::string> metadata; // everything in the file's __metadata__
    std::map<std::string, int> opCounts;
    OutputScores scores = OutputScores::logits;
    std::size_t numParameters = 0;           // floats stored in the file
    std::size_t numNodes = 0;
    std::size_t activationBytes = 0;         // per Session
    std::size_t activationBytesWithoutReuse = 0; // what it would be if no buffer (nor any op's scratch) were shared
    std::size_t loadBytes = 0;               // memory the load claimed from LoadLimits::maxMemoryBytes (one Session and one front end included)
    std::size_t frontendBytes = 0;           // of which one front end's buffers (FrontendSettings::cost)
    double opsPerRun = 0.0;                  // operations per Session::run(), in multiply-adds of the kernel path's product (engine/Work.h)
    double frontendOpsPerWindow = 0.0;       // the front end's, per window with every frame computed; with opsPerRun within the work budget
    double multiplyAdds = 0.0;               // multiply-adds of the products and convolutions per run (FLOPs / 2)
};

class Model
{
public:
    static constexpr int kFormatVersion = 1;
    /** Labels are shown in CSV rows, terminals and the GUI: each one at most this long (and valid
        UTF-8, distinct, without control or invisible characters: engine/Text.h), all together at
        most kMaxLabelsBytes. */
    static constexpr std::size_t kMaxLabelBytes = 256;
    static constexpr std::size_t kMaxLabelsBytes = std::size_t { 256 } << 10;

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

    // ----- for Session ---------------------------------------------------------------------
    struct Location
    {
        const float* stored = nullptr; // a stored tensor (or a reshape of one)
        std::size_t arenaOffset = 0;   // otherwise, floats into the Session's arena
    };
    struct Node
    {
        OpKind kind {};
        std::string source;
        std::vector<int> inputs, outputs; // input -1 = absent optional input
        std::unique_ptr<Op> kernel;
        int64_t rowLength = 0; // softmax and log-softmax over their input's last axis (only ones after their axis): its size
        std::string_view op() const noexcept { return opName (kind); }
        int fusedInto = -1; // the node that computes this node's output too (a BatchNorm folded into a conv), or -1
    };
    const std::vector<Node>& nodes() const noexcept { return nodes_; }
    const std::vector<int>& inputValues() const noexcept { return inputs_; }
    const std::vector<int>& outputValues() const noexcept { return outputs_; }
    const Location& location (int value) const noexcept { return locations_[static_cast<std::size_t> (value)]; }
    std::size_t arenaFloats() const noexcept { return arenaFloats_; }
    std::size_t scratchFloats() const noexcept { return scratchFloats_; }

    Model (const Model&) = delete;
    Model& operator= (const Model&) = delete;

private:
    Model() = default;
    static std::shared_ptr<const Model> fromFile (ModelFile file, const std::string& name, LoadBudget& budget);
    void build (const std::string& graphJson, LoadBudget& budget);
    void plan (const std::vector<Shape>& shapes, LoadBudget& budget);
    void fuse (const std::vector<int>& readers, LoadBudget& budget);
    OutputScores outputScores() const;

    ModelFile file_;
    ModelInfo info_;
    std::vector<Node> nodes_;
    std::vector<int> inputs_, outputs_;
    std::vector<Location> locations_;
    std::size_t arenaFloats_ = 0, scratchFloats_ = 0;
};

} // namespace sonotype::engine
