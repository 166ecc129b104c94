#include "cli/Npy.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <set>

namespace sonotype::cli
{
namespace
{
    constexpr std::uint8_t kMagic[] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };
    constexpr std::size_t kAlignment = 64; // numpy's ARRAY_ALIGN: where the data may start

    /** A shape as Python writes the tuple: (), (5,), (2, 3). */
    std::string shapeText (const std::vector<int64_t>& shape)
    {
        std::string text = "(";
        for (std::size_t i = 0; i < shape.size(); ++i)
            text += (i > 0 ? ", " : "") + std::to_string (shape[i]);
        return text + (shape.size() == 1 ? ",)" : ")");
    }

    /** The number of elements of `shape`, or nothing if a dimension is negative or the count
        (times 8 bytes, the widest element read) would not fit in 64 bits. */
    bool countElements (const std::vector<int64_t>& shape, std::uint64_t& numElements)
    {
        constexpr auto limit = std::numeric_limits<std::uint64_t>::max() / 8;
        numElements = 1;
        for (const auto dim : shape)
            if (dim < 0)
                return false;
            else if (dim == 0)
                numElements = 0; // and stays 0, however large the other dimensions
        if (numElements == 0)
            return true;
        for (const auto dim : shape)
        {
            if (static_cast<std::uint64_t> (dim) > limit / numElements)
                return false;
            numElements *= static_cast<std::uint64_t> (dim);
        }
        return true;
    }

    // The header is a Python dict literal, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (1, 64, 100), }
    // followed by padding spaces and '\n'. This parses the subset numpy writes (and reads back):
    // exactly those three keys, in any order, with any whitespace and an optional trailing comma.
    class HeaderParser
    {
    public:
        HeaderParser (const std::string& text, const std::string& name) : text_ (text), name_ (name) {}

        void parse (std::string& descr, bool& fortranOrder, std::vector<int64_t>& shape)
        {
            std::set<std::string> keys;
            skip();
            expect ('{');
            for (;;)
            {
                skip();
                if (peek() == '}')
                    break;
                const auto key = quoted();
                if (! keys.insert (key).second)
                    fail ("duplicate key '" + key + "'");
                skip();
                expect (':');
                skip();
                if (key == "descr")
                    descr = dtype();
                else if (key == "fortran_order")
                    fortranOrder = boolean();
                else if (key == "shape")
                    shape = tuple();
                else
                    fail ("unexpected key '" + key + "'");
                skip();
                if (peek() == ',')
                    ++pos_;
                else if (peek() != '}')
                    fail ("expected ',' or '}'");
            }
            ++pos_; // '}'
            skip();
            if (pos_ != text_.size())
                fail ("unexpected text after the header dict");
            for (const char* required : { "descr", "fortran_order", "shape" })
                if (keys.count (required) == 0)
                    fail (std::string ("missing key '") + required + "'");
        }

    private:
        [[noreturn]] void fail (const std::string& what) const { throw NpyError (name_ + ": invalid .npy header: " + what); }

        char peek() const noexcept { return pos_ < text_.size() ? text_[pos_] : '\0'; }
        static bool isDigit (char c) noexcept { return c >= '0' && c <= '9'; }

        void skip() noexcept
        {
            while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')
                ++pos_;
        }

        void expect (char c)
        {
            if (peek() != c)
                fail (std::string ("expected '") + c + "'");
            ++pos_;
        }

        // A string in single or double quotes, without escapes (numpy's keys and dtypes need none);
        // only printable ASCII, so that it can be quoted in error messages as it is.
        std::string quoted()
        {
            const char quote = peek();
            if (quote != '\'' && quote != '"')
                fail ("expected a quoted string");
            ++pos_;
            std::string value;
            for (; peek() != quote; ++pos_)
            {
                if (peek() < ' ' || peek() > '~' || peek() == '\\' || value.size() >= 32)
                    fail ("expected a short, plain quoted string");
                value += peek();
            }
            ++pos_;
            return value;
        }

        std::string dtype()
        {
            if (peek() == '[')
                fail ("structured dtypes are not supported: expected float32 ('<f4')");
            return quoted();
        }

        bool boolean()
        {
            if (text_.compare (pos_, 4, "True") == 0)
                return pos_ += 4, true;
            if (text_.compare (pos_, 5, "False") == 0)
                return pos_ += 5, false;
            fail ("fortran_order must be True or False");
        }

