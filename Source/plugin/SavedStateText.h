// The plugin's saved state is XML text (a ValueTree written by getStateInformation). A session file
// may come from anyone, and JUCE 7's XML parser reads past its string on malformed UTF-8 and never
// returns on some valid texts (a processing instruction left open inside an element, found by
// Tests/fuzz/PluginStateFuzzer.cpp). So before JUCE parses a state, the text must be what the
// plugin writes: valid UTF-8 in the small XML grammar below, checked here in bounded time.
#pragma once

#include <string_view>

namespace sonotype::plugin
{

/** Whether `text` is an optional XML declaration (`<?xml ...?>`) followed by one element tree of
    elements and attributes only: no comments, other processing instructions, DOCTYPE, CDATA or
    character data (whitespace aside), quoted attribute values without '<', matching end tags,
    nesting at most 32 deep, valid UTF-8. Linear in the length of `text`. */
bool isPlainStateXml (std::string_view text) noexcept;

/** Whether `text` is a number as the plugin writes one: an optional sign, at most 20 digits, an
    optional fraction of at most 20 digits and an exponent of at most 3. JUCE 7's number parsing
    overflows an int on longer digit runs (undefined behaviour, found by the state fuzzer): every
    attribute the plugin reads as a number must pass this before JUCE converts it. */
bool isPlainNumber (std::string_view text) noexcept;

} // namespace sonotype::plugin
