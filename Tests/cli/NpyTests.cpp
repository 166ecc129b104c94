#include "cli/Npy.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace sonotype::cli;
using Catch::Matchers::Contains;

namespace
{
std::vector<std::uint8_t> npyBytes (const std::string& header, std::size_t dataBytes, int version = 1)
{
    std::vector<std::uint8_t> bytes { 0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<std::uint8_t> (version), 0 };
    const auto length = header.size();
    bytes.push_back (static_cast<std::uint8_t> (length & 0xFF));
    bytes.push_back (static_cast<std::uint8_t> (length >> 8));
    if (version > 1)
    {
        bytes.push_back (0);
        bytes.push_back (0);
    }
    bytes.insert (bytes.end(), header.begin(), header.end());
    bytes.resize (bytes.size() + dataBytes);
    return bytes;
}
} // namespace

TEST_CASE ("npy files round-trip", "[npy]")
{
    const NpyArray array { { 2, 3 }, { 1, 2, 3, 4, 5, -6.5f } };
    const auto bytes = serialiseNpy (array);
    CHECK ((10 + (bytes[8] | (bytes[9] << 8))) % 64 == 0); // data aligned as NumPy writes it
    const auto back = parseNpy (bytes);
    CHECK (back.shape == array.shape);
    CHECK (back.data == array.data);

    const auto scalar = parseNpy (serialiseNpy ({ {}, { 4.0f } }));
    CHECK (scalar.shape.empty());
    CHECK (scalar.data == std::vector<float> { 4.0f });
    CHECK (parseNpy (serialiseNpy ({ { 5 }, { 1, 2, 3, 4, 5 } })).shape == std::vector<int64_t> { 5 });
}

TEST_CASE ("npy headers as NumPy writes them are accepted", "[npy]")
{
    // Written by numpy.save(np.zeros((1, 2), np.float32)) and variants.
    CHECK (parseNpy (npyBytes ("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }          \n", 8)).shape
           == std::vector<int64_t> { 1, 2 });
    CHECK (parseNpy (npyBytes ("{'shape': (3,), 'fortran_order': False, 'descr': '<f4'}\n", 12, 2)).data.size() == 3);
    auto doubles = npyBytes ("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n", 16);
    const double values[] = { 1.5, -2.25 };
    std::memcpy (doubles.data() + doubles.size() - 16, values, 16);
    CHECK (parseNpy (doubles).data == std::vector<float> { 1.5f, -2.25f });
}

TEST_CASE ("bad npy files are rejected with specific messages", "[npy]")
{
    CHECK_THROWS_WITH (parseNpy ({ 1, 2, 3 }), Contains ("not a .npy file"));
    CHECK_THROWS_WITH (parseNpy (npyBytes ("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }\n", 16)),
                       Contains ("dtype '<i8' is not supported"));
    CHECK_THROWS_WITH (parseNpy (npyBytes ("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }\n", 16)), Contains ("Fortran"));
    CHECK_THROWS_WITH (parseNpy (npyBytes ("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }\n", 12)), Contains ("truncated"));
    CHECK_THROWS_WITH (parseNpy (npyBytes ("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", 12)), Contains ("needs 8"));
    CHECK_THROWS_WITH (parseNpy (npyBytes ("{'descr': '<f4', 'shape': (2,), }\n", 8)), Contains ("lacks"));
    CHECK_THROWS_WITH (parseNpy (npyBytes ("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }\n", 8)), Contains ("non-negative"));
    CHECK_THROWS_WITH (parseNpy (npyBytes ("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }\n", 8)),
                       Contains ("too large"));
    auto shortHeader = npyBytes ("{'descr': '<f4'}", 0);
    shortHeader[8] = 0xFF;
    CHECK_THROWS_WITH (parseNpy (shortHeader), Contains ("truncated .npy header"));
    CHECK_THROWS_WITH (readNpy ("/nonexistent.npy"), Contains ("cannot open"));
}
