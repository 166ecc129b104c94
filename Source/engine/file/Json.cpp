// The strict parser of Json.h (JsonParser), and parseJson; JsonValue itself is in JsonValue.cpp.
#include "engine/file/Json.h"

#include "engine/file/Text.h"
#include "engine/file/Utf8.h"

#include <charconv>
#include <cmath>
#include <set>

namespace sonotype::engine
{
namespace
{
    bool isDigit (char c) noexcept { return c >= '0' && c <= '9'; }

    void appendUtf8 (std::string& out, unsigned codePoint)
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
} // namespace

// A recursive-descent parser; a friend of JsonValue, to record what it knows of integers.
class JsonParser
{
    static constexpr std::size_t kKeyNodeBytes = 80; // a std::set node holding a std::string

public:
    JsonParser (std::string_view text, std::size_t maxMemoryBytes) : text_ (text), maxMemoryBytes_ (maxMemoryBytes) {}

    std::size_t memoryBytes() const noexcept { return memoryBytes_; }

    JsonValue document()
    {
        account (sizeof (JsonValue));
        auto value = parseValue (0);
        skipWhitespace();
        if (! atEnd())
            fail ("unexpected characters after the JSON value");
        return value;
    }

private:
    [[noreturn]] void fail (const std::string& what) const { failAt (pos_, what); }

    [[noreturn]] static void failAt (std::size_t offset, const std::string& what)
    {
        throw JsonError ("JSON error at byte " + std::to_string (offset) + ": " + what);
    }

    bool atEnd() const noexcept { return pos_ >= text_.size(); }
    char peek() const noexcept { return atEnd() ? '\0' : text_[pos_]; }

    void skipWhitespace() noexcept
    {
        while (! atEnd() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
            ++pos_;
    }

    void expect (char c, const char* what)
    {
        if (peek() != c)
            fail (std::string ("expected ") + what);
        ++pos_;
    }

    void literal (std::string_view word)
    {
        if (text_.substr (pos_, word.size()) != word)
            fail ("invalid literal (expected '" + std::string (word) + "')");
        pos_ += word.size();
    }

    // Counts the memory the parsed document holds before it is allocated: each growth of an
    // array's or object's vector (to twice its capacity, as std::vector grows), strings beyond the
    // small-string buffer, and the keys' duplicate check while an object is parsed. "[]" is 2
    // bytes of text but a value of ~100 bytes: the text's size alone does not bound the parse.
    void account (std::size_t bytes)
    {
        if (bytes > maxMemoryBytes_ - memoryBytes_)
            fail ("the parsed JSON would take more than " + std::to_string (maxMemoryBytes_ >> 20) + " MiB of memory");
        memoryBytes_ += bytes;
    }

    template <typename Vector>
    void accountGrowth (const Vector& items)
    {
        if (items.size() == items.capacity())
            account ((std::max<std::size_t> (2 * items.capacity(), 1) - items.capacity()) * sizeof (typename Vector::value_type));
    }

    void accountString (const std::string& text)
    {
        if (text.size() > 15)
            account (text.size() + 1);
    }

    // `depth` counts the arrays and objects around this value. Recursion is bounded by
    // kMaxJsonDepth, so hostile input cannot overflow the stack.
    JsonValue parseValue (int depth)
    {
        skipWhitespace();
        const char c = peek();
        if ((c == '{' || c == '[') && depth >= kMaxJsonDepth)
            fail ("nesting deeper than " + std::to_string (kMaxJsonDepth) + " levels");
        switch (c)
        {
            case '{': return parseObject (depth + 1);
            case '[': return parseArray (depth + 1);
            case '"':
            {
                auto text = parseString();
                accountString (text);
                return JsonValue::string (std::move (text));
            }
            case 't': literal ("true"); return JsonValue::boolean (true);
            case 'f': literal ("false"); return JsonValue::boolean (false);
            case 'n': literal ("null"); return {};
            default: break;
        }
        if (c == '-' || isDigit (c))
            return parseNumber();
        fail (atEnd() ? "unexpected end of input" : "unexpected character " + quote (text_.substr (pos_, 1)));
    }

    JsonValue parseObject (int depth)
    {
        ++pos_; // '{'
        JsonValue::Object members;
        std::set<std::string, std::less<>> keys;
        std::size_t checkBytes = 0;
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
            const auto keyStart = pos_;
            auto key = parseString();
            accountString (key);
            account (kKeyNodeBytes + (key.size() > 15 ? key.size() + 1 : 0)); // the duplicate check's copy
            checkBytes += kKeyNodeBytes + (key.size() > 15 ? key.size() + 1 : 0);
            // Keys are compared after unescaping, so "a" and "\u0061" are duplicates.
            if (! keys.insert (key).second)
                failAt (keyStart, "duplicate key " + quote (key, 40));
            skipWhitespace();
            expect (':', "':'");
            auto value = parseValue (depth);
            accountGrowth (members);
            members.emplace_back (std::move (key), std::move (value));
            skipWhitespace();
            if (peek() == ',')
            {
                ++pos_;
                continue;
            }
            expect ('}', "',' or '}'");
            memoryBytes_ -= checkBytes; // the duplicate check is freed now
            return JsonValue::object (std::move (members));
        }
    }

