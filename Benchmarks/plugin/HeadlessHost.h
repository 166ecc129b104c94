// What the plugin benchmarks share: the processor as a host without a display creates it, and this
// process's figures from /proc/self/status.
#pragma once

#include "plugin/SonotypeProcessor.h"

#include <cstdlib>
#include <fstream>
#include <string>

namespace sonotype::bench
{

/** The processor without an editor (the GUI layer is not linked). */
class HeadlessProcessor final : public plugin::SonotypeProcessor
{
public:
    juce::AudioProcessorEditor* createEditor() override { return nullptr; }
};

/** A number of /proc/self/status ("VmHWM": peak resident set in KiB, "Threads"), or -1. VmHWM, not
    getrusage's ru_maxrss: Linux carries that over exec() from the process that started this one. */
inline long procStatus (const char* key)
{
    std::ifstream status ("/proc/self/status");
    std::string line;
    const std::string prefix = std::string (key) + ":";
    while (std::getline (status, line))
        if (line.rfind (prefix, 0) == 0)
            return std::atol (line.c_str() + prefix.size());
    return -1;
}

} // namespace sonotype::bench
