#include "engine/Json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

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

    class Parser
    {
    public:
        explicit Parser (std::string_view text) : text_ (text) {}

        JsonValue document()
        {
            auto value = parseValue (0);
            skipWhitespace();
            if (pos_ != text_.size())
                fail ("unexpected characters after the JSON value");
            return value;
        }

    private:
        static constexpr int kMaxDepth = 64;

        [[noreturn]] void fail (const std::string& what) const
        {
            throw JsonError ("JSON error at byte " + std::to_string (pos_) + ": " + what);
        }

        bool atEnd() const noexcept { return pos_ >= text_.size(); }
        char peek() const noexcept { return atEnd() ? '\0' : text_[pos_]; }

        void skipWhitespace() noexcept
        {
            while (! atEnd() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
                ++pos_;
        }

        void expect (char c)
        {
            if (peek() != c)
                fail (std::string ("expected '") + c + "'");
            ++pos_;
        }

        void literal (std::string_view word)
        {
            if (text_.substr (pos_, word.size()) != word)
                fail ("invalid literal");
            pos_ += word.size();
        }

        JsonValue parseValue (int depth)
        {
            if (depth > kMaxDepth)
                fail ("nesting deeper than " + std::to_string (kMaxDepth));
            skipWhitespace();
            switch (peek())
            {
                case '{': return parseObject (depth);
                case '[': return parseArray (depth);
                case '"': return JsonValue::string (parseString());
                case 't': literal ("true"); return JsonValue::boolean (true);
                case 'f': literal ("false"); return JsonValue::boolean (false);
                case 'n': literal ("null"); return {};
                default: break;
            }
            if (peek() == '-' || (peek() >= '0' && peek() <= '9'))
                return JsonValue::number (parseNumber());
            fail (atEnd() ? "unexpected end of input" : "unexpected character");
        }

        JsonValue parseObject (int depth)
        {
            expect ('{');
            JsonValue::Object members;
            std::set<std::string> keys;
            skipWhitespace();
            if (peek() == '}')
            {
                ++pos_;
                return JsonValue::object (std::move (members));
            }
            for (;;)
            {
                skipWhitespace();
                if (peek() != '"')
                    fail ("expected a string key");
                auto key = parseString();
                if (! keys.insert (key).second)
                    fail ("duplicate key '" + key + "'");
                skipWhitespace();
                expect (':');
                members.emplace_back (std::move (key), parseValue (depth + 1));
                skipWhitespace();
                if (peek() == ',')
                {
                    ++pos_;
                    continue;
                }
                expect ('}');
                return JsonValue::object (std::move (members));
            }
        }

        JsonValue parseArray (int depth)
        {
            expect ('[');
            JsonValue::Array items;
            skipWhitespace();
            if (peek() == ']')
            {
                ++pos_;
                return JsonValue::array (std::move (items));
            }
            for (;;)
            {
                items.push_back (parseValue (depth + 1));
                skipWhitespace();
                if (peek() == ',')
                {
                    ++pos_;
                    continue;
                }
                expect (']');
                return JsonValue::array (std::move (items));
            }
        }

        double parseNumber()
        {
            const auto start = pos_;
            if (peek() == '-')
                ++pos_;
            if (peek() == '0')
                ++pos_;
            else if (peek() >= '1' && peek() <= '9')
                while (peek() >= '0' && peek() <= '9')
                    ++pos_;
            else
                fail ("invalid number");
            if (peek() == '.')
            {
                ++pos_;
                if (! (peek() >= '0' && peek() <= '9'))
                    fail ("invalid number: digits expected after '.'");
                while (peek() >= '0' && peek() <= '9')
                    ++pos_;
            }
            if (peek() == 'e' || peek() == 'E')
            {
                ++pos_;
                if (peek() == '+' || peek() == '-')
                    ++pos_;
                if (! (peek() >= '0' && peek() <= '9'))
                    fail ("invalid number: digits expected in the exponent");
                while (peek() >= '0' && peek() <= '9')
                    ++pos_;
            }
            double value = 0.0;
            const auto* first = text_.data() + start;
            const auto* last = text_.data() + pos_;
            const auto result = std::from_chars (first, last, value);
            if (result.ec == std::errc::result_out_of_range)
            {
                // from_chars leaves `value` alone then. A negative exponent means underflow, which
                // rounds to zero as strtod does; anything else overflowed.
                const std::string_view token (first, static_cast<std::size_t> (last - first));
                const auto exponent = token.find_first_of ("eE");
                if (exponent == std::string_view::npos || token.substr (exponent + 1, 1) != "-")
                    fail ("number out of range");
                value = token.front() == '-' ? -0.0 : 0.0;
            }
            else if (result.ec != std::errc() || result.ptr != last)
                fail ("invalid number");
            if (! std::isfinite (value))
                fail ("number out of range");
            return value;
        }

        unsigned hex4()
        {
            if (pos_ + 4 > text_.size())
                fail ("truncated \\u escape");
            unsigned value = 0;
            for (int i = 0; i < 4; ++i)
            {
                const char c = text_[pos_++];
                value <<= 4;
                if (c >= '0' && c <= '9')
                    value |= static_cast<unsigned> (c - '0');
                else if (c >= 'a' && c <= 'f')
                    value |= static_cast<unsigned> (c - 'a' + 10);
                else if (c >= 'A' && c <= 'F')
                    value |= static_cast<unsigned> (c - 'A' + 10);
                else
                    fail ("invalid \\u escape");
            }
            return value;
        }

        static void appendUtf8 (std::string& out, unsigned codePoint)
        {
            if (codePoint < 0x80)
                out += static_cast<char> (codePoint);
            else if (codePoint < 0x800)
            {
                out += static_cast<char> (0xC0 | (codePoint >> 6));
                out += static_cast<char> (0x80 | (codePoint & 0x3F));
            }
            else if (codePoint < 0x10000)
            {
                out += static_cast<char> (0xE0 | (codePoint >> 12));
                out += static_cast<char> (0x80 | ((codePoint >> 6) & 0x3F));
                out += static_cast<char> (0x80 | (codePoint & 0x3F));
            }
            else
            {
                out += static_cast<char> (0xF0 | (codePoint >> 18));
                out += static_cast<char> (0x80 | ((codePoint >> 12) & 0x3F));
                out += static_cast<char> (0x80 | ((codePoint >> 6) & 0x3F));
                out += static_cast<char> (0x80 | (codePoint & 0x3F));
            }
        }

        // Copies one UTF-8 encoded character, checking it is well formed (no overlongs, no surrogates).
        void copyUtf8 (std::string& out)
        {
            const auto lead = static_cast<unsigned char> (text_[pos_]);
            int extra = 0;
            unsigned codePoint = 0;
            if (lead >= 0xC2 && lead <= 0xDF)
                extra = 1, codePoint = lead & 0x1Fu;
            else if (lead >= 0xE0 && lead <= 0xEF)
                extra = 2, codePoint = lead & 0x0Fu;
            else if (lead >= 0xF0 && lead <= 0xF4)
                extra = 3, codePoint = lead & 0x07u;
            else
                fail ("invalid UTF-8 in string");
            if (pos_ + static_cast<std::size_t> (extra) >= text_.size())
                fail ("truncated UTF-8 in string");
            for (int i = 1; i <= extra; ++i)
            {
                const auto c = static_cast<unsigned char> (text_[pos_ + static_cast<std::size_t> (i)]);
                if ((c & 0xC0) != 0x80)
                    fail ("invalid UTF-8 in string");
                codePoint = (codePoint << 6) | (c & 0x3Fu);
            }
            const unsigned minimum = extra == 1 ? 0x80 : extra == 2 ? 0x800 : 0x10000;
            if (codePoint < minimum || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF))
                fail ("invalid UTF-8 in string");
            out.append (text_.substr (pos_, static_cast<std::size_t> (extra) + 1));
            pos_ += static_cast<std::size_t> (extra) + 1;
        }

        std::string parseString()
        {
            expect ('"');
            std::string out;
            for (;;)
            {
                if (atEnd())
                    fail ("unterminated string");
                const char c = text_[pos_];
                if (c == '"')
                {
                    ++pos_;
                    return out;
                }
                if (static_cast<unsigned char> (c) < 0x20)
                    fail ("control character in string");
                if (static_cast<unsigned char> (c) >= 0x80)
                {
                    copyUtf8 (out);
                    continue;
                }
                ++pos_;
                if (c != '\\')
                {
                    out += c;
                    continue;
                }
                if (atEnd())
                    fail ("unterminated string");
                const char escape = text_[pos_++];
                switch (escape)
                {
                    case '"': out += '"'; break;
                    case '\\': out += '\\'; break;
                    case '/': out += '/'; break;
                    case 'b': out += '\b'; break;
                    case 'f': out += '\f'; break;
                    case 'n': out += '\n'; break;
                    case 'r': out += '\r'; break;
                    case 't': out += '\t'; break;
                    case 'u':
                    {
                        unsigned codePoint = hex4();
                        if (codePoint >= 0xD800 && codePoint <= 0xDBFF)
                        {
                            if (text_.substr (pos_, 2) != "\\u")
                                fail ("unpaired surrogate in \\u escape");
                            pos_ += 2;
                            const unsigned low = hex4();
                            if (low < 0xDC00 || low > 0xDFFF)
                                fail ("unpaired surrogate in \\u escape");
                            codePoint = 0x10000 + ((codePoint - 0xD800) << 10) + (low - 0xDC00);
                        }
                        else if (codePoint >= 0xDC00 && codePoint <= 0xDFFF)
                            fail ("unpaired surrogate in \\u escape");
                        appendUtf8 (out, codePoint);
                        break;
                    }
                    default: fail (std::string ("invalid escape '\\") + escape + "'");
                }
            }
        }

        std::string_view text_;
        std::size_t pos_ = 0;
    };

    void write (const JsonValue& value, std::string& out)
    {
        switch (value.type())
        {
            case JsonValue::Type::null: out += "null"; return;
            case JsonValue::Type::boolean: out += value.asBool() ? "true" : "false"; return;
            case JsonValue::Type::number:
            {
                char buffer[32];
                const auto result = std::to_chars (buffer, buffer + sizeof buffer, value.asNumber());
                out.append (buffer, result.ptr);
                return;
            }
            case JsonValue::Type::string:
            {
                out += '"';
                for (const char c : value.asString())
                {
                    if (c == '"' || c == '\\')
                        (out += '\\') += c;
                    else if (static_cast<unsigned char> (c) < 0x20)
                    {
                        char buffer[8];
                        std::snprintf (buffer, sizeof buffer, "\\u%04x", static_cast<unsigned> (c));
                        out += buffer;
                    }
                    else
                        out += c;
                }
                out += '"';
                return;
            }
            case JsonValue::Type::array:
            {
                out += '[';
                bool first = true;
                for (const auto& item : value.asArray())
                {
                    if (! first)
                        out += ',';
                    first = false;
                    write (item, out);
                }
                out += ']';
                return;
            }
            case JsonValue::Type::object:
            {
                out += '{';
                bool first = true;
                for (const auto& [key, item] : value.asObject())
                {
                    if (! first)
                        out += ',';
                    first = false;
                    write (JsonValue::string (key), out);
                    out += ':';
                    write (item, out);
                }
                out += '}';
                return;
            }
        }
    }
} // namespace