    JsonValue parseArray (int depth)
    {
        ++pos_; // '['
        JsonValue::Array items;
        skipWhitespace();
        if (peek() == ']')
        {
            ++pos_;
            return JsonValue::array (std::move (items));
        }
        for (;;)
        {
            auto item = parseValue (depth);
            accountGrowth (items);
            items.push_back (std::move (item));
            skipWhitespace();
            if (peek() == ',')
            {
                ++pos_;
                continue;
            }
            expect (']', "',' or ']'");
            return JsonValue::array (std::move (items));
        }
    }

    // Scans the RFC 8259 number grammar, then converts with std::from_chars, which is
    // locale-independent and correctly rounded (as strtod in the "C" locale).
    JsonValue parseNumber()
    {
        const auto start = pos_;
        const bool negative = peek() == '-';
        if (negative)
            ++pos_;

        bool isIntegerLiteral = true; // no fraction, no exponent
        // The magnitude of the number is below 10^decimalExponent, and at least a tenth of that;
        // tracked only to tell overflow from underflow below.
        int64_t decimalExponent = 0;
        bool seenNonZero = false;
        if (peek() == '0')
        {
            ++pos_;
            if (isDigit (peek()))
                fail ("invalid number: leading zeros are not allowed");
        }
        else if (isDigit (peek()))
        {
            seenNonZero = true;
            for (; isDigit (peek()); ++pos_)
                ++decimalExponent;
        }
        else
            fail ("invalid number");

        if (peek() == '.')
        {
            isIntegerLiteral = false;
            ++pos_;
            if (! isDigit (peek()))
                fail ("invalid number: digits expected after '.'");
            for (; isDigit (peek()); ++pos_)
            {
                if (! seenNonZero && peek() == '0')
                    --decimalExponent;
                else
                    seenNonZero = true;
            }
        }

        if (peek() == 'e' || peek() == 'E')
        {
            isIntegerLiteral = false;
            ++pos_;
            const bool negativeExponent = peek() == '-';
            if (peek() == '+' || peek() == '-')
                ++pos_;
            if (! isDigit (peek()))
                fail ("invalid number: digits expected in the exponent");
            int64_t exponent = 0;
            for (; isDigit (peek()); ++pos_)
                if (exponent < 1'000'000'000'000) // saturate: far beyond any double's range already
                    exponent = exponent * 10 + (peek() - '0');
            decimalExponent += negativeExponent ? -exponent : exponent;
        }

        const auto* first = text_.data() + start;
        const auto* last = text_.data() + pos_;
        double value = 0.0;
        const auto result = std::from_chars (first, last, value);
        if (result.ec == std::errc::result_out_of_range)
        {
            // from_chars reports overflow and underflow alike (and leaves `value` alone). Too
            // large is an error; too small rounds to (signed) zero, as strtod does.
            if (seenNonZero && decimalExponent > 0)
                failAt (start, "number out of range");
            return JsonValue::number (negative ? -0.0 : 0.0);
        }
        if (result.ec != std::errc() || result.ptr != last || ! std::isfinite (value))
            failAt (start, "invalid number"); // unreachable for the grammar scanned above

        // Integers are kept exactly too where they fit in int64 (zero need not be: "-0" stays a
        // double, keeping its sign). One that does not is marked, for asInt to refuse.
        auto number = JsonValue::number (value);
        auto& stored = std::get<JsonValue::Number> (number.value_);
        if (isIntegerLiteral && ! seenNonZero)
            stored.digits = true; // written back as 0, "-0" too
        else if (isIntegerLiteral)
        {
            int64_t integer = 0;
            const auto exact = std::from_chars (first, last, integer);
            if (exact.ec == std::errc() && exact.ptr == last)
                return JsonValue::integer (integer);
            stored.integer = JsonValue::Number::Integer::outsideInt64;
            // Positive digits within uint64 are still written back as they were; others as the double.
            std::uint64_t magnitude = 0;
            const auto digits = std::from_chars (first, last, magnitude);
            if (! negative && digits.ec == std::errc() && digits.ptr == last)
            {
                stored.digits = true;
                stored.magnitude = magnitude;
            }
        }
        return number;
    }

