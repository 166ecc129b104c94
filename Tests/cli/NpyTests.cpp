#include "cli/Npy.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

using namespace sonotype::cli;
using Catch::Matchers::Contains;

namespace
{
// The bytes of a string literal, which may hold NULs (without the terminating one).
template <std::size_t N>
std::vector<std::uint8_t> literalBytes (const char (&text)[N])
{
    return std::vector<std::uint8_t> (text, text + N - 1);
}

// Files written by NumPy 1.24 (numpy.save, or numpy.lib.format.write_array for versions 2.0 and 3.0).

// np.array([[1.5, -2, 0], [3.25, np.inf, -0.0]], np.float32)
const char numpy2x3[] = "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
                        "                                                          \n"
                        "\x00\x00\xc0\x3f\x00\x00\x00\xc0\x00\x00\x00\x00\x00\x00P@\x00\x00\x80\x7f\x00\x00\x00\x80";

// np.array([1, 2, 3], np.float32), format version 2.0 and 3.0
const char numpyVersion2[] = "\x93NUMPY\x02\x00t\x00\x00\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"
                             "                                                          \n"
                             "\x00\x00\x80\x3f\x00\x00\x00@\x00\x00@@";
const char numpyVersion3[] = "\x93NUMPY\x03\x00t\x00\x00\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"
                             "                                                          \n"
                             "\x00\x00\x80\x3f\x00\x00\x00@\x00\x00@@";

// np.array([1.5, -2.25, 1e300]) (float64)
const char numpyFloat64[] = "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"
                            "                                                            \n"
                            "\x00\x00\x00\x00\x00\x00\xf8\x3f\x00\x00\x00\x00\x00\x00\x02\xc0\x9cu\x00\x88<\xe4"
                            "7~";

// np.array(7.0, np.float32), a 0-d array
const char numpyScalar[] = "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (), }"
                           "                                                              \n"
                           "\x00\x00\xe0@";

// A version 1.0 file with `header` (taken as it is: no padding added) and `dataBytes` zero bytes.
std::vector<std::uint8_t> npyBytes (const std::string& header, std::size_t dataBytes)
{
    std::vector<std::uint8_t> bytes { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0 };
    bytes.push_back (static_cast<std::uint8_t> (header.size() & 0xFF));
    bytes.push_back (static_cast<std::uint8_t> (header.size() >> 8));
    bytes.insert (bytes.end(), header.begin(), header.end());
    bytes.resize (bytes.size() + dataBytes);
    return bytes;
}

std::vector<std::uint8_t> npyBytesWithShape (const std::string& shape, std::size_t dataBytes, const std::string& descr = "<f4")
{
    return npyBytes ("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }\n", dataBytes);
}

std::vector<int64_t> shapeOf (const std::vector<std::uint8_t>& bytes) { return parseNpy (bytes).shape; }

bool sameBits (float a, float b)
{
    return std::memcmp (&a, &b, sizeof a) == 0;
}

// A path in the temporary directory no other test process uses (CTest may run them in parallel).
std::filesystem::path temporaryPath (const std::string& stem)
{
    std::random_device device;
    return std::filesystem::temp_directory_path() / ("sonotype-npy-test-" + stem + "-" + std::to_string (device()) + ".npy");
}
} // namespace

TEST_CASE ("npy files written by NumPy are read", "[npy]")
{
    const auto array = parseNpy (literalBytes (numpy2x3));
    CHECK (array.shape == std::vector<int64_t> { 2, 3 });
    REQUIRE (array.data.size() == 6);
    CHECK (array.data[0] == 1.5f);
    CHECK (array.data[1] == -2.0f);
    CHECK (array.data[3] == 3.25f);
    CHECK (array.data[4] == std::numeric_limits<float>::infinity());
    CHECK (sameBits (array.data[5], -0.0f));

    for (const auto& bytes : { literalBytes (numpyVersion2), literalBytes (numpyVersion3) })
    {
        const auto v = parseNpy (bytes);
        CHECK (v.shape == std::vector<int64_t> { 3 });
        CHECK (v.data == std::vector<float> { 1.0f, 2.0f, 3.0f });
    }

    const auto scalar = parseNpy (literalBytes (numpyScalar));
    CHECK (scalar.shape.empty());
    CHECK (scalar.data == std::vector<float> { 7.0f });

    // float64 is converted; beyond float's range that gives infinity, as numpy's astype does.
    const auto doubles = parseNpy (literalBytes (numpyFloat64));
    CHECK (doubles.shape == std::vector<int64_t> { 3 });
    REQUIRE (doubles.data.size() == 3);
    CHECK (doubles.data[0] == 1.5f);
    CHECK (doubles.data[1] == -2.25f);
    CHECK (doubles.data[2] == std::numeric_limits<float>::infinity());
}

