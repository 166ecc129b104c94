// The saved-state text check that stands before JUCE's XML parser: what the plugin writes passes,
// the inputs that hang or overrun JUCE's parser do not.
#include "plugin/ProcessorDriver.h"
#include "plugin/SavedStateText.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;

TEST_CASE ("the saved-state check accepts what the plugin writes", "[plugin][state]")
{
    TestProcessor processor;
    juce::MemoryBlock state;
    processor.getStateInformation (state);
    REQUIRE (state.getSize() > 8);
    const std::string_view text (static_cast<const char*> (state.getData()) + 8, state.getSize() - 8);
    const auto end = text.find ('\0'); // copyXmlToBinary appends a terminating zero
    CHECK (plugin::isPlainStateXml (text.substr (0, end)));
    CHECK (plugin::isPlainStateXml (R"(<?xml version="1.0" encoding="UTF-8"?>

<SonotypeState modelPath="/home/me/mod&#232;le &amp; co.safetensors" osc='127.0.0.1:9000'>
  <PARAM id="hop" value="0.25"/>
  <Filter><Class name="silence" off="1"/></Filter>
</SonotypeState >
)"));
    CHECK (plugin::isPlainStateXml ("<a/>"));
    CHECK (plugin::isPlainStateXml ("<a b=\"modèle ♫\"></a>"));
}

TEST_CASE ("numbers in a saved state are plain numbers, or the state is refused", "[plugin][state]")
{
    // Found by the state fuzzer: JUCE 7.0.5 reads a PARAM value of "0e999…9" into an int that
    // overflows (undefined behaviour).
    for (const char* number : { "0", "-3", "0.25", "50.0", "1e-3", "+9000", "12345678901234567890.5", "1E+308" })
    {
        INFO (number);
        CHECK (plugin::isPlainNumber (number));
    }
    for (const char* text : { "", "-", "1.", ".5", "1e", "1e1234", "0e99999999999999999999", "123456789012345678901", "1.5x", "nan", "inf", " 1" })
    {
        INFO (text);
        CHECK_FALSE (plugin::isPlainNumber (text));
    }
}

TEST_CASE ("the saved-state check refuses what JUCE's XML parser cannot take", "[plugin][state]")
{
    // Found by the state fuzzer: a processing instruction left open inside an element made JUCE
    // 7.0.5's parser loop forever.
    CHECK_FALSE (plugin::isPlainStateXml ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<SonotyGGGp>\n  <rt=\"4500\">\n  <PARAM PARAM id=\"smoothing\" v<?xml valoding=\"UTF-?>\nersio<Sonont"));
    CHECK_FALSE (plugin::isPlainStateXml ("<a><?xml version=\"1.0\"?></a>"));
    CHECK_FALSE (plugin::isPlainStateXml ("<a><!-- a comment --></a>"));
    CHECK_FALSE (plugin::isPlainStateXml ("<!DOCTYPE a><a/>"));
    CHECK_FALSE (plugin::isPlainStateXml ("<a><![CDATA[x]]></a>"));
    CHECK_FALSE (plugin::isPlainStateXml ("<a>text</a>"));
    CHECK_FALSE (plugin::isPlainStateXml ("<a><b></a></b>"));
    CHECK_FALSE (plugin::isPlainStateXml ("<a><b>"));
    CHECK_FALSE (plugin::isPlainStateXml ("<a b=\"1\"c=\"2\"/>"));
    CHECK_FALSE (plugin::isPlainStateXml ("<a b=\"<\"/>"));
    CHECK_FALSE (plugin::isPlainStateXml ("<a b=\"unterminated/>"));
    CHECK_FALSE (plugin::isPlainStateXml ("<a/><b/>"));
    CHECK_FALSE (plugin::isPlainStateXml ("<a b=\"\xff\"/>"));              // not UTF-8
    CHECK_FALSE (plugin::isPlainStateXml (std::string_view ("<a/>\0", 5))); // a NUL inside
    CHECK_FALSE (plugin::isPlainStateXml (""));
    std::string deep;
    for (int i = 0; i < 33; ++i)
        deep += "<a>";
    for (int i = 0; i < 33; ++i)
        deep += "</a>";
    CHECK_FALSE (plugin::isPlainStateXml (deep));
    // Linear: a megabyte of attributes is checked at once.
    std::string wide = "<a";
    for (int i = 0; i < 100000; ++i)
        wide += " x" + std::to_string (i) + "=\"1\"";
    CHECK (plugin::isPlainStateXml (wide + "/>"));
}
