// A strict JSON (RFC 8259) parser for untrusted model-file metadata: bounded depth, checked
// numbers and UTF-8, specific errors with byte offsets. Standard library only. A parsed value can
// be changed (set, erase, the lists) and written back with writeJson (engine/file/JsonWriter.h):
// each number remembers whether it was written as integer digits, so that it is written back so.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
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
    enum class Type
    {
        null,
        boolean,
        number,
        string,
        array,
        object
    }; // the order of Storage's alternatives
    using Array = std::vector<JsonValue>;
    using Object = std::vector<std::pair<std::string, JsonValue>>; // in file order

    JsonValue() = default; // null
    static JsonValue boolean (bool value);
    static JsonValue number (double value);
    static JsonValue integer (int64_t value); // a number that keeps all 64 bits for asInt
    static JsonValue string (std::string value);
    static JsonValue array (Array items);
    static JsonValue object (Object members); // keys are not checked for duplicates here

    Type type() const noexcept { return static_cast<Type> (value_.index()); }
    bool isNull() const noexcept { return type() == Type::null; }
    bool isBool() const noexcept { return type() == Type::boolean; }
    bool isNumber() const noexcept { return type() == Type::number; }
    bool isString() const noexcept { return type() == Type::string; }
    bool isArray() const noexcept { return type() == Type::array; }
    bool isObject() const noexcept { return type() == Type::object; }
    /** True for a number made by integer() or parsed from integer digits within int64 range. */
    bool isExactInteger() const noexcept;

    /** Typed access; each throws JsonError ("expected a number, found a string") on the wrong type. */
    bool asBool() const;
    double asNumber() const;
    /** The number as an integer; throws unless it is a whole number within int64 range. Integers
        written without fraction or exponent are exact over the whole int64 range, even beyond the
        2^53 up to which doubles are exact (asNumber then rounds). */
    int64_t asInt() const;
    const std::string& asString() const;
    const Array& asArray() const;
    const Object& asObject() const;

    /** The member `key` of an object, or nullptr (also for non-objects). */
    const JsonValue* find (const std::string& key) const noexcept;
    /** The member `key` of an object; throws JsonError ("missing key 'key'") if absent. */
    const JsonValue& at (const std::string& key) const;

    /** The same, to change what they hold (each throws JsonError on the wrong type, as above). */
    Array& asArray();
    Object& asObject();
    JsonValue* find (const std::string& key) noexcept;
    JsonValue& at (const std::string& key);

    /** Sets the member `key` of an object: replaced where it is, else appended; throws JsonError
        for a non-object. Returns the member. */
    JsonValue& set (const std::string& key, JsonValue value);
    /** Removes the member `key` of an object; false when there is none (or this is not an object). */
    bool erase (const std::string& key) noexcept;

    /** How an integer is written back (JsonWriter.h): its sign and magnitude. */
    struct IntegerDigits
    {
        bool negative = false; // never for zero: "-0" is written back as 0
        std::uint64_t magnitude = 0;
    };
    /** The integer a number is written as: one made by integer(), or one parsed from integer digits
        within the int64 range or, if positive, the uint64 range. nullopt for numbers written as
        doubles: made by number(), parsed with a fraction or exponent, or integers beyond those ranges. */
    std::optional<IntegerDigits> integerDigits() const noexcept;

private:
    friend class JsonParser; // marks integers beyond int64 while parsing

    struct Number
    {
        double value = 0.0;
        int64_t exact = 0;           // the number, when integer is exact
        std::uint64_t magnitude = 0; // the integer written back (with `negative`), when digits is set
        enum class Integer : std::uint8_t
        {
            unknown,
            exact,
            outsideInt64
        } integer = Integer::unknown;
        bool digits = false, negative = false;
    };
    std::variant<std::monostate, bool, Number, std::string, Array, Object> value_;
};

/** The deepest nesting of arrays and objects parseJson accepts. */
constexpr int kMaxJsonDepth = 64;

/** What parseJson (text) lets a document take in memory. */
constexpr std::size_t kDefaultMaxJsonMemoryBytes = std::size_t { 256 } << 20;

/** Parses one JSON document (UTF-8, no byte-order mark); throws JsonError ("JSON error at byte N: …"). */
JsonValue parseJson (std::string_view text);

/** The same, refusing a document whose parsed form would take more than maxMemoryBytes (an
    estimate that includes the vectors' growth); memoryBytes receives the estimate. */
JsonValue parseJson (std::string_view text, std::size_t maxMemoryBytes, std::size_t& memoryBytes);

} // namespace sonotype::engine