    unsigned hex4()
    {
        unsigned value = 0;
        for (int i = 0; i < 4; ++i, ++pos_)
        {
            const char c = peek(); // '\0' at the end of the text
            value <<= 4;
            if (c >= '0' && c <= '9')
                value |= static_cast<unsigned> (c - '0');
            else if (c >= 'a' && c <= 'f')
                value |= static_cast<unsigned> (c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                value |= static_cast<unsigned> (c - 'A' + 10);
            else
                fail ("invalid \\u escape: expected 4 hex digits");
        }
        return value;
    }

    // Called just after "\u"; a high surrogate must be followed at once by an escaped low one.
    unsigned unicodeEscape()
    {
        const auto escapeStart = pos_ - 2;
        const unsigned codePoint = hex4();
        if (codePoint >= 0xDC00 && codePoint <= 0xDFFF)
            failAt (escapeStart, "unpaired surrogate in \\u escape");
        if (codePoint < 0xD800 || codePoint > 0xDBFF)
            return codePoint;
        if (text_.substr (pos_, 2) != "\\u")
            failAt (escapeStart, "unpaired surrogate in \\u escape");
        pos_ += 2;
        const unsigned low = hex4();
        if (low < 0xDC00 || low > 0xDFFF)
            failAt (escapeStart, "unpaired surrogate in \\u escape");
        return 0x10000 + ((codePoint - 0xD800) << 10) + (low - 0xDC00);
    }

    std::string parseString()
    {
        ++pos_; // '"'
        std::string out;
        for (;;)
        {
            if (atEnd())
                fail ("unterminated string");
            const char c = text_[pos_];
            const auto byte = static_cast<unsigned char> (c);
            if (c == '"')
            {
                ++pos_;
                return out;
            }
            if (byte < 0x20)
                fail ("control character in string (must be escaped)");
            if (byte >= 0x80)
            {
                const auto length = utf8SequenceLength (text_, pos_);
                if (length == 0)
                    fail ("invalid UTF-8 in string");
                out.append (text_.substr (pos_, length));
                pos_ += length;
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
            const char escape = text_[pos_];
            ++pos_;
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
                case 'u': appendUtf8 (out, unicodeEscape()); break;
                default: failAt (pos_ - 2, "invalid escape " + quote (text_.substr (pos_ - 2, 2)));
            }
        }
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t maxMemoryBytes_, memoryBytes_ = 0;
};

JsonValue parseJson (std::string_view text)
{
    std::size_t memoryBytes = 0;
    return parseJson (text, kDefaultMaxJsonMemoryBytes, memoryBytes);
}

JsonValue parseJson (std::string_view text, std::size_t maxMemoryBytes, std::size_t& memoryBytes)
{
    JsonParser parser (text, maxMemoryBytes);
    auto document = parser.document();
    memoryBytes = parser.memoryBytes();
    return document;
}

} // namespace sonotype::engine