        // A tuple of non-negative integers: (), (5,), (1, 64, 100). A lone (5) is the integer 5 in
        // Python, not a tuple, and numpy refuses it, so this does too.
        std::vector<int64_t> tuple()
        {
            expect ('(');
            std::vector<int64_t> values;
            bool trailingComma = false;
            for (;;)
            {
                skip();
                if (peek() == ')')
                    break;
                if (! isDigit (peek()))
                    fail ("shape must be a tuple of non-negative integers");
                int64_t value = 0;
                for (; isDigit (peek()); ++pos_)
                {
                    const int digit = peek() - '0';
                    if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
                        fail ("shape dimension too large");
                    value = value * 10 + digit;
                }
                if (peek() == 'L') // Python 2 long, as in files written by old numpy versions
                    ++pos_;
                values.push_back (value);
                skip();
                trailingComma = peek() == ',';
                if (trailingComma)
                    ++pos_;
                else if (peek() != ')')
                    fail ("expected ',' or ')' in shape");
            }
            ++pos_; // ')'
            if (values.size() == 1 && ! trailingComma)
                fail ("shape must be a tuple, such as (" + std::to_string (values[0]) + ",)");
            return values;
        }

        const std::string& text_;
        const std::string& name_;
        std::size_t pos_ = 0;
    };

    // Element decoding is explicit about byte order, so it holds on any host.
    std::uint64_t readLittleEndian (const std::uint8_t* bytes, std::size_t numBytes) noexcept
    {
        std::uint64_t value = 0;
        for (std::size_t i = numBytes; i-- > 0;)
            value = (value << 8) | bytes[i];
        return value;
    }

    float float32FromBytes (const std::uint8_t* bytes) noexcept
    {
        const auto bits = static_cast<std::uint32_t> (readLittleEndian (bytes, 4));
        float value;
        std::memcpy (&value, &bits, sizeof value);
        return value;
    }

    float float32FromFloat64Bytes (const std::uint8_t* bytes) noexcept
    {
        const auto bits = readLittleEndian (bytes, 8);
        double value;
        std::memcpy (&value, &bits, sizeof value);
        // Casting a finite double beyond float's range is undefined behaviour in C++; numpy's
        // astype(float32) gives infinity, so do that explicitly.
        constexpr double largest = std::numeric_limits<float>::max();
        if (value > largest)
            return std::numeric_limits<float>::infinity();
        if (value < -largest)
            return -std::numeric_limits<float>::infinity();
        return static_cast<float> (value); // NaN stays NaN
    }
} // namespace

NpyArray parseNpy (const std::vector<std::uint8_t>& bytes, const std::string& name)
{
    auto fail = [&] (const std::string& what) { return NpyError (name + ": " + what); };
    if (bytes.size() < sizeof kMagic || std::memcmp (bytes.data(), kMagic, sizeof kMagic) != 0)
        throw fail ("not a .npy file (no \\x93NUMPY magic)");
    if (bytes.size() < 8)
        throw fail ("truncated .npy header");
    const int major = bytes[6], minor = bytes[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0)
        throw fail (".npy format version " + std::to_string (major) + "." + std::to_string (minor)
                    + " is not supported (expected 1.0, 2.0 or 3.0)");

    // Version 1.0 stores the header length in 2 bytes, 2.0 and 3.0 (UTF-8 header) in 4.
    const std::size_t lengthBytes = major == 1 ? 2 : 4;
    const std::size_t headerStart = 8 + lengthBytes;
    if (bytes.size() < headerStart)
        throw fail ("truncated .npy header");
    const auto headerLength = readLittleEndian (bytes.data() + 8, lengthBytes);
    if (headerLength > bytes.size() - headerStart)
        throw fail ("truncated .npy header (it claims " + std::to_string (headerLength) + " bytes, the file holds "
                    + std::to_string (bytes.size() - headerStart) + ")");
    const auto dataStart = headerStart + static_cast<std::size_t> (headerLength);

    const std::string header (bytes.begin() + static_cast<std::ptrdiff_t> (headerStart),
                              bytes.begin() + static_cast<std::ptrdiff_t> (dataStart));
    std::string descr;
    bool fortranOrder = false;
    NpyArray array;
    HeaderParser (header, name).parse (descr, fortranOrder, array.shape);

    // '=' means native order; numpy always writes '<' or '>' for floats, so take it as little-endian.
    std::size_t itemSize = 0;
    if (descr == "<f4" || descr == "=f4")
        itemSize = 4;
    else if (descr == "<f8" || descr == "=f8")
        itemSize = 8;
    else
        throw fail ("npy dtype '" + descr + "' is not supported: expected float32 ('<f4')");
    if (fortranOrder)
        throw fail ("Fortran-order arrays are not supported (save numpy.ascontiguousarray(a) instead)");

    // Check the size the shape implies against what is there before allocating anything.
    std::uint64_t numElements = 0;
    if (! countElements (array.shape, numElements))
        throw fail ("shape " + shapeText (array.shape) + " is too large");
    const auto available = static_cast<std::uint64_t> (bytes.size() - dataStart);
    const auto needed = numElements * itemSize;
    if (available < needed)
        throw fail ("truncated: shape " + shapeText (array.shape) + " of '" + descr + "' needs " + std::to_string (needed)
                    + " data bytes but the file holds " + std::to_string (available));
    if (available > needed)
        throw fail ("shape " + shapeText (array.shape) + " of '" + descr + "' needs " + std::to_string (needed)
                    + " data bytes but the file holds " + std::to_string (available) + " (unexpected trailing bytes)");

    array.data.resize (static_cast<std::size_t> (numElements));
    const auto* data = bytes.data() + dataStart;
    for (std::size_t i = 0; i < array.data.size(); ++i)
        array.data[i] = itemSize == 4 ? float32FromBytes (data + 4 * i) : float32FromFloat64Bytes (data + 8 * i);
    return array;
}

