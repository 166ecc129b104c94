// A structure-aware libFuzzer mutator for model files (safetensors: an 8-byte little-endian header
// length, a JSON header, the tensor data). Byte-level mutation of such a file mostly breaks the
// header length or the JSON string that holds the graph, and the engine then refuses it in the
// first few lines. This mutator instead, chosen at random per call:
//   - mutates the graph JSON (metadata "graph", a JSON string inside the header): unescapes it,
//     lets libFuzzer mutate the plain JSON (the dictionary's op names and keys apply), escapes it
//     back and fixes the header length;
//   - mutates the header JSON (shapes, dtypes, data_offsets, metadata) and fixes the header length;
//   - or mutates the bytes as they are (header length and tensor data included).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" std::size_t LLVMFuzzerMutate (std::uint8_t* data, std::size_t size, std::size_t maxSize);

namespace sonotype::fuzz
{
namespace detail
{
    inline std::uint64_t readLength (const std::uint8_t* p)
    {
        std::uint64_t n = 0;
        for (int i = 7; i >= 0; --i)
            n = (n << 8) | p[i];
        return n;
    }

    inline void writeLength (std::uint8_t* p, std::uint64_t n)
    {
        for (int i = 0; i < 8; ++i, n >>= 8)
            p[i] = static_cast<std::uint8_t> (n & 0xFF);
    }

    /** Lets libFuzzer mutate `text` in place, up to `maxSize` bytes. */
    inline void mutate (std::string& text, std::size_t maxSize)
    {
        const auto size = text.size();
        text.resize (std::max (maxSize, size + 1));
        text.resize (LLVMFuzzerMutate (reinterpret_cast<std::uint8_t*> (text.data()), size, text.size()));
    }

    /** Where the string value of "graph" starts and ends (just inside its quotes), or false. */
    inline bool findGraphString (const std::string& header, std::size_t& begin, std::size_t& end)
    {
        auto key = header.find ("\"graph\"");
        if (key == std::string::npos)
            return false;
        auto p = key + 7;
        while (p < header.size() && (header[p] == ' ' || header[p] == ':'))
            ++p;
        if (p >= header.size() || header[p] != '"')
            return false;
        begin = ++p;
        for (; p < header.size(); ++p)
        {
            if (header[p] == '\\')
                ++p;
            else if (header[p] == '"')
            {
                end = p;
                return true;
            }
        }
        return false;
    }

    inline int hexDigit (char c)
    {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    }

    inline std::string unescape (const std::string& s)
    {
        std::string out;
        for (std::size_t i = 0; i < s.size(); ++i)
        {
            if (s[i] != '\\' || i + 1 == s.size())
            {
                out += s[i];
                continue;
            }
            const char c = s[++i];
            switch (c)
            {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u':
                    if (i + 4 < s.size() && s.compare (i + 1, 2, "00") == 0 && hexDigit (s[i + 3]) >= 0 && hexDigit (s[i + 4]) >= 0)
                    {
                        out += static_cast<char> ((hexDigit (s[i + 3]) << 4 | hexDigit (s[i + 4])) & 0x7F);
                        i += 4;
                    }
                    else
                        out += "\\u"; // kept as written: other code points stay escaped
                    break;
                default: out += c; // \" \\ \/
            }
        }
        return out;
    }

    inline std::string escape (const std::string& s)
    {
        static const char hex[] = "0123456789abcdef";
        std::string out;
        for (const char c : s)
        {
            const auto u = static_cast<unsigned char> (c);
            if (c == '"' || c == '\\')
                out += '\\', out += c;
            else if (u < 0x20)
                out += "\\u00", out += hex[u >> 4], out += hex[u & 15];
            else
                out += c;
        }
        return out;
    }
} // namespace detail

/** libFuzzer's custom mutator for model files; returns the new size (<= maxSize). */
inline std::size_t mutateModelFile (std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned int seed)
{
    std::minstd_rand rng (seed);
    const auto choice = rng() % 8;
    const bool wellFormed = size >= 8 && detail::readLength (data) <= size - 8;
    if (choice < 2 || ! wellFormed)
        return LLVMFuzzerMutate (data, size, maxSize);

    const auto headerLength = static_cast<std::size_t> (detail::readLength (data));
    std::string header (reinterpret_cast<const char*> (data) + 8, headerLength);
    const std::string tensorData (reinterpret_cast<const char*> (data) + 8 + headerLength, size - 8 - headerLength);
    const auto room = maxSize > size ? maxSize - size : 0;

    std::size_t begin = 0, end = 0;
    if (choice < 6 && detail::findGraphString (header, begin, end))
    {
        auto graph = detail::unescape (header.substr (begin, end - begin));
        detail::mutate (graph, graph.size() + room);
        header = header.substr (0, begin) + detail::escape (graph) + header.substr (end);
    }
    else
        detail::mutate (header, header.size() + room);

    if (8 + header.size() + tensorData.size() > maxSize)
        return LLVMFuzzerMutate (data, size, maxSize);
    detail::writeLength (data, header.size());
    std::memcpy (data + 8, header.data(), header.size());
    std::memcpy (data + 8 + header.size(), tensorData.data(), tensorData.size());
    return 8 + header.size() + tensorData.size();
}

} // namespace sonotype::fuzz