TEST_CASE ("npy files are written byte for byte as numpy.save writes them", "[npy]")
{
    const NpyArray array { { 2, 3 }, { 1.5f, -2.0f, 0.0f, 3.25f, std::numeric_limits<float>::infinity(), -0.0f } };
    CHECK (serialiseNpy (array) == literalBytes (numpy2x3));
    CHECK (serialiseNpy ({ {}, { 7.0f } }) == literalBytes (numpyScalar));

    // The data starts at a multiple of 64 bytes, after a header ending in '\n'.
    for (const auto& shape : { std::vector<int64_t> {}, { 0 }, { 5 }, { 1, 64, 100 }, { 3, 0, 2 }, std::vector<int64_t> (20, 1) })
    {
        NpyArray a { shape, {} };
        std::size_t numElements = 1;
        for (const auto dim : shape)
            numElements *= static_cast<std::size_t> (dim);
        a.data.assign (numElements, 1.0f);
        const auto bytes = serialiseNpy (a);
        const std::size_t dataStart = 10 + (bytes[8] | (std::size_t { bytes[9] } << 8));
        CHECK (dataStart % 64 == 0);
        CHECK (bytes[dataStart - 1] == '\n');
        CHECK (bytes.size() == dataStart + 4 * numElements);
    }
}

TEST_CASE ("npy files round-trip through writeNpy and readNpy", "[npy]")
{
    const std::vector<NpyArray> arrays {
        { {}, { 4.0f } },
        { { 0 }, {} },
        { { 5 }, { 1, 2, 3, 4, 5 } },
        { { 2, 3 }, { 1, 2, 3, 4, 5, -6.5f } },
        { { 3, 0, 2 }, {} },
        { { 1, 2, 1, 2 },
          { std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min(), -0.0f } },
    };
    for (const auto& array : arrays)
    {
        const auto back = parseNpy (serialiseNpy (array));
        CHECK (back.shape == array.shape);
        REQUIRE (back.data.size() == array.data.size());
        for (std::size_t i = 0; i < array.data.size(); ++i)
            CHECK (sameBits (back.data[i], array.data[i])); // NaN and -0 too
    }

    NpyArray large { { 1, 64, 100 }, std::vector<float> (6400) };
    for (std::size_t i = 0; i < large.data.size(); ++i)
        large.data[i] = static_cast<float> (i) * 0.25f - 100.0f;
    const auto path = temporaryPath ("round-trip");
    writeNpy (path.string(), large);
    const auto back = readNpy (path.string());
    std::filesystem::remove (path);
    CHECK (back.shape == large.shape);
    CHECK (back.data == large.data);
}

TEST_CASE ("npy headers are parsed like the Python literals they are", "[npy]")
{
    CHECK (shapeOf (npyBytes ("{'shape': (3,), 'fortran_order': False, 'descr': '<f4'}\n", 12)) == std::vector<int64_t> { 3 });
    CHECK (shapeOf (npyBytes ("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 1)}", 8)) == std::vector<int64_t> { 2, 1 });
    CHECK (shapeOf (npyBytes (" {\t'descr' : '<f4' ,\r\n 'fortran_order':False,'shape':( 2 , 1 , ) , }  \n", 8))
           == std::vector<int64_t> { 2, 1 });
    CHECK (shapeOf (npyBytesWithShape ("(2L, 3L)", 24)) == std::vector<int64_t> { 2, 3 }); // as Python 2 wrote them
    CHECK (shapeOf (npyBytesWithShape ("()", 4)).empty());
    CHECK (shapeOf (npyBytesWithShape ("(0, 9223372036854775807)", 0)) == std::vector<int64_t> { 0, 9223372036854775807 });
    CHECK (parseNpy (npyBytesWithShape ("(2,)", 8, "=f4")).data.size() == 2);
    CHECK (parseNpy (npyBytesWithShape ("(2,)", 16, "=f8")).data.size() == 2);

    // Version 2.0 exists for headers too long for version 1.0's 16-bit length.
    const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }" + std::string (70000, ' ') + "\n";
    std::vector<std::uint8_t> bytes { 0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0 };
    for (int shift = 0; shift < 32; shift += 8)
        bytes.push_back (static_cast<std::uint8_t> ((header.size() >> shift) & 0xFF));
    bytes.insert (bytes.end(), header.begin(), header.end());
    bytes.insert (bytes.end(), { 0x00, 0x00, 0x80, 0x3f });
    CHECK (parseNpy (bytes).data == std::vector<float> { 1.0f });
}

