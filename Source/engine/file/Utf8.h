// Validating UTF-8 in text read from model files (JSON strings, names quoted in messages).
#pragma once

#include <cstddef>
#include <string_view>

namespace sonotype::engine
{

/** The length (1–4) of the well-formed UTF-8 sequence starting at text[pos], or 0 if it is
    malformed: a stray continuation byte, an overlong form, a surrogate, a code point beyond
    U+10FFFF, or a sequence cut short by the end of the text. */
inline std::size_t utf8SequenceLength (std::string_view text, std::size_t pos) noexcept
{
    const auto lead = static_cast<unsigned char> (text[pos]);
    if (lead < 0x80)
        return 1;
    std::size_t numContinuation = 0;
    unsigned codePoint = 0;
    if (lead >= 0xC2 && lead <= 0xDF) // 0xC0 and 0xC1 could only start overlong forms
        numContinuation = 1, codePoint = lead & 0x1Fu;
    else if (lead >= 0xE0 && lead <= 0xEF)
        numContinuation = 2, codePoint = lead & 0x0Fu;
    else if (lead >= 0xF0 && lead <= 0xF4)
        numContinuation = 3, codePoint = lead & 0x07u;
    else
        return 0;
    if (numContinuation >= text.size() - pos)
        return 0;
    for (std::size_t i = 1; i <= numContinuation; ++i)
    {
        const auto c = static_cast<unsigned char> (text[pos + i]);
        if ((c & 0xC0u) != 0x80u)
            return 0;
        codePoint = (codePoint << 6) | (c & 0x3Fu);
    }
    const unsigned minimum = numContinuation == 1 ? 0x80u : numContinuation == 2 ? 0x800u
                                                                                 : 0x10000u;
    if (codePoint < minimum || codePoint > 0x10FFFFu || (codePoint >= 0xD800u && codePoint <= 0xDFFFu))
        return 0;
    return numContinuation + 1;
}

/** The code point of the well-formed sequence of `length` bytes (from utf8SequenceLength) at text[pos]. */
inline char32_t utf8CodePoint (std::string_view text, std::size_t pos, std::size_t length) noexcept
{
    const auto lead = static_cast<unsigned char> (text[pos]);
    if (length <= 1)
        return lead;
    char32_t codePoint = lead & (0x7Fu >> length);
    for (std::size_t i = 1; i < length; ++i)
        codePoint = (codePoint << 6) | (static_cast<unsigned char> (text[pos + i]) & 0x3Fu);
    return codePoint;
}

} // namespace sonotype::engine
