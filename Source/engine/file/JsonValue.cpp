// JsonValue: what a parsed (or built) JSON value holds, its typed access and its changes.
#include "engine/file/Json.h"

#include "engine/file/Text.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace sonotype::engine
{
namespace
{
    const char* typeName (JsonValue::Type type) noexcept
    {
        switch (type)
        {
            case JsonValue::Type::null: return "null";
            case JsonValue::Type::boolean: return "a boolean";
            case JsonValue::Type::number: return "a number";
            case JsonValue::Type::string: return "a string";
            case JsonValue::Type::array: return "a list";
            case JsonValue::Type::object: return "an object";
        }
        return "?";
    }
} // namespace

JsonValue JsonValue::boolean (bool value)
{
    JsonValue v;
    v.value_ = value;
    return v;
}

JsonValue JsonValue::number (double value)
{
    JsonValue v;
    v.value_ = Number { value };
    return v;
}

JsonValue JsonValue::integer (int64_t value)
{
    JsonValue v;
    // The nearest double, as parsing the digits gives, and all 64 bits.
    Number number { static_cast<double> (value), value };
    number.integer = Number::Integer::exact;
    number.digits = true;
    number.negative = value < 0;
    number.magnitude = value < 0 ? 0 - static_cast<std::uint64_t> (value) : static_cast<std::uint64_t> (value);
    v.value_ = number;
    return v;
}

JsonValue JsonValue::string (std::string value)
{
    JsonValue v;
    v.value_ = std::move (value);
    return v;
}

JsonValue JsonValue::array (Array items)
{
    JsonValue v;
    v.value_ = std::move (items);
    return v;
}

JsonValue JsonValue::object (Object members)
{
    JsonValue v;
    v.value_ = std::move (members);
    return v;
}

bool JsonValue::isExactInteger() const noexcept
{
    const auto* number = std::get_if<Number> (&value_);
    return number != nullptr && number->integer == Number::Integer::exact;
}

bool JsonValue::asBool() const
{
    if (! isBool())
        throw JsonError (std::string ("expected a boolean, found ") + typeName (type()));
    return std::get<bool> (value_);
}

double JsonValue::asNumber() const
{
    if (! isNumber())
        throw JsonError (std::string ("expected a number, found ") + typeName (type()));
    return std::get<Number> (value_).value;
}

int64_t JsonValue::asInt() const
{
    const double value = asNumber();
    const auto& number = std::get<Number> (value_);
    if (number.integer == Number::Integer::exact)
        return number.exact;
    if (number.integer == Number::Integer::outsideInt64) // although the rounded double may be in range
        throw JsonError ("expected an integer, found one beyond the int64 range");
    // -2^63 and 2^63 are exact doubles: the int64 range is [-2^63, 2^63). NaN fails both tests.
    if (! (value >= -9223372036854775808.0 && value < 9223372036854775808.0) || std::trunc (value) != value)
    {
        char buffer[32]; // to_chars also spells out nan and inf
        const auto result = std::to_chars (buffer, buffer + sizeof buffer, value);
        throw JsonError ("expected an integer, found " + std::string (buffer, result.ptr));
    }
    return static_cast<int64_t> (value);
}

const std::string& JsonValue::asString() const
{
    if (! isString())
        throw JsonError (std::string ("expected a string, found ") + typeName (type()));
    return std::get<std::string> (value_);
}

const JsonValue::Array& JsonValue::asArray() const
{
    if (! isArray())
        throw JsonError (std::string ("expected a list, found ") + typeName (type()));
    return std::get<Array> (value_);
}

const JsonValue::Object& JsonValue::asObject() const
{
    if (! isObject())
        throw JsonError (std::string ("expected an object, found ") + typeName (type()));
    return std::get<Object> (value_);
}

const JsonValue* JsonValue::find (const std::string& key) const noexcept
{
    if (! isObject())
        return nullptr;
    for (const auto& [name, value] : std::get<Object> (value_))
        if (name == key)
            return &value;
    return nullptr;
}

const JsonValue& JsonValue::at (const std::string& key) const
{
    if (const auto* value = find (key))
        return *value;
    throw JsonError ("missing key " + quote (key, 40));
}

JsonValue::Array& JsonValue::asArray()
{
    return const_cast<Array&> (std::as_const (*this).asArray());
}

JsonValue::Object& JsonValue::asObject()
{
    return const_cast<Object&> (std::as_const (*this).asObject());
}

JsonValue* JsonValue::find (const std::string& key) noexcept
{
    return const_cast<JsonValue*> (std::as_const (*this).find (key));
}

JsonValue& JsonValue::at (const std::string& key)
{
    return const_cast<JsonValue&> (std::as_const (*this).at (key));
}

JsonValue& JsonValue::set (const std::string& key, JsonValue value)
{
    auto& members = asObject();
    for (auto& [name, member] : members)
        if (name == key)
            return member = std::move (value);
    return members.emplace_back (key, std::move (value)).second;
}

bool JsonValue::erase (const std::string& key) noexcept
{
    auto* members = std::get_if<Object> (&value_);
    if (members == nullptr)
        return false;
    const auto found = std::find_if (members->begin(), members->end(), [&] (const auto& member) { return member.first == key; });
    if (found == members->end())
        return false;
    members->erase (found);
    return true;
}

std::optional<JsonValue::IntegerDigits> JsonValue::integerDigits() const noexcept
{
    const auto* number = std::get_if<Number> (&value_);
    if (number == nullptr || ! number->digits)
        return std::nullopt;
    return IntegerDigits { number->negative && number->magnitude != 0, number->magnitude };
}

} // namespace sonotype::engine
