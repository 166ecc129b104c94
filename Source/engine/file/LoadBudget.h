// Accounts the memory a model load allocates against LoadLimits::maxMemoryBytes, before allocating.
#pragma once

#include "engine/file/LoadLimits.h"

#include <cstdint>
#include <string>

namespace sonotype::engine
{

class LoadBudget
{
public:
    explicit LoadBudget (const LoadLimits& limits) noexcept : limits_ (limits) {}

    const LoadLimits& limits() const noexcept { return limits_; }
    std::size_t usedBytes() const noexcept { return used_; }
    std::size_t remainingBytes() const noexcept { return limits_.maxMemoryBytes - used_; }

    /** Counts `bytes` about to be allocated for `what`; throws ModelError naming the need, what
        is used already and the budget when it does not fit. */
    void claim (std::size_t bytes, const std::string& what);

    /** claim() for `count` items of `itemBytes` each, with the product checked for overflow. */
    void claim (std::uint64_t count, std::size_t itemBytes, const std::string& what);

private:
    LoadLimits limits_;
    std::size_t used_ = 0;
};

/** "1.5 GiB", "64 KiB", "312 bytes": a byte count for messages. */
std::string describeBytes (std::uint64_t bytes);

} // namespace sonotype::engine
