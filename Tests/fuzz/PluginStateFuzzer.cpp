// libFuzzer target: restoring a saved plugin state (SonotypeProcessor::setStateInformation), as a
// DAW does with the bytes of a session file. One processor lives for the whole run, as in a host
// that restores states into the same instance. Each input is given twice: as it is (JUCE's binary
// XML format from getStateInformation) and wrapped in that format as XML text, so that both the
// container and the XML/ValueTree contents are mutated. A state never throws and never crashes.
#include "plugin/SonotypeProcessor.h"

#include <juce_events/juce_events.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace
{
// The processor as the plugin formats make it, less the editor (the GUI layer is not under test).
struct Processor final : sonotype::plugin::SonotypeProcessor
{
    juce::AudioProcessorEditor* createEditor() override { return nullptr; }
};

struct Host
{
    juce::ScopedJuceInitialiser_GUI juce;
    Processor processor;
};
Host* host = nullptr;

/** The bytes as juce::AudioProcessor::copyXmlToBinary would store XML text: magic, length, text, 0. */
std::vector<std::uint8_t> wrapAsXmlState (const std::uint8_t* data, std::size_t size)
{
    const auto length = static_cast<std::uint32_t> (size + 1);
    std::vector<std::uint8_t> bytes (8 + size + 1, 0);
    const std::uint32_t magic = 0x21324356;
    for (int i = 0; i < 4; ++i)
    {
        bytes[static_cast<std::size_t> (i)] = static_cast<std::uint8_t> (magic >> (8 * i));
        bytes[static_cast<std::size_t> (4 + i)] = static_cast<std::uint8_t> (length >> (8 * i));
    }
    if (size > 0)
        std::memcpy (bytes.data() + 8, data, size);
    return bytes;
}
} // namespace

extern "C" int LLVMFuzzerInitialize (int*, char***)
{
    host = new Host();
    // libFuzzer ends the process with exit(), which destroys the statics in reverse order of
    // construction. The processor's loader and analysis threads must end before anything they use
    // does: a handler registered after the host was built runs before those statics' destructors.
    std::atexit ([] {
        delete host;
        host = nullptr;
    });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput (const std::uint8_t* data, std::size_t size)
{
    if (size > (1u << 20))
        return 0;
    auto& processor = host->processor;
    processor.setStateInformation (data, static_cast<int> (size));
    const auto wrapped = wrapAsXmlState (data, size);
    processor.setStateInformation (wrapped.data(), static_cast<int> (wrapped.size()));

    // What was restored must save again.
    juce::MemoryBlock saved;
    processor.getStateInformation (saved);
    return 0;
}
