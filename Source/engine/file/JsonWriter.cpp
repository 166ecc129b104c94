#include "engine/file/JsonWriter.h"

#include "engine/file/JsonNumber.h"
#include "engine/file/Text.h"
#include "engine/file/Utf8.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

namespace sonotype::engine
{
namespace
{
    // The bytes a run of invalid UTF-8 at text[pos] takes (utf8SequenceLength gave 0 there): the
    // lead byte alone when it starts no sequence, else up to the first byte that cannot continue
    // it (which then starts afresh), or to the end of a sequence cut short. One U+FFFD each, as
    // nlohmann's decoder (Bjoern Hoehrmann's) rejects them.
    std::size_t invalidRunLength (std::string_view text, std::size_t pos) noexcept
    {
        const auto lead = static_cast<unsigned char> (text[pos]);
        std::size_t numContinuation = 0;
        unsigned char low = 0x80, high = 0xBF; // the range of the byte after the lead
        if (lead >= 0xC2 && lead <= 0xDF)
            numContinuation = 1;
        else if (lead >= 0xE0 && lead <= 0xEF)
        {
            numContinuation = 2;
            low = lead == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
            high = lead == 0xED ? 0x9F : 0xBF; // no surrogates
        }
        else if (lead >= 0xF0 && lead <= 0xF4)
        {
            numContinuation = 3;
            low = lead == 0xF0 ? 0x90 : 0x80;
            high = lead == 0xF4 ? 0x8F : 0xBF; // nothing beyond U+10FFFF
        }
        else
            return 1;
        for (std::size_t i = 1; i <= numContinuation; ++i)
        {
            if (pos + i >= text.size())
                return text.size() - pos;
            const auto c = static_cast<unsigned char> (text[pos + i]);
            if (c < (i == 1 ? low : 0x80) || c > (i == 1 ? high : 0xBF))
                return i;
        }
        return numContinuation + 1; // not reached: the sequence was invalid
    }

    class Writer
    {
    public:
        Writer (std::string& out, InvalidUtf8 invalid) : out_ (out), invalid_ (invalid) {}

        void value (const JsonValue& v, int depth)
        {
            switch (v.type())
            {
                case JsonValue::Type::null: out_ += "null"; return;
                case JsonValue::Type::boolean: out_ += v.asBool() ? "true" : "false"; return;
                case JsonValue::Type::number: number (v); return;
                case JsonValue::Type::string: string (v.asString()); return;
                case JsonValue::Type::array: array (v.asArray(), depth + 1); return;
                case JsonValue::Type::object: object (v.asObject(), depth + 1); return;
            }
        }

    private:
        void checkDepth (int depth) const
        {
            if (depth > kMaxJsonWriteDepth)
                throw JsonError ("a JSON value nested deeper than " + std::to_string (kMaxJsonWriteDepth) + " levels is not written");
        }

        void array (const JsonValue::Array& items, int depth)
        {
            checkDepth (depth);
            out_ += '[';
            for (std::size_t i = 0; i < items.size(); ++i)
            {
                if (i > 0)
                    out_ += ',';
                value (items[i], depth);
            }
            out_ += ']';
        }

        void object (const JsonValue::Object& members, int depth)
        {
            checkDepth (depth);
            std::vector<const JsonValue::Object::value_type*> sorted;
            sorted.reserve (members.size());
            for (const auto& member : members)
                sorted.push_back (&member);
            std::sort (sorted.begin(), sorted.end(), [] (const auto* a, const auto* b) { return a->first < b->first; });
            out_ += '{';
            for (std::size_t i = 0; i < sorted.size(); ++i)
            {
                if (i > 0)
                {
                    if (sorted[i]->first == sorted[i - 1]->first)
                        throw JsonError ("an object holds the key " + quote (sorted[i]->first, 40) + " twice");
                    out_ += ',';
                }
                string (sorted[i]->first);
                out_ += ':';
                value (sorted[i]->second, depth);
            }
            out_ += '}';
        }

        void number (const JsonValue& v)
        {
            char buffer[kMaxJsonDoubleChars];
            char* end = buffer;
            if (const auto digits = v.integerDigits())
            {
                if (digits->negative)
                    *end++ = '-';
                end = std::to_chars (end, buffer + sizeof buffer, digits->magnitude).ptr;
            }
            else if (! std::isfinite (v.asNumber()))
            {
                out_ += "null";
                return;
            }
            else
                end = formatJsonDouble (buffer, v.asNumber());
            out_.append (buffer, end);
        }

        void string (std::string_view text)
        {
            static constexpr char kHex[] = "0123456789abcdef";
            out_ += '"';
            std::size_t pos = 0;
            while (pos < text.size())
            {
                const auto byte = static_cast<unsigned char> (text[pos]);
                if (byte >= 0x80)
                {
                    const auto length = utf8SequenceLength (text, pos);
                    if (length > 0)
                        out_.append (text.substr (pos, length));
                    else if (invalid_ == InvalidUtf8::refuse)
                        throw JsonError ("a string is not valid UTF-8 (byte " + std::to_string (pos) + ": 0x" + kHex[byte >> 4] + kHex[byte & 15] + ")");
                    else
                        out_ += "\xEF\xBF\xBD"; // U+FFFD, the replacement character
                    pos += length > 0 ? length : invalidRunLength (text, pos);
                    continue;
                }
                ++pos;
                switch (byte)
                {
                    case '"': out_ += "\\\""; break;
                    case '\\': out_ += "\\\\"; break;
                    case '\b': out_ += "\\b"; break;
                    case '\t': out_ += "\\t"; break;
                    case '\n': out_ += "\\n"; break;
                    case '\f': out_ += "\\f"; break;
                    case '\r': out_ += "\\r"; break;
                    default:
                        if (byte < 0x20)
                        {
                            const char escape[] = { '\\', 'u', '0', '0', kHex[byte >> 4], kHex[byte & 15] };
                            out_.append (escape, sizeof escape);
                        }
                        else
                            out_ += static_cast<char> (byte);
                }
            }
            out_ += '"';
        }

        std::string& out_;
        InvalidUtf8 invalid_;
    };
} // namespace

std::string writeJson (const JsonValue& value, InvalidUtf8 invalid)
{
    std::string out;
    Writer (out, invalid).value (value, 0);
    return out;
}

void appendJson (std::string& out, const JsonValue& value, InvalidUtf8 invalid)
{
    const auto size = out.size();
    try
    {
        Writer (out, invalid).value (value, 0);
    }
    catch (...)
    {
        out.resize (size);
        throw;
    }
}

} // namespace sonotype::engine
