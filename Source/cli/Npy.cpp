#include "cli/Npy.h"

#include <cstring>
#include <fstream>

namespace sonotype::cli
{
namespace
{
    constexpr std::uint64_t kMaxElements = std::uint64_t { 1 } << 34;

    // The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (1, 64, 100), }
    class HeaderParser
    {
    public:
        HeaderParser (const std::string& text, const std::string& name) : text_ (text), name_ (name) {}

        void parse (std::string& descr, bool& fortranOrder, std::vector<int64_t>& shape)
        {
            bool haveDescr = false, haveOrder = false, haveShape = false;
            skip();
            expect ('{');
            for (;;)
            {
                skip();
                if (peek() == '}')
                    break;
                const auto key = quoted();
                skip();
                expect (':');
                skip();
                if (key == "descr")
                    descr = quoted(), haveDescr = true;
                else if (key == "fortran_order")
                    fortranOrder = boolean(), haveOrder = true;
                else if (key == "shape")
                    shape = tuple(), haveShape = true;
                else
                    fail ("unexpected key '" + key + "'");
                skip();
                if (peek() == ',')
                {
                    ++pos_;
                    continue;
                }
                skip();
                if (peek() != '}')
                    fail ("expected ',' or '}'");
            }
            if (! haveDescr || ! haveOrder || ! haveShape)
                fail ("header lacks descr, fortran_order or shape");
        }

    private:
        [[noreturn]] void fail (const std::string& what) const { throw NpyError (name_ + ": invalid .npy header: " + what); }
        char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
        void skip()
        {
            while (peek() == ' ' || peek() == '\n' || peek() == '\t')
                ++pos_;
        }
        void expect (char c)
        {
            if (peek() != c)
                fail (std::string ("expected '") + c + "'");
            ++pos_;
        }
        std::string quoted()
        {
            const char quote = peek();
            if (quote != '\'' && quote != '"')
                fail ("expected a quoted string");
            ++pos_;
            const auto end = text_.find (quote, pos_);
            if (end == std::string::npos)
                fail ("unterminated string");
            auto value = text_.substr (pos_, end - pos_);
            pos_ = end + 1;
            return value;
        }
        bool boolean()
        {
            if (text_.compare (pos_, 4, "True") == 0)
                return pos_ += 4, true;
            if (text_.compare (pos_, 5, "False") == 0)
                return pos_ += 5, false;
            fail ("expected True or False");
        }
        std::vector<int64_t> tuple()
        {
            expect ('(');
            std::vector<int64_t> values;
            for (;;)
            {
                skip();
                if (peek() == ')')
                {
                    ++pos_;
                    return values;
                }
                if (peek() < '0' || peek() > '9')
                    fail ("shape must hold non-negative integers");
                int64_t value = 0;
                while (peek() >= '0' && peek() <= '9')
                {
                    if (value > (int64_t { 1 } << 40))
                        fail ("dimension too large");
                    value = value * 10 + (peek() - '0');
                    ++pos_;
                }
                values.push_back (value);
                skip();
                if (peek() == ',')
                    ++pos_;
                else if (peek() != ')')
                    fail ("expected ',' or ')' in shape");
            }
        }

        const std::string& text_;
        const std::string& name_;
        std::size_t pos_ = 0;
    };
} // namespace

NpyArray parseNpy (const std::vector<std::uint8_t>& bytes, const std::string& name)
{
    static const std::uint8_t magic[] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };
    if (bytes.size() < 10 || std::memcmp (bytes.data(), magic, sizeof magic) != 0)
        throw NpyError (name + ": not a .npy file (no \\x93NUMPY magic)");
    const int major = bytes[6];
    std::size_t headerLength = 0, headerStart = 0;
    if (major == 1)
    {
        headerLength = bytes[8] | (std::size_t { bytes[9] } << 8);
        headerStart = 10;
    }
    else if (major == 2 || major == 3)
    {
        if (bytes.size() < 12)
            throw NpyError (name + ": truncated .npy header");
        headerLength = bytes[8] | (std::size_t { bytes[9] } << 8) | (std::size_t { bytes[10] } << 16) | (std::size_t { bytes[11] } << 24);
        headerStart = 12;
    }
    else
        throw NpyError (name + ": .npy format version " + std::to_string (major) + " is not supported");
    if (headerLength > bytes.size() - headerStart)
        throw NpyError (name + ": truncated .npy header");

