// libFuzzer target: the .npy reader of `sonotype run-model` (cli::parseNpy). Bytes -> parseNpy;
// anything but an NpyError is a finding. What it accepts must survive a round trip: serialised
// (as numpy.save writes it) and parsed again, it gives the same shape and the same float bits.
#include "cli/Npy.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput (const std::uint8_t* data, std::size_t size)
{
    using namespace sonotype::cli;
    NpyArray array;
    try
    {
        array = parseNpy (std::vector<std::uint8_t> (data, data + size), "fuzz input");
    }
    catch (const NpyError&)
    {
        return 0;
    }

    const auto again = parseNpy (serialiseNpy (array), "round trip");
    if (again.shape != array.shape || again.data.size() != array.data.size()
        || (! array.data.empty() && std::memcmp (again.data.data(), array.data.data(), array.data.size() * sizeof (float)) != 0))
    {
        std::fprintf (stderr, "round trip through serialiseNpy changed the array\n");
        std::abort();
    }
    return 0;
}
