#include "engine/ModelError.h"

#include "engine/Utf8.h"

namespace sonotype::engine
{

std::string printable (std::string_view text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string result;
    result.reserve (text.size());
    for (std::size_t i = 0; i < text.size();)
    {
        const auto c = static_cast<unsigned char> (text[i]);
        if (c >= 0x20 && c < 0x7f)
        {
            result += static_cast<char> (c);
            ++i;
            continue;
        }
        if (c >= 0x80)
            if (const auto length = utf8SequenceLength (text, i); length > 1)
            {
                result.append (text.substr (i, length));
                i += length;
                continue;
            }
        result += "\\x";
        result += kHex[c >> 4];
        result += kHex[c & 15];
        ++i;
    }
    return result;
}

} // namespace sonotype::engine
