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

TEST_CASE ("a session saved before notes were chosen restores with none, and a chosen note is saved and restored", "[plugin][state][notemap]")
{
    juce::MemoryBlock old;
    REQUIRE (juce::File (SONOTYPE_SOURCE_DIR).getChildFile ("Tests/fuzz/corpus/plugin_state/taught_hits.xml").loadFileAsData (old));
    TestProcessor processor;
    restore (processor, stateFromText (std::string (static_cast<const char*> (old.getData()), old.getSize())));
    auto& teach = processor.teaching();
    REQUIRE (teach.waitUntilIdle (20000));
    const auto view = teach.view();
    REQUIRE_FALSE (view.classes.empty());
    CHECK (view.classes[0].name == "kick");
    for (const auto& c : view.classes)
        CHECK (c.note == -1);
    CHECK (plugin::Teaching::playedNotes (view, 36)[0] == 36); // by its name

    teach.setNote (0, 35);
    juce::MemoryBlock saved;
    processor.getStateInformation (saved);
    TestProcessor reopened;
    restore (reopened, saved);
    REQUIRE (reopened.teaching().waitUntilIdle (20000));
    CHECK (reopened.teaching().view().classes[0].note == 35);
    CHECK (plugin::Teaching::playedNotes (reopened.teaching().view(), 36)[0] == 35);
}

} // namespace sonotype::testing
