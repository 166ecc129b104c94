// A strict JSON (RFC 8259) parser for untrusted model-file metadata: bounded depth, checked
// numbers and UTF-8, specific errors with byte offsets. Standard library only.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sonotype::engine
{

struct JsonError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

class JsonValue
{
public:
    enum class Type { null, boolean, number, string, array, object };
    using Array = std::vector<JsonValue>;
    using Object = std::vector<std::pair<std::string, JsonValue>>; // in file order

    JsonValue() = default;
    static JsonValue boolean (bool value);
    static JsonValue number (double value);
    static JsonValue string (std::string value);
    static JsonValue array (Array items);
    static JsonValue object (Object members);

    Type type() const noexcept { return type_; }
    bool isNull() const noexcept { return type_ == Type::null; }
    bool isBool() const noexcept { return type_ == Type::boolean; }
    bool isNumber() const noexcept { return type_ == Type::number; }
    bool isString() const noexcept { return type_ == Type::string; }
    bool isArray() const noexcept { return type_ == Type::array; }
    bool isObject() const noexcept { return type_ == Type::object; }

    bool asBool() const;
    double asNumber() const;
    /** The number as an integer; throws unless it is a whole number within int64 range. */
    int64_t asInt() const;
    const std::string& asString() const;
    const Array& asArray() const;
    const Object& asObject() const;

    /** The member `key` of an object, or nullptr (also for non-objects). */
    const JsonValue* find (const std::string& key) const noexcept;
    const JsonValue& at (const std::string& key) const;

private:
    Type type_ = Type::null;
    bool bool_ = false;
    double number_ = 0.0;
    std::string string_;
    Array array_;
    Object object_;
};

/** Parses one JSON document; throws JsonError("JSON error at byte N: …"). */
JsonValue parseJson (std::string_view text);

/** Compact serialisation. */
std::string toJson (const JsonValue& value);

} // namespace sonotype::engine
