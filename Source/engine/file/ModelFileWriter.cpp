#include "engine/file/ModelFileWriter.h"

#include "engine/file/JsonWriter.h"
#include "engine/file/LoadBudget.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFile.h"
#include "engine/file/ModelFileKeys.h"
#include "engine/file/ModelMetadata.h"
#include "engine/file/Shape.h"
#include "engine/file/Text.h"

#include <cstring>
#include <limits>

namespace sonotype::engine
{
namespace
{
    /** The checks of a shape the reader makes (rank, sizes, elements), as a Shape. */
    Shape checkedShape (const std::vector<int64_t>& dims)
    {
        Shape shape;
        for (const auto d : dims)
            shape.push (d);
        return shape;
    }

    JsonValue integers (const std::vector<int>& items)
    {
        JsonValue::Array list;
        list.reserve (items.size());
        for (const auto item : items)
            list.push_back (JsonValue::integer (item));
        return JsonValue::array (std::move (list));
    }
} // namespace

ModelFileWriter::ModelFileWriter (std::span<const std::uint8_t> file, const std::string& name, const LoadLimits& limits)
{
    LoadBudget budget (limits);
    std::uint64_t dataStart = 0;
    header_ = ModelFile::parseHeader (file.data(), file.size(), name, budget, dataStart);
    auto fail = [&] (const std::string& what) { return ModelError ("model file '" + name + "': " + what); };
    try
    {
        // The reader has checked that the metadata, where there is one, holds strings only; a file
        // without one is refused by graphOf as not a Sonotype model.
        Metadata metadata;
        if (const auto* entries = header_.find (keys::metadata))
            for (const auto& [key, value] : entries->asObject())
                metadata[key] = value.asString();
        const auto& graphText = graphOf (metadata);
        std::size_t parsedBytes = 0;
        graph_ = parseJson (graphText, budget.remainingBytes(), parsedBytes);
        budget.claim (parsedBytes, "the parsed graph");
    }
    catch (const JsonError& e)
    {
        throw fail (std::string ("graph is not valid JSON: ") + e.what());
    }
    catch (const ModelError& e)
    {
        throw fail (e.what());
    }
    if (! graph_.isObject())
        throw fail ("graph is not a JSON object");
    for (const char* list : { keys::values, keys::nodes, keys::outputs })
        if (const auto* items = graph_.find (list); items == nullptr || ! items->isArray())
            throw fail (std::string ("graph: '") + list + "' is not a list");
    if (graph_.at (keys::values).asArray().size() >= static_cast<std::size_t> (std::numeric_limits<int>::max()))
        throw fail ("graph has more values than the writer counts");
    data_.assign (file.begin() + static_cast<std::ptrdiff_t> (dataStart), file.end());
}

JsonValue& ModelFileWriter::metadataObject()
{
    return header_.at (keys::metadata);
}

const JsonValue& ModelFileWriter::metadataObject() const
{
    return header_.at (keys::metadata);
}

const std::string* ModelFileWriter::metadata (const std::string& key) const noexcept
{
    const auto* entry = metadataObject().find (key);
    return entry != nullptr && entry->isString() ? &entry->asString() : nullptr;
}

void ModelFileWriter::setMetadata (const std::string& key, std::string value)
{
    if (key == keys::graph)
        throw ModelError ("the metadata's graph is written from the writer's graph, not set");
    metadataObject().set (key, JsonValue::string (std::move (value)));
}

void ModelFileWriter::eraseMetadata (const std::string& key)
{
    if (key == keys::graph)
        throw ModelError ("the metadata's graph is written from the writer's graph, not erased");
    metadataObject().erase (key);
}

int ModelFileWriter::numValues() const noexcept
{
    return static_cast<int> (graph_.find (keys::values)->asArray().size());
}

void ModelFileWriter::checkValue (int index, const char* what) const
{
    if (index < 0 || index >= numValues())
        throw ModelError (std::string (what) + ": value " + std::to_string (index) + " is not in the graph (it has "
                          + std::to_string (numValues()) + " values)");
}

std::vector<int64_t> ModelFileWriter::shapeOf (int index) const
{
    checkValue (index, "shape");
    const auto where = "graph value " + std::to_string (index);
    const auto* dims = graph_.at (keys::values).asArray()[static_cast<std::size_t> (index)].find (keys::shape);
    if (dims == nullptr || ! dims->isArray())
        throw ModelError (where + " has no shape");
    std::vector<int64_t> shape;
    Shape checked;
    for (const auto& dim : dims->asArray())
    {
        if (! dim.isNumber())
            throw ModelError (where + ": its shape holds a non-number");
        try
        {
            shape.push_back (dim.asInt());
        }
        catch (const JsonError& e)
        {
            throw ModelError (where + ": " + e.what());
        }
        checked.push (shape.back()); // the reader's limits: rank, sizes, elements
    }
    return shape;
}

int64_t ModelFileWriter::elements (int index) const
{
    return checkedShape (shapeOf (index)).numElements();
}

std::vector<int> ModelFileWriter::outputs() const
{
    std::vector<int> outputs;
    for (const auto& item : graph_.at (keys::outputs).asArray())
    {
        if (! item.isNumber() || ! item.isExactInteger() || item.asInt() < 0 || item.asInt() >= numValues())
            throw ModelError ("the graph's outputs hold something other than a value of the graph");
        outputs.push_back (static_cast<int> (item.asInt()));
    }
    return outputs;
}

void ModelFileWriter::setOutputs (const std::vector<int>& outputs)
{
    for (const auto v : outputs)
        checkValue (v, "graph output");
    graph_.set (keys::outputs, integers (outputs));
}

JsonValue ModelFileWriter::shapeJson (const std::vector<int64_t>& shape)
{
    checkedShape (shape);
    JsonValue::Array dims;
    dims.reserve (shape.size());
    for (const auto d : shape)
        dims.push_back (JsonValue::integer (d));
    return JsonValue::array (std::move (dims));
}

void ModelFileWriter::checkRoomForValue() const
{
    if (graph_.at (keys::values).asArray().size() >= static_cast<std::size_t> (std::numeric_limits<int>::max()))
        throw ModelError ("the graph has as many values as the writer counts");
}

int ModelFileWriter::appendValue (JsonValue value)
{
    checkRoomForValue();
    auto& values = graph_.at (keys::values).asArray();
    values.push_back (std::move (value));
    return static_cast<int> (values.size()) - 1;
}

int ModelFileWriter::value (const std::vector<int64_t>& shape)
{
    return appendValue (JsonValue::object ({ { keys::shape, shapeJson (shape) }, { keys::kind, JsonValue::string (keys::kindNode) } }));
}

bool ModelFileWriter::hasTensor (const std::string& name) const noexcept
{
    return name != keys::metadata && header_.find (name) != nullptr;
}

int ModelFileWriter::tensor (const std::string& name, const std::vector<int64_t>& shape, std::span<const float> values)
{
    checkDisplayText (name, ModelFile::kMaxNameBytes, "tensor name");
    if (name == keys::metadata)
        throw ModelError (std::string ("a tensor cannot be called ") + keys::metadata);
    if (hasTensor (name))
        throw ModelError ("the model file has a tensor " + quote (name) + " already");
    checkRoomForValue(); // before anything changes
    const auto dims = shapeJson (shape);
    if (checkedShape (shape).numElements() != static_cast<int64_t> (values.size()))
        throw ModelError ("tensor " + quote (name) + ": " + std::to_string (values.size()) + " values do not fill shape "
                          + checkedShape (shape).toString());
    // At most 2^40 floats (the shape's limit); the data section and the new bytes within int64.
    const auto begin = data_.size();
    const auto numBytes = values.size() * sizeof (float);
    if (numBytes > static_cast<std::size_t> (std::numeric_limits<int64_t>::max()) - begin)
        throw ModelError ("tensor " + quote (name) + ": the data section would pass 2^63 bytes");
    data_.resize (begin + numBytes);
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        std::uint32_t bits = 0;
        std::memcpy (&bits, &values[i], sizeof bits);
        for (std::size_t b = 0; b < 4; ++b)
            data_[begin + 4 * i + b] = static_cast<std::uint8_t> (bits >> (8 * b)); // little-endian
    }
    auto offsets = JsonValue::array ({ JsonValue::integer (static_cast<int64_t> (begin)), JsonValue::integer (static_cast<int64_t> (data_.size())) });
    header_.asObject().emplace_back (
        name, JsonValue::object ({ { keys::dtype, JsonValue::string (keys::float32) }, { keys::shape, dims }, { keys::dataOffsets, std::move (offsets) } }));
    return appendValue (JsonValue::object (
        { { keys::shape, dims }, { keys::kind, JsonValue::string (keys::kindTensor) }, { keys::tensor, JsonValue::string (name) } }));
}

