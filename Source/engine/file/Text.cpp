#include "engine/file/Text.h"

#include "engine/file/ModelError.h"
#include "engine/file/Utf8.h"

#include <cstdio>

namespace sonotype::engine
{

const char* unsafeCharacterKind (char32_t c) noexcept
{
    if (c < 0x20 || c == 0x7F)
        return "a control character";
    if (c >= 0x80 && c <= 0x9F)
        return "a C1 control character";
    if (c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069))
        return "a bidirectional-text control";
    if (c == 0x00AD || c == 0x034F || c == 0x115F || c == 0x1160 || c == 0x180E || (c >= 0x200B && c <= 0x200D)
        || (c >= 0x2060 && c <= 0x2064) || (c >= 0x206A && c <= 0x206F) || c == 0x3164 || c == 0xFEFF || c == 0xFFA0 || c == 0xE0001
        || (c >= 0xE0020 && c <= 0xE007F))
        return "an invisible format character";
    if (c == 0x2028 || c == 0x2029)
        return "a line separator";
    if ((c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0100 && c <= 0xE01EF) || (c >= 0x180B && c <= 0x180D) || c == 0x180F)
        return "an invisible variation selector";
    if ((c >= 0x0600 && c <= 0x0605) || c == 0x06DD || c == 0x070F || c == 0x0890 || c == 0x0891 || c == 0x08E2 || (c >= 0xFFF9 && c <= 0xFFFB)
        || c == 0x110BD || c == 0x110CD || (c >= 0x13430 && c <= 0x1343F) || (c >= 0x1BCA0 && c <= 0x1BCA3) || (c >= 0x1D173 && c <= 0x1D17A))
        return "a format character";
    return nullptr;
}

namespace
{
    /** A pictograph or symbol emoji sequences build on. */
    bool isPictograph (char32_t c) noexcept
    {
        return (c >= 0x1F000 && c <= 0x1FAFF) || (c >= 0x2600 && c <= 0x27BF) || (c >= 0x2190 && c <= 0x21FF) || (c >= 0x2300 && c <= 0x23FF)
               || (c >= 0x25A0 && c <= 0x25FF) || (c >= 0x2B00 && c <= 0x2BFF) || (c >= 0x2900 && c <= 0x297F) || c == 0x00A9 || c == 0x00AE
               || c == 0x203C || c == 0x2049 || c == 0x2122 || c == 0x2139 || c == 0x24C2 || c == 0x3030 || c == 0x303D || c == 0x3297
               || c == 0x3299;
    }

    /** What an emoji presentation selector may follow: a pictograph, or a keycap's digit, # or *. */
    bool isEmojiBase (char32_t c) noexcept { return isPictograph (c) || (c >= '0' && c <= '9') || c == '#' || c == '*'; }

    /** Appends the character at text[pos] (valid: its length; 0: a malformed byte) as printable()
        shows it; returns the bytes consumed. */
    std::size_t appendPrintable (std::string& out, std::string_view text, std::size_t pos)
    {
        const auto length = utf8SequenceLength (text, pos);
        const char32_t c = length == 0 ? static_cast<unsigned char> (text[pos]) : utf8CodePoint (text, pos, length);
        char escape[16];
        if (length == 0 || c < 0x20 || c == 0x7F)
            std::snprintf (escape, sizeof escape, "\\x%02x", static_cast<unsigned> (c));
        else if (unsafeCharacterKind (c) != nullptr)
            std::snprintf (escape, sizeof escape, c > 0xFFFF ? "\\U%08x" : "\\u%04x", static_cast<unsigned> (c));
        else
        {
            out.append (text.substr (pos, length));
            return length;
        }
        out += escape;
        return length == 0 ? 1 : length;
    }
} // namespace

std::string printable (std::string_view text)
{
    std::string result;
    result.reserve (text.size());
    for (std::size_t pos = 0; pos < text.size();)
        pos += appendPrintable (result, text, pos);
    return result;
}

std::string quote (std::string_view text, std::size_t maxBytes)
{
    std::string result = "'";
    std::size_t pos = 0;
    while (pos < text.size() && result.size() <= maxBytes)
        pos += appendPrintable (result, text, pos);
    result += "'";
    if (pos < text.size())
        result.insert (result.size() - 1, "…").append (" (" + std::to_string (text.size()) + " bytes)");
    return result;
}

void checkDisplayText (std::string_view text, std::size_t maxBytes, const std::string& what)
{
    if (text.empty())
        throw ModelError (what + " is empty");
    if (text.size() > maxBytes)
        throw ModelError (what + " " + quote (text) + " is longer than " + std::to_string (maxBytes) + " bytes");
    // Emoji presentation selectors and joiners are part of an emoji (❤️, 👩‍🎤): allowed after a
    // pictograph (a joiner also before one), refused anywhere else, where they only hide.
    char32_t previous = 0, beforePrevious = 0;
    for (std::size_t pos = 0; pos < text.size();)
    {
        const auto length = utf8SequenceLength (text, pos);
        if (length == 0)
            throw ModelError (what + " " + quote (text) + " is not valid UTF-8");
        const char32_t c = utf8CodePoint (text, pos, length);
        const auto nextLength = pos + length < text.size() ? utf8SequenceLength (text, pos + length) : 0;
        const char32_t next = nextLength > 0 ? utf8CodePoint (text, pos + length, nextLength) : 0;
        const bool afterPictograph = isPictograph (previous) || (previous == 0xFE0F && isPictograph (beforePrevious));
        const bool emojiPart = ((c == 0xFE0E || c == 0xFE0F) && isEmojiBase (previous)) || (c == 0x200D && afterPictograph && isPictograph (next));
        beforePrevious = previous;
        previous = c;
        if (const char* kind = emojiPart ? nullptr : unsafeCharacterKind (c))
        {
            char name[16];
            std::snprintf (name, sizeof name, "U+%04X", static_cast<unsigned> (c));
            throw ModelError (what + " " + quote (text) + " holds " + name + ", " + kind);
        }
        pos += length;
    }
}

} // namespace sonotype::engine