JsonValue JsonValue::boolean (bool value)
{
    JsonValue v;
    v.type_ = Type::boolean;
    v.bool_ = value;
    return v;
}

JsonValue JsonValue::number (double value)
{
    JsonValue v;
    v.type_ = Type::number;
    v.number_ = value;
    return v;
}

JsonValue JsonValue::string (std::string value)
{
    JsonValue v;
    v.type_ = Type::string;
    v.string_ = std::move (value);
    return v;
}

JsonValue JsonValue::array (Array items)
{
    JsonValue v;
    v.type_ = Type::array;
    v.array_ = std::move (items);
    return v;
}

JsonValue JsonValue::object (Object members)
{
    JsonValue v;
    v.type_ = Type::object;
    v.object_ = std::move (members);
    return v;
}

bool JsonValue::asBool() const
{
    if (! isBool())
        throw JsonError (std::string ("expected a boolean, found ") + typeName (type_));
    return bool_;
}

double JsonValue::asNumber() const
{
    if (! isNumber())
        throw JsonError (std::string ("expected a number, found ") + typeName (type_));
    return number_;
}

int64_t JsonValue::asInt() const
{
    const double value = asNumber();
    // 2^63 is exactly representable; anything at or above it is out of int64 range.
    if (! (value >= -9223372036854775808.0 && value < 9223372036854775808.0) || std::trunc (value) != value)
        throw JsonError ("expected an integer, found " + std::to_string (value));
    return static_cast<int64_t> (value);
}

const std::string& JsonValue::asString() const
{
    if (! isString())
        throw JsonError (std::string ("expected a string, found ") + typeName (type_));
    return string_;
}

const JsonValue::Array& JsonValue::asArray() const
{
    if (! isArray())
        throw JsonError (std::string ("expected a list, found ") + typeName (type_));
    return array_;
}

const JsonValue::Object& JsonValue::asObject() const
{
    if (! isObject())
        throw JsonError (std::string ("expected an object, found ") + typeName (type_));
    return object_;
}

const JsonValue* JsonValue::find (const std::string& key) const noexcept
{
    if (! isObject())
        return nullptr;
    for (const auto& [name, value] : object_)
        if (name == key)
            return &value;
    return nullptr;
}

const JsonValue& JsonValue::at (const std::string& key) const
{
    if (const auto* value = find (key))
        return *value;
    throw JsonError ("missing key '" + key + "'");
}

JsonValue parseJson (std::string_view text)
{
    return Parser (text).document();
}

std::string toJson (const JsonValue& value)
{
    std::string out;
    write (value, out);
    return out;
}

} // namespace sonotype::engine