    const std::string header (bytes.begin() + static_cast<std::ptrdiff_t> (headerStart),
                              bytes.begin() + static_cast<std::ptrdiff_t> (headerStart + headerLength));
    std::string descr;
    bool fortranOrder = false;
    NpyArray array;
    HeaderParser (header, name).parse (descr, fortranOrder, array.shape);
    if (fortranOrder)
        throw NpyError (name + ": Fortran-order arrays are not supported (save with numpy.ascontiguousarray)");
    std::size_t itemSize = 0;
    if (descr == "<f4" || descr == "=f4")
        itemSize = 4;
    else if (descr == "<f8" || descr == "=f8")
        itemSize = 8;
    else
        throw NpyError (name + ": dtype '" + descr + "' is not supported: expected float32 ('<f4')");

    std::uint64_t count = 1;
    for (auto dim : array.shape)
    {
        count *= static_cast<std::uint64_t> (dim);
        if (count > kMaxElements)
            throw NpyError (name + ": array too large");
    }
    const std::size_t dataStart = headerStart + headerLength;
    const std::size_t available = bytes.size() - dataStart;
    const auto needed = static_cast<std::size_t> (count) * itemSize;
    if (available != needed)
        throw NpyError (name + ": holds " + std::to_string (available) + " data bytes but its shape needs " + std::to_string (needed)
                        + (available < needed ? " (truncated)" : ""));
    array.data.resize (static_cast<std::size_t> (count));
    const auto* data = bytes.data() + dataStart;
    if (itemSize == 4)
        std::memcpy (array.data.data(), data, needed);
    else
        for (std::size_t i = 0; i < array.data.size(); ++i)
        {
            double value = 0.0;
            std::memcpy (&value, data + i * 8, 8);
            array.data[i] = static_cast<float> (value);
        }
    return array;
}

NpyArray readNpy (const std::string& path)
{
    std::ifstream stream (path, std::ios::binary);
    if (! stream)
        throw NpyError ("cannot open '" + path + "'");
    std::vector<std::uint8_t> bytes ((std::istreambuf_iterator<char> (stream)), std::istreambuf_iterator<char>());
    return parseNpy (bytes, "'" + path + "'");
}

std::vector<std::uint8_t> serialiseNpy (const NpyArray& array)
{
    std::string shape = "(";
    for (std::size_t i = 0; i < array.shape.size(); ++i)
        shape += std::to_string (array.shape[i]) + ",";
    if (array.shape.size() > 1)
        shape.pop_back();
    shape += ")";
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    const std::uint8_t preamble[] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<std::uint8_t> (header.size() & 0xFF),
                                      static_cast<std::uint8_t> (header.size() >> 8) };
    const auto dataBytes = array.data.size() * sizeof (float);
    std::vector<std::uint8_t> bytes (sizeof preamble + header.size() + dataBytes);
    std::memcpy (bytes.data(), preamble, sizeof preamble);
    std::memcpy (bytes.data() + sizeof preamble, header.data(), header.size());
    if (dataBytes > 0)
        std::memcpy (bytes.data() + sizeof preamble + header.size(), array.data.data(), dataBytes);
    return bytes;
}

void writeNpy (const std::string& path, const NpyArray& array)
{
    const auto bytes = serialiseNpy (array);
    std::ofstream stream (path, std::ios::binary);
    if (! stream.write (reinterpret_cast<const char*> (bytes.data()), static_cast<std::streamsize> (bytes.size())))
        throw NpyError ("cannot write '" + path + "'");
}

} // namespace sonotype::cli