TEST_CASE ("bad npy files are rejected with specific messages", "[npy]")
{
    SECTION ("preamble")
    {
        CHECK_THROWS_WITH (parseNpy ({}), Contains ("npy data: not a .npy file (no \\x93NUMPY magic)"));
        CHECK_THROWS_WITH (parseNpy ({ 1, 2, 3 }), Contains ("not a .npy file"));
        CHECK_THROWS_WITH (parseNpy (literalBytes ("\x93NUMPz\x01\x00\x00\x00")), Contains ("not a .npy file"));
        CHECK_THROWS_WITH (parseNpy (literalBytes ("PK\x03\x04 a .npz, say")), Contains ("not a .npy file"));
        CHECK_THROWS_WITH (parseNpy (literalBytes ("\x93NUMPY")), Contains ("truncated .npy header"));
        CHECK_THROWS_WITH (parseNpy (literalBytes ("\x93NUMPY\x01\x00\x10")), Contains ("truncated .npy header"));
        CHECK_THROWS_WITH (parseNpy (literalBytes ("\x93NUMPY\x02\x00\x10\x00\x00")), Contains ("truncated .npy header"));
        CHECK_THROWS_WITH (parseNpy (literalBytes ("\x93NUMPY\x04\x00\x00\x00\x00\x00")), Contains ("format version 4.0 is not supported"));
        CHECK_THROWS_WITH (parseNpy (literalBytes ("\x93NUMPY\x01\x01\x00\x00")), Contains ("format version 1.1 is not supported"));
        CHECK_THROWS_WITH (parseNpy (literalBytes ("\x93NUMPY\x00\x00\x00\x00")), Contains ("format version 0.0 is not supported"));
    }

    SECTION ("header length beyond the file")
    {
        auto bytes = literalBytes (numpyScalar);
        bytes[9] = 0x01; // 0x0176 bytes
        CHECK_THROWS_WITH (parseNpy (bytes), Contains ("truncated .npy header (it claims 374 bytes, the file holds 122)"));
        auto version2 = literalBytes (numpyVersion2);
        version2[11] = 0xFF; // almost 4 GiB
        CHECK_THROWS_WITH (parseNpy (version2), Contains ("truncated .npy header"));
    }

    SECTION ("dtype")
    {
        for (const char* descr : { "<i8", ">f4", "|u1", "<f2", "<c8", "|b1", "f4", "<U3" })
        {
            INFO (descr);
            CHECK_THROWS_WITH (parseNpy (npyBytesWithShape ("(2,)", 16, descr)),
                               Contains (std::string ("npy dtype '") + descr + "' is not supported: expected float32 ('<f4')"));
        }
        CHECK_THROWS_WITH (parseNpy (npyBytes ("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }\n", 8)),
                           Contains ("structured dtypes are not supported"));
    }

    SECTION ("Fortran order")
    {
        CHECK_THROWS_WITH (parseNpy (npyBytes ("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }\n", 16)),
                           Contains ("Fortran-order arrays are not supported"));
    }

    SECTION ("header dict")
    {
        const auto headerError = [] (const std::string& header) -> std::string {
            try
            {
                parseNpy (npyBytes (header, 8));
            }
            catch (const NpyError& e)
            {
                return e.what();
            }
            return "no error";
        };
        const auto invalid = [] (const std::string& what) { return Contains ("npy data: invalid .npy header: " + what); };
        CHECK_THAT (headerError ("{'descr': '<f4', 'shape': (2,), }\n"), invalid ("missing key 'fortran_order'"));
        CHECK_THAT (headerError ("{'fortran_order': False, 'shape': (2,), }\n"), invalid ("missing key 'descr'"));
        CHECK_THAT (headerError ("{'descr': '<f4', 'fortran_order': False}\n"), invalid ("missing key 'shape'"));
        CHECK_THAT (headerError ("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"), invalid ("unexpected key 'x'"));
        CHECK_THAT (headerError ("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}"),
                    invalid ("duplicate key 'descr'"));
        CHECK_THAT (headerError ("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}"), invalid ("fortran_order must be True or False"));
        CHECK_THAT (headerError ("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}"), invalid ("expected ',' or '}'"));
        CHECK_THAT (headerError ("{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}"), invalid ("expected ',' or '}'"));
        CHECK_THAT (headerError ("{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}"), invalid ("expected ':'"));
        CHECK_THAT (headerError ("['descr', '<f4']"), invalid ("expected '{'"));
        CHECK_THAT (headerError ("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x"), invalid ("unexpected text after the header dict"));
        CHECK_THAT (headerError ("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)"), invalid ("expected ',' or '}'"));
        CHECK_THAT (headerError ("{'descr: '<f4'}"), invalid ("expected ':'"));
        CHECK_THAT (headerError ("{'descr': '<f4"), invalid ("expected a short, plain quoted string"));
        CHECK_THAT (headerError (std::string ("{'des\0cr': '<f4'}", 17)), invalid ("expected a short, plain quoted string"));
        CHECK_THAT (headerError ("{'descr': '" + std::string (100, 'f') + "'}"), invalid ("expected a short, plain quoted string"));
        CHECK_THAT (headerError ("{descr: '<f4'}"), invalid ("expected a quoted string"));
        CHECK_THAT (headerError (""), invalid ("expected '{'"));
    }

    SECTION ("shape")
    {
        const auto shapeError = [] (const std::string& shape) { return parseNpy (npyBytesWithShape (shape, 8)); };
        const auto invalid = [] (const std::string& what) { return Contains ("invalid .npy header: " + what); };
        CHECK_THROWS_WITH (shapeError ("(-2,)"), invalid ("shape must be a tuple of non-negative integers"));
        CHECK_THROWS_WITH (shapeError ("(2.0,)"), invalid ("expected ',' or ')' in shape"));
        CHECK_THROWS_WITH (shapeError ("(2 3)"), invalid ("expected ',' or ')' in shape"));
        CHECK_THROWS_WITH (shapeError ("(2,,3)"), invalid ("shape must be a tuple of non-negative integers"));
        CHECK_THROWS_WITH (shapeError ("(,)"), invalid ("shape must be a tuple of non-negative integers"));
        CHECK_THROWS_WITH (shapeError ("[2]"), invalid ("expected '('"));
        CHECK_THROWS_WITH (shapeError ("2"), invalid ("expected '('"));
        CHECK_THROWS_WITH (shapeError ("(2"), invalid ("shape must be a tuple of non-negative integers"));
        CHECK_THROWS_WITH (shapeError ("(2)"), invalid ("shape must be a tuple, such as (2,)"));
        CHECK_THROWS_WITH (shapeError ("(9223372036854775808,)"), invalid ("shape dimension too large"));
        CHECK_THROWS_WITH (shapeError ("(99999999999999999999999,)"), invalid ("shape dimension too large"));
    }

    SECTION ("element counts that overflow are caught before anything is allocated")
    {
        CHECK_THROWS_WITH (parseNpy (npyBytesWithShape ("(99999999999, 99999999999)", 8)),
                           Contains ("shape (99999999999, 99999999999) is too large"));
        // 2^34 * 2^30 = 2^64 would wrap around to 0 elements, matching the empty data, if unchecked.
        CHECK_THROWS_WITH (parseNpy (npyBytesWithShape ("(17179869184, 1073741824)", 0)), Contains ("is too large"));
        CHECK (parseNpy (npyBytesWithShape ("(4294967296, 4294967296, 0)", 0)).data.empty());                      // 0 elements, though
        CHECK_THROWS_WITH (parseNpy (npyBytesWithShape ("(2305843009213693952,)", 0)), Contains ("is too large")); // 2^61 * 8 bytes
        CHECK_THROWS_WITH (parseNpy (npyBytesWithShape ("(1000000000000,)", 8)), Contains ("truncated: shape (1000000000000,)"));
    }

    SECTION ("data length must match the shape exactly")
    {
        CHECK_THROWS_WITH (parseNpy (npyBytesWithShape ("(2, 2)", 12)),
                           Contains ("truncated: shape (2, 2) of '<f4' needs 16 data bytes but the file holds 12"));
        CHECK_THROWS_WITH (parseNpy (npyBytesWithShape ("(2,)", 15, "<f8")),
                           Contains ("truncated: shape (2,) of '<f8' needs 16 data bytes but the file holds 15"));
        CHECK_THROWS_WITH (parseNpy (npyBytesWithShape ("(2,)", 12)),
                           Contains ("shape (2,) of '<f4' needs 8 data bytes but the file holds 12 (unexpected trailing bytes)"));
        CHECK_THROWS_WITH (parseNpy (npyBytesWithShape ("()", 0)), Contains ("truncated: shape () of '<f4' needs 4 data bytes"));
        CHECK_THROWS_WITH (parseNpy (npyBytesWithShape ("(0,)", 1)), Contains ("unexpected trailing bytes"));
    }

    SECTION ("files")
    {
        CHECK_THROWS_WITH (readNpy ("/nonexistent/input.npy"), Contains ("cannot open '/nonexistent/input.npy'"));
        CHECK_THROWS_WITH (readNpy (std::filesystem::temp_directory_path().string()), Contains ("cannot read"));

        const auto path = temporaryPath ("bad");
        {
            std::ofstream stream (path, std::ios::binary);
            stream << "{\"not\": \"npy\"}";
        }
        CHECK_THROWS_WITH (readNpy (path.string()), Contains ("'" + path.string() + "': not a .npy file"));
        std::filesystem::remove (path);
    }
}

