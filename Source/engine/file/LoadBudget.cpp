#include "engine/file/LoadBudget.h"

#include "engine/file/ModelError.h"

#include <cstdio>
#include <limits>

namespace sonotype::engine
{

std::string describeBytes (std::uint64_t bytes)
{
    const char* units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    if (bytes < 1024)
        return std::to_string (bytes) + " bytes";
    double value = static_cast<double> (bytes) / 1024.0;
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size (units))
    {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf (text, sizeof (text), value < 10.0 ? "%.1f %s" : "%.0f %s", value, units[unit]);
    return text;
}

void LoadBudget::claim (std::size_t bytes, const std::string& what)
{
    if (bytes > remainingBytes())
        throw ModelError (what + " needs " + describeBytes (bytes) + ", more than the memory budget allows (" + describeBytes (limits_.maxMemoryBytes)
                          + " in all, " + describeBytes (used_) + " used by this model already)");
    used_ += bytes;
}

void LoadBudget::claim (std::uint64_t count, std::size_t itemBytes, const std::string& what)
{
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow (count, static_cast<std::uint64_t> (itemBytes), &bytes) || bytes > std::numeric_limits<std::size_t>::max())
        throw ModelError (what + " needs " + std::to_string (count) + " items of " + std::to_string (itemBytes)
                          + " bytes, more than the memory budget allows (" + describeBytes (limits_.maxMemoryBytes) + ")");
    claim (static_cast<std::size_t> (bytes), what);
}

} // namespace sonotype::engine