int ModelFileWriter::node (std::string_view op, const std::vector<int>& inputs, const std::vector<int64_t>& shape, JsonValue attrs,
                           const std::string& source)
{
    if (op.empty())
        throw ModelError ("a node needs an op");
    for (const auto v : inputs)
        checkValue (v, "node input");
    if (! attrs.isObject())
        throw ModelError ("a node's attributes are an object");
    const int out = value (shape);
    JsonValue node = JsonValue::object ({ { keys::op, JsonValue::string (std::string (op)) },
                                          { keys::inputs, integers (inputs) },
                                          { keys::outputs, integers ({ out }) },
                                          { keys::source, JsonValue::string (source) } });
    if (! attrs.asObject().empty())
        node.set (keys::attrs, std::move (attrs));
    graph_.at (keys::nodes).asArray().push_back (std::move (node));
    return out;
}

std::vector<std::uint8_t> ModelFileWriter::bytes() const
{
    std::string text;
    try
    {
        auto header = header_;
        header.at (keys::metadata).set (keys::graph, JsonValue::string (writeJson (graph_)));
        text = writeJson (header);
    }
    catch (const JsonError& e)
    {
        throw ModelError (std::string ("the model file's header cannot be written: ") + e.what());
    }
    text.append ((8 - text.size() % 8) % 8, ' ');
    if (text.size() > ModelFile::kMaxHeaderBytes)
        throw ModelError ("the model file's header would take " + std::to_string (text.size()) + " bytes, more than a reader takes ("
                          + std::to_string (ModelFile::kMaxHeaderBytes) + ")");
    std::vector<std::uint8_t> file (8 + text.size() + data_.size());
    for (std::size_t b = 0; b < 8; ++b)
        file[b] = static_cast<std::uint8_t> (static_cast<std::uint64_t> (text.size()) >> (8 * b));
    std::memcpy (file.data() + 8, text.data(), text.size());
    if (! data_.empty())
        std::memcpy (file.data() + 8 + text.size(), data_.data(), data_.size());
    return file;
}

} // namespace sonotype::engine