NpyArray readNpy (const std::string& path)
{
    const auto name = "'" + path + "'";
    std::ifstream stream (path, std::ios::binary);
    if (! stream)
        throw NpyError ("cannot open " + name);
    // Read to the end in chunks rather than trusting a size up front: that works for pipes too,
    // and never allocates more than the file really holds.
    std::vector<std::uint8_t> bytes;
    std::vector<char> chunk (std::size_t { 1 } << 20);
    while (stream.read (chunk.data(), static_cast<std::streamsize> (chunk.size())) || stream.gcount() > 0)
        bytes.insert (bytes.end(), chunk.begin(), chunk.begin() + stream.gcount());
    if (stream.bad() || ! stream.eof())
        throw NpyError ("cannot read " + name);
    return parseNpy (bytes, name);
}

std::vector<std::uint8_t> serialiseNpy (const NpyArray& array)
{
    std::uint64_t numElements = 0;
    if (! countElements (array.shape, numElements) || numElements != array.data.size())
        throw NpyError ("cannot write an array of shape " + shapeText (array.shape) + " holding " + std::to_string (array.data.size())
                        + " values");

    // As numpy.lib.format writes it: the dict with keys in sorted order, spare spaces so that the
    // first dimension can grow in place to 21 digits, then spaces to align the data, then '\n'.
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shapeText (array.shape) + ", }";
    if (! array.shape.empty())
        header.append (21 - std::to_string (array.shape[0]).size(), ' ');
    const std::size_t preambleBytes = sizeof kMagic + 4;
    header.append (kAlignment - (preambleBytes + header.size() + 1) % kAlignment, ' ');
    header += '\n';
    if (header.size() > 0xFFFF)
        throw NpyError ("cannot write an array of shape " + shapeText (array.shape) + ": header too long for .npy version 1.0");

    std::vector<std::uint8_t> bytes (kMagic, kMagic + sizeof kMagic);
    bytes.reserve (preambleBytes + header.size() + 4 * array.data.size());
    bytes.push_back (1); // version 1.0
    bytes.push_back (0);
    bytes.push_back (static_cast<std::uint8_t> (header.size() & 0xFF));
    bytes.push_back (static_cast<std::uint8_t> (header.size() >> 8));
    bytes.insert (bytes.end(), header.begin(), header.end());
    for (const float value : array.data)
    {
        std::uint32_t bits;
        std::memcpy (&bits, &value, sizeof bits);
        for (int i = 0; i < 4; ++i, bits >>= 8)
            bytes.push_back (static_cast<std::uint8_t> (bits & 0xFF));
    }
    return bytes;
}

void writeNpy (const std::string& path, const NpyArray& array)
{
    const auto bytes = serialiseNpy (array);
    std::ofstream stream (path, std::ios::binary);
    if (! stream)
        throw NpyError ("cannot open '" + path + "' for writing");
    stream.write (reinterpret_cast<const char*> (bytes.data()), static_cast<std::streamsize> (bytes.size()));
    stream.close();
    if (! stream)
        throw NpyError ("cannot write '" + path + "'");
}

} // namespace sonotype::cli
