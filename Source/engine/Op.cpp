#include "engine/Op.h"

#include "engine/file/Json.h"
#include "engine/file/LoadBudget.h"
#include "engine/file/ModelError.h"

#include <cmath>
#include <cstdio>

namespace sonotype::engine
{

OpArgs::OpArgs (OpKind kind, const JsonValue* attrs, std::vector<std::optional<Shape>> inputs, std::vector<Shape> outputs, LoadBudget& budget,
                std::vector<const float*> constants)
    : kind_ (kind), attrs_ (attrs), inputs_ (std::move (inputs)), outputs_ (std::move (outputs)), budget_ (&budget),
      constants_ (std::move (constants))
{
}

void OpArgs::claimTable (std::uint64_t count, std::size_t itemBytes, const char* what) const
{
    budget_->claim (count, itemBytes, std::string ("its ") + what);
}

const Shape& OpArgs::input (std::size_t i) const
{
    if (! hasInput (i))
        throw ModelError ("input " + std::to_string (i) + " is required");
    return *inputs_[i];
}

const Shape& OpArgs::output (std::size_t i) const
{
    if (i >= outputs_.size())
        throw ModelError ("output " + std::to_string (i) + " is missing");
    return outputs_[i];
}

void OpArgs::expectInputs (std::size_t min, std::size_t max, std::size_t numRequired) const
{
    if (inputs_.size() < min || inputs_.size() > max)
        throw ModelError ("takes " + (min == max ? std::to_string (min) : std::to_string (min) + " to " + std::to_string (max))
                          + " inputs, the node has " + std::to_string (inputs_.size()));
    for (std::size_t i = 0; i < numRequired; ++i)
        input (i);
}

void OpArgs::expectOutputs (std::size_t min, std::size_t max) const
{
    if (outputs_.size() < min || outputs_.size() > max)
        throw ModelError ("produces " + (min == max ? std::to_string (min) : std::to_string (min) + " to " + std::to_string (max))
                          + " outputs, the node has " + std::to_string (outputs_.size()));
}

void OpArgs::checkOutput (std::size_t i, const Shape& computed) const
{
    if (output (i) != computed)
        throw ModelError ("output " + std::to_string (i) + " is declared " + output (i).toString() + " but the inputs give "
                          + computed.toString());
}

const JsonValue* OpArgs::attribute (const char* name) const
{
    return attrs_ != nullptr && attrs_->isObject() ? attrs_->find (name) : nullptr;
}

bool OpArgs::has (const char* name) const noexcept
{
    const auto* value = attribute (name);
    return value != nullptr && ! value->isNull();
}

int64_t OpArgs::integer (const char* name) const
{
    const auto* value = attribute (name);
    if (value == nullptr || ! value->isNumber())
        throw ModelError (std::string ("integer attribute '") + name + "' is missing");
    try
    {
        return value->asInt();
    }
    catch (const JsonError&)
    {
        throw ModelError (std::string ("attribute '") + name + "' must be an integer");
    }
}

int64_t OpArgs::integer (const char* name, int64_t fallback) const
{
    return has (name) ? integer (name) : fallback;
}

double OpArgs::real (const char* name, double low, double high) const
{
    const auto* value = attribute (name);
    if (value == nullptr || ! value->isNumber())
        throw ModelError (std::string ("number attribute '") + name + "' is missing");
    const double number = value->asNumber();
    if (! (number >= low && number <= high))
    {
        char text[160];
        std::snprintf (text, sizeof text, "attribute '%s' = %.9g is outside its range [%.9g, %.9g]", name, number, low, high);
        throw ModelError (text);
    }
    return number;
}

double OpArgs::real (const char* name, double fallback, double low, double high) const
{
    return has (name) ? real (name, low, high) : fallback;
}

bool OpArgs::flag (const char* name, bool fallback) const
{
    const auto* value = attribute (name);
    if (value == nullptr || value->isNull())
        return fallback;
    if (! value->isBool())
        throw ModelError (std::string ("attribute '") + name + "' must be true or false");
    return value->asBool();
}

std::string OpArgs::text (const char* name, const std::string& fallback) const
{
    const auto* value = attribute (name);
    if (value == nullptr || value->isNull())
        return fallback;
    if (! value->isString())
        throw ModelError (std::string ("attribute '") + name + "' must be a string");
    return value->asString();
}

std::vector<int64_t> OpArgs::integers (const char* name) const
{
    const auto* value = attribute (name);
    if (value == nullptr || ! value->isArray())
        throw ModelError (std::string ("list attribute '") + name + "' is missing");
    std::vector<int64_t> result;
    for (const auto& item : value->asArray())
    {
        if (item.isArray()) // nested lists (pads) are flattened
        {
            for (const auto& inner : item.asArray())
                result.push_back (inner.asInt());
            continue;
        }
        if (! item.isNumber())
            throw ModelError (std::string ("attribute '") + name + "' must hold integers");
        result.push_back (item.asInt());
    }
    return result;
}

int checkedAxis (int64_t value, int rank, bool scalarAsVector, const std::string& what)
{
    const int64_t size = rank == 0 && scalarAsVector ? 1 : rank;
    if (value >= -size && value < size)
        return static_cast<int> (value < 0 ? value + size : value);
    if (size == 0)
        throw ModelError (what + " = " + std::to_string (value) + " names an axis of a 0-d value, which has none");
    throw ModelError (what + " = " + std::to_string (value) + " is out of range for a rank-" + std::to_string (rank) + " value (valid: "
                      + std::to_string (-size) + " to " + std::to_string (size - 1) + ")");
}

int OpArgs::axis (const char* name, int rank) const
{
    return checkedAxis (integer (name), rank, false, std::string ("attribute '") + name + "'");
}

int OpArgs::axisOrScalar (const char* name, int rank) const
{
    return checkedAxis (integer (name), rank, true, std::string ("attribute '") + name + "'");
}

} // namespace sonotype::engine
