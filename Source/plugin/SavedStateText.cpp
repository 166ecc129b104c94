#include "plugin/SavedStateText.h"

#include "engine/file/Utf8.h"

#include <array>

namespace sonotype::plugin
{
namespace
{
    constexpr int kMaxDepth = 32;

    bool isSpace (char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
    bool isNameStart (char c) noexcept { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':'; }
    bool isNameChar (char c) noexcept { return isNameStart (c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

    class Checker
    {
    public:
        explicit Checker (std::string_view text) noexcept : text_ (text) {}

        bool document() noexcept
        {
            skipSpace();
            if (startsWith ("<?xml") && ! declaration())
                return false;
            skipSpace();
            if (! element())
                return false;
            skipSpace();
            return pos_ == text_.size();
        }

    private:
        bool startsWith (std::string_view prefix) const noexcept { return text_.substr (pos_, prefix.size()) == prefix; }
        bool at (char c) const noexcept { return pos_ < text_.size() && text_[pos_] == c; }
        void skipSpace() noexcept
        {
            while (pos_ < text_.size() && isSpace (text_[pos_]))
                ++pos_;
        }

        // <?xml version="1.0" encoding="UTF-8"?>: attributes, then "?>".
        bool declaration() noexcept
        {
            pos_ += 5;
            if (! attributes())
                return false;
            if (! startsWith ("?>"))
                return false;
            pos_ += 2;
            return true;
        }

        std::string_view name() noexcept
        {
            const auto start = pos_;
            if (pos_ >= text_.size() || ! isNameStart (text_[pos_]))
                return {};
            while (pos_ < text_.size() && isNameChar (text_[pos_]))
                ++pos_;
            return text_.substr (start, pos_ - start);
        }

        // (space name space? = space? "value")* space?
        bool attributes() noexcept
        {
            for (;;)
            {
                const auto before = pos_;
                skipSpace();
                if (pos_ >= text_.size() || ! isNameStart (text_[pos_]))
                    return true;
                if (pos_ == before) // attributes are separated by whitespace
                    return false;
                name();
                skipSpace();
                if (! at ('='))
                    return false;
                ++pos_;
                skipSpace();
                if (! at ('"') && ! at ('\''))
                    return false;
                const char quote = text_[pos_++];
                while (pos_ < text_.size() && text_[pos_] != quote)
                    if (text_[pos_++] == '<')
                        return false;
                if (pos_ >= text_.size())
                    return false;
                ++pos_; // closing quote
            }
        }

        // An element tree, iteratively: start tags push their name, end tags must match.
        bool element() noexcept
        {
            std::array<std::string_view, kMaxDepth> open {};
            int depth = 0;
            do
            {
                skipSpace();
                if (! at ('<'))
                    return false; // character data, or the end of the text inside an element
                ++pos_;
                if (at ('/'))
                {
                    ++pos_;
                    if (depth == 0 || name() != open[static_cast<std::size_t> (depth - 1)])
                        return false;
                    skipSpace();
                    if (! at ('>'))
                        return false;
                    ++pos_;
                    --depth;
                    continue;
                }
                const auto tag = name();
                if (tag.empty() || ! attributes())
                    return false;
                if (startsWith ("/>"))
                {
                    pos_ += 2;
                    continue;
                }
                if (! at ('>') || depth == kMaxDepth)
                    return false;
                ++pos_;
                open[static_cast<std::size_t> (depth++)] = tag;
            } while (depth > 0);
            return true;
        }

        std::string_view text_;
        std::size_t pos_ = 0;
    };
} // namespace

bool isPlainNumber (std::string_view text) noexcept
{
    std::size_t pos = 0;
    const auto digits = [&] (std::size_t most) {
        const auto start = pos;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && pos - start < most + 1)
            ++pos;
        return pos - start;
    };
    if (pos < text.size() && (text[pos] == '-' || text[pos] == '+'))
        ++pos;
    const auto whole = digits (20);
    if (whole == 0 || whole > 20)
        return false;
    if (pos < text.size() && text[pos] == '.')
    {
        ++pos;
        const auto fraction = digits (20);
        if (fraction == 0 || fraction > 20)
            return false;
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E'))
    {
        ++pos;
        if (pos < text.size() && (text[pos] == '-' || text[pos] == '+'))
            ++pos;
        const auto exponent = digits (3);
        if (exponent == 0 || exponent > 3)
            return false;
    }
    return pos == text.size();
}

bool isPlainStateXml (std::string_view text) noexcept
{
    for (std::size_t i = 0; i < text.size();)
    {
        const auto length = engine::utf8SequenceLength (text, i);
        if (length == 0 || text[i] == '\0')
            return false;
        i += length;
    }
    return Checker (text).document();
}

} // namespace sonotype::plugin
