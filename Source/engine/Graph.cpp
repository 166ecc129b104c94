#include "engine/Graph.h"

#include "engine/file/Json.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFileKeys.h"
#include "engine/file/Text.h"

namespace sonotype::engine
{
namespace
{
    constexpr std::size_t kMaxValues = 1 << 20;

    enum class ValueKind
    {
        input,
        tensor,
        node
    };

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

    /** Reads the graph JSON into a Graph, one part at a time; the parts refer to values by id. */
    class GraphReader
    {
    public:
        GraphReader (const JsonValue& json, const ModelFile& file, const WorkWeights& weights, LoadBudget& budget)
            : json_ (json), file_ (file), weights_ (weights), budget_ (budget)
        {
        }

        Graph read()
        {
            readValues();
            readInputs();
            const auto& nodes = array (json_, keys::nodes, keys::graph);
            for (std::size_t n = 0; n < nodes.size(); ++n)
                readNode (nodes[n], n);
            for (std::size_t v = 0; v < kinds_.size(); ++v)
                if (kinds_[v] == ValueKind::node && ! defined_[v])
                    throw ModelError ("value " + std::to_string (v) + " is never computed");
            readOutputs();
            return std::move (graph_);
        }

    private:
        ValueId valueId (const JsonValue& item, const std::string& where) const
        {
            if (! item.isNumber())
                throw ModelError (where + ": value reference is not a number");
            const auto id = item.asInt();
            if (id < 0 || static_cast<std::size_t> (id) >= kinds_.size())
                throw ModelError (where + ": value " + std::to_string (id) + " does not exist (the graph has " + std::to_string (kinds_.size())
                                  + " values)");
            return { static_cast<std::int32_t> (id) };
        }

        void readValues()
        {
            const auto& values = array (json_, keys::values, keys::graph);
            if (values.size() > kMaxValues)
                throw ModelError ("graph has " + std::to_string (values.size()) + " values, more than the engine's limit of "
                                  + std::to_string (kMaxValues));
            // Per value: its shape, kind and location here, and the planner's tables.
            budget_.claim (values.size(), sizeof (Shape) + sizeof (ValueLocation) + 64, "the graph's " + std::to_string (values.size()) + " values");
            graph_.shapes.resize (values.size());
            graph_.locations.assign (values.size(), {});
            kinds_.resize (values.size());
            defined_.assign (values.size(), false);
            for (std::size_t v = 0; v < values.size(); ++v)
            {
                const auto where = "value " + std::to_string (v);
                for (const auto& dim : array (values[v], keys::shape, where))
                {
                    if (! dim.isNumber() || dim.asInt() < 0 || dim.asInt() > (int64_t { 1 } << 32))
                        throw ModelError (where + ": invalid dimension");
                    graph_.shapes[v].push (dim.asInt());
                }
                const auto& kind = member (values[v], keys::kind, where);
                if (! kind.isString())
                    throw ModelError (where + ": kind is not a string");
                if (kind.asString() == keys::kindInput)
                    kinds_[v] = ValueKind::input;
                else if (kind.asString() == keys::kindNode)
                    kinds_[v] = ValueKind::node;
                else if (kind.asString() == keys::kindTensor)
                {
                    kinds_[v] = ValueKind::tensor;
                    const auto& name = member (values[v], keys::tensor, where);
                    const auto* tensor = name.isString() ? file_.find (name.asString()) : nullptr;
                    if (tensor == nullptr)
                        throw ModelError (where + ": stored tensor " + (name.isString() ? quote (name.asString()) : "(not a string)") + " is not in the file");
                    if (tensor->shape != graph_.shapes[v])
                        throw ModelError (where + ": tensor '" + tensor->name + "' is " + tensor->shape.toString() + " in the file but "
                                          + graph_.shapes[v].toString() + " in the graph");
                    graph_.locations[v].stored = file_.data (*tensor);
                    defined_[v] = true;
                }
                else
                    throw ModelError (where + ": unknown kind " + quote (kind.asString()));
            }
        }

        void readInputs()
        {
            for (const auto& item : array (json_, keys::inputs, keys::graph))
            {
                const auto v = valueId (item, "graph inputs");
                if (kinds_[v.index()] != ValueKind::input || defined_[v.index()])
                    throw ModelError ("graph input " + std::to_string (v.id) + " is not an input value, or listed twice");
                defined_[v.index()] = true;
                if (graph_.shape (v).numElements() == 0)
                    throw ModelError ("graph input " + std::to_string (v.id) + " has shape " + graph_.shape (v).toString() + ", which holds no elements");
                graph_.inputs.push_back (v);
            }
            if (graph_.inputs.empty())
                throw ModelError ("graph has no inputs");
        }

