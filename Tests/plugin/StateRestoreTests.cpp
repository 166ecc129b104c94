// Restoring saved states a host hands over: bytes from a session file, possibly damaged or crafted.
// Reproducers found by the fuzz target Tests/fuzz/PluginStateFuzzer.cpp live in
// Tests/fuzz/regressions/plugin_state/.
#include "ProcessorDriver.h"

#include <catch2/catch.hpp>

namespace sonotype::testing
{
namespace
{
    /** XML text in the container juce::AudioProcessor::copyXmlToBinary writes. */
    juce::MemoryBlock stateFromText (const std::string& xml)
    {
        juce::MemoryBlock block;
        juce::MemoryOutputStream out (block, false);
        out.writeInt (0x21324356);
        out.writeInt (static_cast<int> (xml.size() + 1));
        out.write (xml.data(), xml.size());
        out.writeByte (0);
        out.flush();
        return block;
    }

    void restore (plugin::SonotypeProcessor& processor, const juce::MemoryBlock& state)
    {
        processor.setStateInformation (state.getData(), static_cast<int> (state.getSize()));
    }
} // namespace

TEST_CASE ("a saved state whose text is not valid UTF-8 is refused, not parsed", "[plugin]")
{
    // JUCE 7's XML parser reads past the end of its string on malformed multi-byte sequences.
    for (const std::string bad : { "\xff\xff\xff\xff", "\xe2\x82", "\xbf", "\xf4\x90\x80\x80" })
    {
        TestProcessor processor;
        restore (processor, stateFromText ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<SonotypeState modelPath=\"/m" + bad + "\"/>"));
        CHECK (processor.statusIsError());
        CHECK (processor.statusMessage().contains ("could not be read"));
        CHECK (processor.modelDescription().builtin);
    }
}

TEST_CASE ("a saved state with valid non-ASCII text restores", "[plugin]")
{
    const std::string path = "/nonexistent/mod\xc3\xa8le \xe2\x99\xab.safetensors"; // "modèle ♫"
    TestProcessor processor;
    restore (processor, stateFromText ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<SonotypeState modelPath=\"" + path + "\"/>"));
    REQUIRE (waitForModelLoad (processor)); // the saved model loads on the model service's thread
    CHECK (processor.statusIsError());
    CHECK (processor.statusMessage().contains (juce::String::fromUTF8 (path.c_str())));
    CHECK (processor.statusMessage().contains ("built-in"));
}

TEST_CASE ("states found by the fuzzer restore without harm", "[plugin]")
{
    const auto folder = juce::File (SONOTYPE_SOURCE_DIR).getChildFile ("Tests/fuzz/regressions/plugin_state");
    const auto files = folder.findChildFiles (juce::File::findFiles, false);
    REQUIRE (files.size() > 0);
    for (const auto& file : files)
    {
        INFO (file.getFileName());
        juce::MemoryBlock state;
        REQUIRE (file.loadFileAsData (state));
        // As the fuzz target gives them: as they are, and as XML text in JUCE's container.
        for (const auto& form : { state, stateFromText (std::string (static_cast<const char*> (state.getData()), state.getSize())) })
        {
            TestProcessor processor;
            restore (processor, form);
            CHECK (processor.statusIsError());
            juce::MemoryBlock saved;
            processor.getStateInformation (saved);
            CHECK (saved.getSize() > 0);
        }
    }
}

} // namespace sonotype::testing
