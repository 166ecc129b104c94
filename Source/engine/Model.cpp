#include "engine/Model.h"

#include "engine/CpuDispatch.h"
#include "engine/Json.h"
#include "engine/ModelError.h"
#include "engine/kernels/Kernels.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

namespace sonotype::engine
{
namespace
{
    constexpr std::size_t kMaxValues = 1 << 20;

    int valueId (const JsonValue& item, std::size_t numValues, const std::string& where)
    {
        if (! item.isNumber())
            throw ModelError (where + ": value reference is not a number");
        const auto id = item.asInt();
        if (id < 0 || static_cast<std::size_t> (id) >= numValues)
            throw ModelError (where + ": value " + std::to_string (id) + " does not exist (the graph has " + std::to_string (numValues) + " values)");
        return static_cast<int> (id);
    }

    const JsonValue& member (const JsonValue& object, const char* key, const std::string& where)
    {
        const auto* value = object.isObject() ? object.find (key) : nullptr;
        if (value == nullptr)
            throw ModelError (where + ": missing '" + key + "'");
        return *value;
    }

    std::string describeOps (double ops)
    {
        char text[32];
        std::snprintf (text, sizeof (text), "%.3g", ops);
        return text;
    }

    const std::vector<JsonValue>& array (const JsonValue& object, const char* key, const std::string& where)
    {
        const auto& value = member (object, key, where);
        if (! value.isArray())
            throw ModelError (where + ": '" + key + "' is not a list");
        return value.asArray();
    }
} // namespace

std::shared_ptr<const Model> Model::load (const std::string& path, const LoadLimits& limits)
{
    LoadBudget budget (limits);
    return fromFile (ModelFile::read (path, budget), path, budget);
}

std::shared_ptr<const Model> Model::fromMemory (const std::uint8_t* bytes, std::size_t numBytes, const std::string& name, const LoadLimits& limits)
{
    LoadBudget budget (limits);
    return fromFile (ModelFile::parse (bytes, numBytes, name, budget), name, budget);
}

std::shared_ptr<const Model> Model::fromFile (ModelFile file, const std::string& name, LoadBudget& budget)
{
    std::shared_ptr<Model> model (new Model());
    model->file_ = std::move (file);
    model->info_.name = name;
    try
    {
        const auto& metadata = model->file_.metadata();
        const auto format = metadata.find ("format");
        if (format == metadata.end() || format->second != "sonotype")
            throw ModelError ("not a Sonotype model (its metadata has no \"format\": \"sonotype\"); export models with sonotype.export.export_model");
        const auto version = metadata.find ("format_version");
        if (version == metadata.end() || version->second != std::to_string (kFormatVersion))
            throw ModelError ("format_version " + (version == metadata.end() ? std::string ("(missing)") : version->second)
                              + " is not supported: this engine reads version " + std::to_string (kFormatVersion));
        const auto graph = metadata.find ("graph");
        if (graph == metadata.end())
            throw ModelError ("the metadata has no graph");
        model->build (graph->second, budget);
    }
    catch (const ModelError& e)
    {
        throw ModelError ("model file '" + name + "': " + e.what());
    }
    catch (const JsonError& e)
    {
        throw ModelError ("model file '" + name + "': graph metadata: " + e.what());
    }
    return model;
}

void Model::build (const std::string& graphJson, LoadBudget& budget)
{
    const auto& weights = *activeKernelPath().workWeights;
    std::size_t parsedBytes = 0;
    const auto graph = parseJson (graphJson, budget.remainingBytes(), parsedBytes);
    budget.claim (parsedBytes, "the parsed graph");
    if (! graph.isObject())
        throw ModelError ("graph is not a JSON object");
    const auto& values = array (graph, "values", "graph");
    if (values.size() > kMaxValues)
        throw ModelError ("graph has " + std::to_string (values.size()) + " values, more than the engine's limit of " + std::to_string (kMaxValues));
    // Per value: its shape, kind and location here, and the planner's tables.
    budget.claim (values.size(), sizeof (Shape) + sizeof (Location) + 64, "the graph's " + std::to_string (values.size()) + " values");

    enum class Kind { input, tensor, node };
    std::vector<Shape> shapes (values.size());
    std::vector<Kind> kinds (values.size());
    std::vector<bool> defined (values.size(), false);
    locations_.assign (values.size(), {});
    for (std::size_t v = 0; v < values.size(); ++v)
    {
        const auto where = "value " + std::to_string (v);
        for (const auto& dim : array (values[v], "shape", where))
        {
            if (! dim.isNumber() || dim.asInt() < 0 || dim.asInt() > (int64_t { 1 } << 32))
                throw ModelError (where + ": invalid dimension");
            shapes[v].push (dim.asInt());
        }
        const auto& kind = member (values[v], "kind", where);
        if (! kind.isString())
            throw ModelError (where + ": kind is not a string");
        if (kind.asString() == "input")
            kinds[v] = Kind::input;
        else if (kind.asString() == "node")
            kinds[v] = Kind::node;
        else if (kind.asString() == "tensor")
        {
            kinds[v] = Kind::tensor;
            const auto& name = member (values[v], "tensor", where);
            const auto* tensor = name.isString() ? file_.find (name.asString()) : nullptr;
            if (tensor == nullptr)
                throw ModelError (where + ": stored tensor " + (name.isString() ? quote (name.asString()) : "(not a string)") + " is not in the file");
            if (tensor->shape != shapes[v])
                throw ModelError (where + ": tensor '" + tensor->name + "' is " + tensor->shape.toString() + " in the file but "
                                  + shapes[v].toString() + " in the graph");
            locations_[v].stored = file_.data (*tensor);
            defined[v] = true;
        }
        else
            throw ModelError (where + ": unknown kind " + quote (kind.asString()));
    }

    for (const auto& item : array (graph, "inputs", "graph"))
    {
        const int v = valueId (item, values.size(), "graph inputs");
        if (kinds[static_cast<std::size_t> (v)] != Kind::input || defined[static_cast<std::size_t> (v)])
            throw ModelError ("graph input " + std::to_string (v) + " is not an input value, or listed twice");
        defined[static_cast<std::size_t> (v)] = true;
        if (shapes[static_cast<std::size_t> (v)].numElements() == 0)
            throw ModelError ("graph input " + std::to_string (v) + " has shape " + shapes[static_cast<std::size_t> (v)].toString()
                              + ", which holds no elements");
        inputs_.push_back (v);
        info_.inputShapes.push_back (shapes[static_cast<std::size_t> (v)]);
    }
    if (inputs_.empty())
        throw ModelError ("graph has no inputs");

    const auto& nodes = array (graph, "nodes", "graph");
    double heaviestWork = 0.0;
    std::string heaviest;
    for (std::size_t n = 0; n < nodes.size(); ++n)
    {
        const auto& json = nodes[n];
        const auto& opName = member (json, "op", "node " + std::to_string (n));
        if (! opName.isString())
            throw ModelError ("node " + std::to_string (n) + ": op is not a string");
        Node node;
        const auto where = "node " + std::to_string (n) + " (" + opName.asString().substr (0, 64) + ")";
        if (const auto* source = json.find ("source"); source != nullptr && source->isString())
            node.source = source->asString();
        std::vector<std::optional<Shape>> inputShapes;
        std::vector<const float*> constants;
        for (const auto& item : array (json, "inputs", where))
        {
            if (item.isNull())
            {
                node.inputs.push_back (-1);
                inputShapes.emplace_back();
                constants.push_back (nullptr);
                continue;
            }
            const int v = valueId (item, values.size(), where);
            if (! defined[static_cast<std::size_t> (v)])
                throw ModelError (where + ": uses value " + std::to_string (v) + " before it is computed");
            node.inputs.push_back (v);
            inputShapes.emplace_back (shapes[static_cast<std::size_t> (v)]);
            constants.push_back (locations_[static_cast<std::size_t> (v)].stored);
        }
        std::vector<Shape> outputShapes;
        for (const auto& item : array (json, "outputs", where))
        {
            const int v = valueId (item, values.size(), where);
            if (kinds[static_cast<std::size_t> (v)] != Kind::node || defined[static_cast<std::size_t> (v)])
                throw ModelError (where + ": output " + std::to_string (v) + " is not a fresh node value");
            defined[static_cast<std::size_t> (v)] = true;
            node.outputs.push_back (v);
            outputShapes.push_back (shapes[static_cast<std::size_t> (v)]);
        }
        if (node.outputs.empty())
            throw ModelError (where + ": has no outputs");
        try
        {
            const auto* spec = findOp (opName.asString());
            if (spec == nullptr)
                throw ModelError ("unknown op " + quote (opName.asString()) + " (this engine runs: see `sonotype inspect --ops`)");
            node.kind = spec->kind;
            const OpArgs args (node.kind, json.find ("attrs"), std::move (inputShapes), std::move (outputShapes), budget, std::move (constants));
            node.kernel = createOp (args);
            if (node.kind == OpKind::softmax || node.kind == OpKind::logSoftmax)
            {
                // Its rows lie along its input's last axis when nothing but ones follows its axis.
                const auto& x = args.input (0);
                const int axis = args.axisOrScalar ("axis", x.rank());
                if (x.rank() == 0)
                    node.rowLength = 1;
                else if (x.product (axis + 1, x.rank()) == 1)
                    node.rowLength = x[axis];
            }
        }
        catch (const std::exception& e)
        {
            throw ModelError (where + (node.source.empty() ? "" : " from " + quote (node.source, 120)) + ": " + e.what());
        }
        if (node.kernel->aliasesInput())
        {
            // A reshape of a stored tensor is stored data too (plan() places the rest).
            if (! node.inputs.empty() && node.inputs[0] >= 0)
                locations_[static_cast<std::size_t> (node.outputs[0])].stored = locations_[static_cast<std::size_t> (node.inputs[0])].stored;
        }
        else
        {
            // What run() costs: the op's own steps, one pass over each operand and the call.
            auto steps = node.kernel->work();
            double operandFloats = 0.0;
            for (int v : node.inputs)
                if (v >= 0)
                    operandFloats += static_cast<double> (shapes[static_cast<std::size_t> (v)].loopCount());
            for (int v : node.outputs)
                operandFloats += static_cast<double> (shapes[static_cast<std::size_t> (v)].loopCount());
            steps.streamed += operandFloats;
            steps.calls += 1.0;
            const double work = weights.operations (steps, operandFloats);
            info_.opsPerRun += work;
            info_.multiplyAdds += node.kernel->multiplyAdds();
            if (work > heaviestWork)
            {
                heaviestWork = work;
                heaviest = where;
            }
        }
        ++info_.opCounts[std::string (node.op())];
        nodes_.push_back (std::move (node));
    }
    for (std::size_t v = 0; v < values.size(); ++v)
        if (kinds[v] == Kind::node && ! defined[v])
            throw ModelError ("value " + std::to_string (v) + " is never computed");

    for (const auto& item : array (graph, "outputs", "graph"))
    {
        const int v = valueId (item, values.size(), "graph outputs");
        const auto& shape = shapes[static_cast<std::size_t> (v)];
        if (! defined[static_cast<std::size_t> (v)])
            throw ModelError ("graph output " + std::to_string (v) + " is neither a graph input, a stored tensor nor computed by a node");
        if (shape.numElements() == 0)
            throw ModelError ("graph output " + std::to_string (v) + " has shape " + shape.toString() + ", which holds no elements");
        outputs_.push_back (v);
        info_.outputShapes.push_back (shape);
    }
    if (outputs_.empty())
        throw ModelError ("graph has no outputs");

    const auto& metadata = file_.metadata();
    if (const auto labels = metadata.find ("labels"); labels != metadata.end())
    {
        std::size_t labelBytes = 0;
        const auto list = parseJson (labels->second, budget.remainingBytes(), labelBytes);
        budget.claim (labelBytes, "the labels");
        if (! list.isArray())
            throw ModelError ("labels metadata is not a list");
        // Labels are shown in terminals, CSV rows and GUIs: short, distinct, visible text only.
        std::size_t labelsBytes = 0;
        std::set<std::string> seen;
        for (const auto& label : list.asArray())
        {
            const auto what = "label " + std::to_string (info_.labels.size());
            if (! label.isString())
                throw ModelError (what + " is not a string");
            const auto& text = label.asString();
            checkDisplayText (text, kMaxLabelBytes, what);
            labelsBytes += text.size();
            if (labelsBytes > kMaxLabelsBytes)
                throw ModelError ("the labels take more than " + describeBytes (kMaxLabelsBytes) + " (" + what + " is the first past it)");
            if (! seen.insert (text).second)
                throw ModelError (what + " " + quote (text) + " repeats an earlier label");
            info_.labels.push_back (text);
        }
        const auto& first = info_.outputShapes.front();
        if (! info_.labels.empty() && (first.rank() == 0 || first[first.rank() - 1] != static_cast<int64_t> (info_.labels.size())))
            throw ModelError (std::to_string (info_.labels.size()) + " labels do not match the output shape " + first.toString());
    }
    if (const auto frontend = metadata.find ("frontend"); frontend != metadata.end())
    {
        // The front end is part of the file: validated here, its buffers and work inside the budgets.
        info_.frontend = FrontendSettings::forModel (frontend->second, info_.inputShapes.front(), file_);
        info_.frontendJson = frontend->second;
        if (info_.frontend.has_value())
        {
            const auto cost = info_.frontend->cost();
            budget.claim (cost.bytes, "one analyzer's front end");
            info_.frontendBytes = cost.bytes;
            info_.frontendOpsPerWindow = weights.operations (cost.perWindow);
        }
    }
    // Who reads each value (graph outputs count as readers); fusion changes no node's inputs.
    std::vector<int> readers (values.size(), 0);
    for (const auto& node : nodes_)
        for (int v : node.inputs)
            if (v >= 0)
                ++readers[static_cast<std::size_t> (v)];
    for (int v : outputs_)
        ++readers[static_cast<std::size_t> (v)];
    info_.scores = outputScores(); // before fusion turns nodes into aliases
    fuse (readers, budget);
    // Outputs nothing reads (attention's probabilities, say) need not be computed.
    for (auto& node : nodes_)
        for (std::size_t i = 1; i < node.outputs.size(); ++i)
            if (readers[static_cast<std::size_t> (node.outputs[i])] == 0)
                node.kernel->outputUnused (i);

    info_.metadata = metadata;
    info_.numParameters = file_.numWeightFloats();
    info_.numNodes = nodes_.size();
    plan (shapes, budget);
    info_.loadBytes = budget.usedBytes();
    // Checked once the memory is: a model too big for both is refused for its memory.
    const double maxOps = budget.limits().maxOpsPerRun;
    if (info_.frontendOpsPerWindow > info_.opsPerRun && info_.opsPerRun + info_.frontendOpsPerWindow > maxOps && ! info_.frontend->isWaveform())
    {
        const auto& f = *info_.frontend;
        throw ModelError ("the front end needs about " + describeOps (info_.frontendOpsPerWindow) + " operations per window (n_fft "
                          + std::to_string (f.nFft) + ", " + std::to_string (f.framesPerWindow()) + " frames of " + std::to_string (f.nMels)
                          + " mel bands), the graph " + describeOps (info_.opsPerRun) + ": more than the work budget of " + describeOps (maxOps));
    }
    if (info_.opsPerRun + info_.frontendOpsPerWindow > maxOps)
        throw ModelError ("the graph needs about " + describeOps (info_.opsPerRun) + " operations per run, more than the work budget of "
                          + describeOps (maxOps) + " (" + heaviest + " alone: " + describeOps (heaviestWork) + ")");
}

OutputScores Model::outputScores() const
{
    // The node computing output 0, through reshapes (which keep the class axis last when its size is kept).
    int value = outputs_.front();
    const auto& output = info_.outputShapes.front();
    const int64_t classes = output.rank() > 0 ? output[output.rank() - 1] : 1;
    for (auto node = nodes_.rbegin(); node != nodes_.rend(); ++node)
    {
        if (std::find (node->outputs.begin(), node->outputs.end(), value) == node->outputs.end())
            continue;
        if (node->kind == OpKind::reshape)
        {
            value = node->inputs.front();
            continue;
        }
        if (node->kind == OpKind::sigmoid)
            return OutputScores::independentProbabilities;
        if (node->rowLength == classes)
            return node->kind == OpKind::logSoftmax ? OutputScores::logProbabilities : OutputScores::probabilities;
        return OutputScores::logits;
    }
    return OutputScores::logits;
}

void Model::fuse (const std::vector<int>& readers, LoadBudget& budget)
{
    // Who computes each value.
    std::vector<int> producer (readers.size(), -1);
    for (std::size_t n = 0; n < nodes_.size(); ++n)
        for (int v : nodes_[n].outputs)
            producer[static_cast<std::size_t> (v)] = static_cast<int> (n);
    // A node that is the only reader of a single-output producer's value may be absorbed by it:
    // then it becomes an alias of that value (the planner gives both one buffer).
    for (auto& node : nodes_)
    {
        if (node.inputs.empty() || node.inputs[0] < 0 || node.outputs.size() != 1)
            continue;
        const auto source = static_cast<std::size_t> (node.inputs[0]);
        if (readers[source] != 1 || producer[source] < 0)
            continue;
        auto& from = nodes_[static_cast<std::size_t> (producer[source])];
        if (from.outputs.size() != 1)
            continue;
        bool fused = false;
        if (node.kind == OpKind::batchNorm)
        {
            std::vector<const float*> constants;
            for (int v : node.inputs)
                constants.push_back (v < 0 ? nullptr : locations_[static_cast<std::size_t> (v)].stored);
            std::vector<float> scale, shift;
            fused = node.kernel->scaleShift (constants, scale, shift) && from.kernel->foldScaleShift (scale, shift, budget);
        }
        else if (node.kind == OpKind::relu)
            fused = from.kernel->fuseRelu();
        if (fused)
        {
            node.kernel = kernels::makeAlias();
            node.fusedInto = producer[source];
            // Its output is now the producer's: a following op may be absorbed by that one too.
            producer[static_cast<std::size_t> (node.outputs[0])] = producer[source];
        }
    }
}

void Model::plan (const std::vector<Shape>& shapes, LoadBudget& budget)
{
    // Each value lives in a "root" buffer: its own, its aliased input's (reshape), or a stored tensor.
    const std::size_t numValues = shapes.size();
    std::vector<int> root (numValues);
    for (std::size_t v = 0; v < numValues; ++v)
        root[v] = static_cast<int> (v);
    const int numNodes = static_cast<int> (nodes_.size());
    constexpr int kUnused = std::numeric_limits<int>::min();
    std::vector<int> first (numValues, kUnused), last (numValues, kUnused);
    for (int v : inputs_)
        first[static_cast<std::size_t> (v)] = last[static_cast<std::size_t> (v)] = -1;
    for (int n = 0; n < numNodes; ++n)
    {
        auto& node = nodes_[static_cast<std::size_t> (n)];
        for (int v : node.inputs)
            if (v >= 0)
            {
                auto& end = last[static_cast<std::size_t> (root[static_cast<std::size_t> (v)])];
                end = std::max (end, n);
            }
        if (node.kernel->aliasesInput())
        {
            const int source = root[static_cast<std::size_t> (node.inputs[0])];
            root[static_cast<std::size_t> (node.outputs[0])] = source;
            locations_[static_cast<std::size_t> (node.outputs[0])].stored = locations_[static_cast<std::size_t> (source)].stored;
            continue;
        }
        for (int v : node.outputs)
            first[static_cast<std::size_t> (v)] = last[static_cast<std::size_t> (v)] = n;
        scratchFloats_ = std::max (scratchFloats_, node.kernel->scratchFloats());
        info_.activationBytesWithoutReuse += AlignedBuffer::roundUp (node.kernel->scratchFloats()) * sizeof (float);
    }
    // Outputs are read after run(); inputs are written once and must survive run() unchanged.
    for (int v : outputs_)
        last[static_cast<std::size_t> (root[static_cast<std::size_t> (v)])] = numNodes;
    for (int v : inputs_)
        last[static_cast<std::size_t> (v)] = numNodes;

    // Buffers live from the node that writes them to the last node that reads them; a node's
    // outputs never share memory with its inputs. Placement walks the nodes in order with a
    // best-fit free list (coalescing neighbours): O(n log n) in the number of values.
    struct Block
    {
        std::size_t value, size;
        int first, last;
    };
    std::vector<Block> blocks;
    for (std::size_t v = 0; v < numValues; ++v)
        if (root[v] == static_cast<int> (v) && locations_[v].stored == nullptr && first[v] != kUnused)
        {
            blocks.push_back ({ v, AlignedBuffer::roundUp (static_cast<std::size_t> (shapes[v].numElements())), first[v], last[v] });
            info_.activationBytesWithoutReuse += blocks.back().size * sizeof (float);
        }
    // Times run from -1 (the graph inputs) to numNodes (read after run()); index them from 0.
    const auto slot = [] (int time) { return static_cast<std::size_t> (time + 1); };
    std::vector<std::vector<std::size_t>> startingAt (static_cast<std::size_t> (numNodes) + 2), endingAt (static_cast<std::size_t> (numNodes) + 2);
    for (std::size_t b = 0; b < blocks.size(); ++b)
    {
        startingAt[slot (blocks[b].first)].push_back (b);
        endingAt[slot (blocks[b].last)].push_back (b);
    }
    std::map<std::size_t, std::size_t> freeByOffset;         // offset -> size
    std::set<std::pair<std::size_t, std::size_t>> freeBySize; // (size, offset)
    std::size_t top = 0;                                      // end of the used arena
    std::vector<std::size_t> offsets (blocks.size(), 0);
    auto release = [&] (std::size_t offset, std::size_t size) {
        if (size == 0)
            return;
        auto next = freeByOffset.lower_bound (offset);
        if (next != freeByOffset.end() && offset + size == next->first)
        {
            size += next->second;
            freeBySize.erase ({ next->second, next->first });
            next = freeByOffset.erase (next);
        }
        if (next != freeByOffset.begin())
            if (auto previous = std::prev (next); previous->first + previous->second == offset)
            {
                offset = previous->first;
                size += previous->second;
                freeBySize.erase ({ previous->second, previous->first });
                freeByOffset.erase (previous);
            }
        if (offset + size == top)
        {
            top = offset; // the arena's end is free again
            return;
        }
        freeByOffset.emplace (offset, size);
        freeBySize.emplace (size, offset);
    };
    auto allocate = [&] (std::size_t size) {
        const auto fit = freeBySize.lower_bound ({ size, 0 });
        if (size == 0 || fit == freeBySize.end())
        {
            const auto offset = top;
            top += size;
            arenaFloats_ = std::max (arenaFloats_, top);
            return offset;
        }
        const auto [freeSize, offset] = *fit;
        freeBySize.erase (fit);
        freeByOffset.erase (offset);
        if (freeSize > size)
        {
            freeByOffset.emplace (offset + size, freeSize - size);
            freeBySize.emplace (freeSize - size, offset + size);
        }
        return offset;
    };
    for (int time = -1; time <= numNodes; ++time)
    {
        if (time >= 0)
            for (const auto b : endingAt[slot (time - 1)])
                release (offsets[b], blocks[b].size);
        auto& starting = startingAt[slot (time)];
        std::sort (starting.begin(), starting.end(), [&] (std::size_t a, std::size_t b) { return blocks[a].size > blocks[b].size; });
        for (const auto b : starting)
            offsets[b] = allocate (blocks[b].size);
    }
    for (std::size_t b = 0; b < blocks.size(); ++b)
        locations_[blocks[b].value].arenaOffset = offsets[b];
    for (std::size_t v = 0; v < numValues; ++v)
        if (root[v] != static_cast<int> (v))
            locations_[v] = locations_[static_cast<std::size_t> (root[v])];
    budget.claim (arenaFloats_ + scratchFloats_, sizeof (float), "one session's activations");
    info_.activationBytes = (arenaFloats_ + scratchFloats_) * sizeof (float);
}

} // namespace sonotype::engine
