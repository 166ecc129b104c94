#include "engine/Model.h"

#include "engine/Json.h"
#include "engine/ModelError.h"

#include <algorithm>
#include <limits>

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

    const std::vector<JsonValue>& array (const JsonValue& object, const char* key, const std::string& where)
    {
        const auto& value = member (object, key, where);
        if (! value.isArray())
            throw ModelError (where + ": '" + key + "' is not a list");
        return value.asArray();
    }
} // namespace

std::shared_ptr<const Model> Model::load (const std::string& path)
{
    return fromFile (ModelFile::read (path), path);
}

std::shared_ptr<const Model> Model::fromMemory (const std::uint8_t* bytes, std::size_t numBytes, const std::string& name)
{
    return fromFile (ModelFile::parse (bytes, numBytes, name), name);
}

std::shared_ptr<const Model> Model::fromFile (ModelFile file, const std::string& name)
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
        model->build (graph->second);
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

void Model::build (const std::string& graphJson)
{
    const auto graph = parseJson (graphJson);
    if (! graph.isObject())
        throw ModelError ("graph is not a JSON object");
    const auto& values = array (graph, "values", "graph");
    if (values.size() > kMaxValues)
        throw ModelError ("graph has too many values");

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
                throw ModelError (where + ": stored tensor '" + (name.isString() ? name.asString() : "?") + "' is not in the file");
            if (tensor->shape != shapes[v])
                throw ModelError (where + ": tensor '" + tensor->name + "' is " + tensor->shape.toString() + " in the file but "
                                  + shapes[v].toString() + " in the graph");
            locations_[v].stored = file_.data (*tensor);
            defined[v] = true;
        }
        else
            throw ModelError (where + ": unknown kind '" + kind.asString() + "'");
    }

    for (const auto& item : array (graph, "inputs", "graph"))
    {
        const int v = valueId (item, values.size(), "graph inputs");
        if (kinds[static_cast<std::size_t> (v)] != Kind::input || defined[static_cast<std::size_t> (v)])
            throw ModelError ("graph input " + std::to_string (v) + " is not an input value, or listed twice");
        defined[static_cast<std::size_t> (v)] = true;
        inputs_.push_back (v);
        info_.inputShapes.push_back (shapes[static_cast<std::size_t> (v)]);
    }
    if (inputs_.empty())
        throw ModelError ("graph has no inputs");

    const auto& nodes = array (graph, "nodes", "graph");
    for (std::size_t n = 0; n < nodes.size(); ++n)
    {
        const auto& json = nodes[n];
        const auto& opName = member (json, "op", "node " + std::to_string (n));
        if (! opName.isString())
            throw ModelError ("node " + std::to_string (n) + ": op is not a string");
        Node node;
        node.op = opName.asString();
        const auto where = "node " + std::to_string (n) + " (" + node.op + ")";
        if (const auto* source = json.find ("source"); source != nullptr && source->isString())
            node.source = source->asString();
        std::vector<std::optional<Shape>> inputShapes;
        for (const auto& item : array (json, "inputs", where))
        {
            if (item.isNull())
            {
                node.inputs.push_back (-1);
                inputShapes.emplace_back();
                continue;
            }
            const int v = valueId (item, values.size(), where);
            if (! defined[static_cast<std::size_t> (v)])
                throw ModelError (where + ": uses value " + std::to_string (v) + " before it is computed");
            node.inputs.push_back (v);
            inputShapes.emplace_back (shapes[static_cast<std::size_t> (v)]);
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
            node.kernel = createOp (OpArgs (node.op, json.find ("attrs"), std::move (inputShapes), std::move (outputShapes)));
        }
        catch (const std::exception& e)
        {
            throw ModelError (where + (node.source.empty() ? "" : " from " + node.source) + ": " + e.what());
        }
        ++info_.opCounts[node.op];
        nodes_.push_back (std::move (node));
    }
    for (std::size_t v = 0; v < values.size(); ++v)
        if (kinds[v] == Kind::node && ! defined[v])
            throw ModelError ("value " + std::to_string (v) + " is never computed");

    for (const auto& item : array (graph, "outputs", "graph"))
    {
        const int v = valueId (item, values.size(), "graph outputs");
        outputs_.push_back (v);
        info_.outputShapes.push_back (shapes[static_cast<std::size_t> (v)]);
    }
    if (outputs_.empty())
        throw ModelError ("graph has no outputs");

    const auto& metadata = file_.metadata();
    if (const auto labels = metadata.find ("labels"); labels != metadata.end())
    {
        const auto list = parseJson (labels->second);
        if (! list.isArray())
            throw ModelError ("labels metadata is not a list");
        for (const auto& label : list.asArray())
        {
            if (! label.isString())
                throw ModelError ("labels metadata holds a non-string");
            info_.labels.push_back (label.asString());
        }
        const auto& first = info_.outputShapes.front();
        if (! info_.labels.empty() && (first.rank() == 0 || first[first.rank() - 1] != static_cast<int64_t> (info_.labels.size())))
            throw ModelError (std::to_string (info_.labels.size()) + " labels do not match the output shape " + first.toString());
    }
    if (const auto frontend = metadata.find ("frontend"); frontend != metadata.end())
    {
        if (! parseJson (frontend->second).isObject())
            throw ModelError ("frontend metadata is not a JSON object");
        info_.frontendJson = frontend->second;
    }
    info_.metadata = metadata;
    info_.numParameters = file_.numWeightFloats();
    info_.numNodes = nodes_.size();
    plan (shapes);
}