        void readNode (const JsonValue& json, std::size_t n)
        {
            const auto& opName = member (json, keys::op, "node " + std::to_string (n));
            if (! opName.isString())
                throw ModelError ("node " + std::to_string (n) + ": op is not a string");
            Node node;
            const auto where = "node " + std::to_string (n) + " (" + opName.asString().substr (0, 64) + ")";
            if (const auto* source = json.find (keys::source); source != nullptr && source->isString())
                node.source = source->asString();
            std::vector<std::optional<Shape>> inputShapes;
            std::vector<const float*> constants;
            for (const auto& item : array (json, keys::inputs, where))
            {
                if (item.isNull())
                {
                    node.inputs.push_back ({});
                    inputShapes.emplace_back();
                    constants.push_back (nullptr);
                    continue;
                }
                const auto v = valueId (item, where);
                if (! defined_[v.index()])
                    throw ModelError (where + ": uses value " + std::to_string (v.id) + " before it is computed");
                node.inputs.push_back (v);
                inputShapes.emplace_back (graph_.shape (v));
                constants.push_back (graph_.location (v).stored);
            }
            std::vector<Shape> outputShapes;
            for (const auto& item : array (json, keys::outputs, where))
            {
                const auto v = valueId (item, where);
                if (kinds_[v.index()] != ValueKind::node || defined_[v.index()])
                    throw ModelError (where + ": output " + std::to_string (v.id) + " is not a fresh node value");
                defined_[v.index()] = true;
                node.outputs.push_back (v);
                outputShapes.push_back (graph_.shape (v));
            }
            if (node.outputs.empty())
                throw ModelError (where + ": has no outputs");
            try
            {
                const auto* spec = findOp (opName.asString());
                if (spec == nullptr)
                    throw ModelError ("unknown op " + quote (opName.asString()) + " (this engine runs: see `sonotype inspect --ops`)");
                node.kind = spec->kind;
                const OpArgs args (node.kind, json.find (keys::attrs), std::move (inputShapes), std::move (outputShapes), budget_, std::move (constants));
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
                // A reshape of a stored tensor is stored data too (memory planning places the rest).
                if (! node.inputs.empty() && node.inputs[0].present())
                    graph_.location (node.outputs[0]).stored = graph_.location (node.inputs[0]).stored;
            }
            else
                countWork (node, where);
            graph_.nodes.push_back (std::move (node));
        }

        /** What run() costs: the op's own steps, one pass over each operand and the call. */
        void countWork (const Node& node, const std::string& where)
        {
            auto steps = node.kernel->work();
            double operandFloats = 0.0;
            for (const auto v : node.inputs)
                if (v.present())
                    operandFloats += static_cast<double> (graph_.shape (v).loopCount());
            for (const auto v : node.outputs)
                operandFloats += static_cast<double> (graph_.shape (v).loopCount());
            steps.streamed += operandFloats;
            steps.calls += 1.0;
            const double work = weights_.operations (steps, operandFloats);
            graph_.opsPerRun += work;
            graph_.multiplyAdds += node.kernel->multiplyAdds();
            if (work > graph_.heaviestOps)
            {
                graph_.heaviestOps = work;
                graph_.heaviest = where;
            }
        }

        void readOutputs()
        {
            for (const auto& item : array (json_, keys::outputs, keys::graph))
            {
                const auto v = valueId (item, "graph outputs");
                const auto& shape = graph_.shape (v);
                if (! defined_[v.index()])
                    throw ModelError ("graph output " + std::to_string (v.id) + " is neither a graph input, a stored tensor nor computed by a node");
                if (shape.numElements() == 0)
                    throw ModelError ("graph output " + std::to_string (v.id) + " has shape " + shape.toString() + ", which holds no elements");
                graph_.outputs.push_back (v);
            }
            if (graph_.outputs.empty())
                throw ModelError ("graph has no outputs");
        }

        const JsonValue& json_;
        const ModelFile& file_;
        const WorkWeights& weights_;
        LoadBudget& budget_;
        Graph graph_;
        std::vector<ValueKind> kinds_;
        std::vector<bool> defined_; // inputs, stored tensors, and node outputs computed so far
    };
} // namespace

Graph buildGraph (const std::string& graphJson, const ModelFile& file, const WorkWeights& weights, LoadBudget& budget)
{
    std::size_t parsedBytes = 0;
    const auto json = parseJson (graphJson, budget.remainingBytes(), parsedBytes);
    budget.claim (parsedBytes, "the parsed graph");
    if (! json.isObject())
        throw ModelError ("graph is not a JSON object");
    return GraphReader (json, file, weights, budget).read();
}

std::vector<int> countReaders (const Graph& graph)
{
    std::vector<int> readers (graph.shapes.size(), 0);
    for (const auto& node : graph.nodes)
        for (const auto v : node.inputs)
            if (v.present())
                ++readers[v.index()];
    for (const auto v : graph.outputs)
        ++readers[v.index()];
    return readers;
}

} // namespace sonotype::engine