TEST_CASE ("writeNpy refuses arrays whose shape does not match their data", "[npy]")
{
    CHECK_THROWS_WITH (serialiseNpy ({ { 2, 3 }, { 1, 2, 3, 4, 5 } }), Contains ("cannot write an array of shape (2, 3) holding 5 values"));
    CHECK_THROWS_WITH (serialiseNpy ({ { -1 }, {} }), Contains ("cannot write an array of shape (-1,)"));
    CHECK_THROWS_WITH (serialiseNpy ({ {}, {} }), Contains ("shape () holding 0 values"));
    CHECK_THROWS_WITH (serialiseNpy ({ std::vector<int64_t> (30000, 1), { 1 } }), Contains ("header too long"));
    CHECK_THROWS_WITH (writeNpy ("/nonexistent/output.npy", { { 1 }, { 1 } }), Contains ("cannot open '/nonexistent/output.npy' for writing"));
}

TEST_CASE ("no input crashes the npy reader", "[npy][robustness]")
{
    const auto good = literalBytes (numpy2x3);
    REQUIRE_NOTHROW (parseNpy (good));

    // Every truncation fails cleanly (the vectors are exactly sized, so any over-read shows under ASan).
    for (std::size_t length = 0; length < good.size(); ++length)
        CHECK_THROWS_AS (parseNpy (std::vector<std::uint8_t> (good.begin(), good.begin() + static_cast<std::ptrdiff_t> (length))), NpyError);

    // Deterministic mutations of the preamble and header.
    std::uint32_t random = 2024;
    const auto next = [&random] { return random = random * 1664525u + 1013904223u; };
    const char interesting[] = { '(', ')', ',', '\'', '{', '}', ':', ' ', '0', '9', 'L', '\0', '\x7f', '\xff' };
    for (int trial = 0; trial < 5000; ++trial)
    {
        auto mutated = good;
        for (int edit = 0; edit < 2; ++edit)
        {
            const auto pos = next() % 128; // the preamble and header
            mutated[pos] = static_cast<std::uint8_t> ((next() % 2 == 0) ? interesting[next() % sizeof interesting] : static_cast<char> (next() >> 24));
        }
        try
        {
            const auto array = parseNpy (mutated);
            std::size_t numElements = 1;
            for (const auto dim : array.shape)
                numElements *= static_cast<std::size_t> (dim);
            CHECK (array.data.size() == numElements);
        }
        catch (const NpyError&)
        {
        }
    }
}