void Model::plan (const std::vector<Shape>& shapes)
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
    }
    // Outputs are read after run(); inputs are written once and must survive run() unchanged.
    for (int v : outputs_)
        last[static_cast<std::size_t> (root[static_cast<std::size_t> (v)])] = numNodes;
    for (int v : inputs_)
        last[static_cast<std::size_t> (v)] = numNodes;

    // Greedy placement, largest first, of buffers whose lifetimes [first, last] overlap.
    struct Block
    {
        std::size_t value, size, offset;
        int first, last;
    };
    std::vector<Block> blocks;
    for (std::size_t v = 0; v < numValues; ++v)
        if (root[v] == static_cast<int> (v) && locations_[v].stored == nullptr && first[v] != kUnused)
            blocks.push_back ({ v, AlignedBuffer::roundUp (static_cast<std::size_t> (shapes[v].numElements())), 0, first[v], last[v] });
    std::sort (blocks.begin(), blocks.end(), [] (const Block& a, const Block& b) { return a.size != b.size ? a.size > b.size : a.value < b.value; });
    std::vector<const Block*> placed;
    for (auto& block : blocks)
    {
        std::vector<const Block*> conflicts;
        for (const auto* other : placed)
            if (other->first <= block.last && block.first <= other->last)
                conflicts.push_back (other);
        std::sort (conflicts.begin(), conflicts.end(), [] (const Block* a, const Block* b) { return a->offset < b->offset; });
        std::size_t offset = 0;
        for (const auto* other : conflicts)
        {
            if (offset + block.size <= other->offset)
                break;
            offset = std::max (offset, other->offset + other->size);
        }
        block.offset = offset;
        arenaFloats_ = std::max (arenaFloats_, offset + block.size);
        placed.push_back (&block);
    }
    for (const auto& block : blocks)
    {
        locations_[block.value].arenaOffset = block.offset;
        info_.activationBytesWithoutReuse += block.size * sizeof (float);
    }
    for (std::size_t v = 0; v < numValues; ++v)
        if (root[v] != static_cast<int> (v))
            locations_[v] = locations_[static_cast<std::size_t> (root[v])];
    info_.activationBytes = (arenaFloats_ + scratchFloats_) * sizeof (float);
}

} // namespace sonotype::engine
