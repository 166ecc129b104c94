// The standalone app's input gate (plugin::InputGate) and the one chain the plugin and the app
// share: the app's own input analysed only when asked for and never heard, anything else passed;
// the analysis stopping said once; one input peak for the meter, whichever way the block came.
#include "plugin/InputGate.h"
#include "plugin/ProcessorDriver.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
bool same (const plugin::InputGate::Route& route, bool analysed, bool silenced, bool analysisStopped)
{
    return route.analysed == analysed && route.silenced == silenced && route.analysisStopped == analysisStopped;
}

/** A block of 2 channels: a sine of `level` on the first, half of it on the second. */
juce::AudioBuffer<float> sineBlock (float level, int numSamples = 512)
{
    juce::AudioBuffer<float> buffer (2, numSamples);
    for (int i = 0; i < numSamples; ++i)
    {
        const auto value = level * static_cast<float> (std::sin (0.05 * i));
        buffer.setSample (0, i, value);
        buffer.setSample (1, i, 0.5f * value);
    }
    return buffer;
}
} // namespace

TEST_CASE ("the input gate: a plugin's track passes, and the app's input is analysed only when asked for, never heard", "[plugin][standalone]")
{
    plugin::InputGate gate;
    CHECK_FALSE (gate.isListening());
    // Not the app's input (a plugin's track, a file the app plays): analysed and passed, always.
    for (int block = 0; block < 3; ++block)
        CHECK (same (gate.route (false), true, false, false));
    // The app's input, not listened to: silenced, not analysed; the analysis stopped once.
    CHECK (same (gate.route (true), false, true, true));
    CHECK (same (gate.route (true), false, true, false));
    // Listened to: analysed, still never heard.
    gate.setListening (true);
    CHECK (gate.isListening());
    CHECK (same (gate.route (true), true, true, false));
    CHECK (same (gate.route (true), true, true, false));
    gate.setListening (false);
    CHECK (same (gate.route (true), false, true, true));
    CHECK (same (gate.route (true), false, true, false));
    CHECK (same (gate.route (false), true, false, false));
}

TEST_CASE ("the app's input gate at the start: nothing was analysed, so nothing stops", "[plugin][standalone]")
{
    plugin::InputGate gate;
    CHECK (same (gate.route (true), false, true, false));
}

TEST_CASE ("one input peak for the meter: the plugin's track and the app's input alike, none unheard", "[plugin][standalone]")
{
    TestProcessor effect;
    juce::AudioProcessor::setTypeOfNextNewPlugin (juce::AudioProcessor::wrapperType_Standalone);
    TestProcessor app;
    juce::AudioProcessor::setTypeOfNextNewPlugin (juce::AudioProcessor::wrapperType_Undefined);
    REQUIRE (app.wrapperType == juce::AudioProcessor::wrapperType_Standalone);
    ProcessorDriver effectDriver (effect, 48000.0, 2, 512);
    ProcessorDriver appDriver (app, 48000.0, 2, 512);
    juce::MidiBuffer midi;

    const auto input = sineBlock (0.75f);
    const float peak = input.getMagnitude (0, 0, 512);
    REQUIRE (peak > 0.7f);

    auto block = input;
    effect.processBlock (block, midi);
    CHECK (effect.takeInputPeak() == peak);
    CHECK (effect.takeInputPeak() == 0.0f); // taken
    for (int c = 0; c < 2; ++c)             // passed through untouched
        CHECK (std::memcmp (block.getReadPointer (c), input.getReadPointer (c), 512 * sizeof (float)) == 0);

    block = input;
    app.processBlock (block, midi); // not listening: no peak, silence out
    CHECK (app.takeInputPeak() == 0.0f);
    CHECK (block.getMagnitude (0, 512) == 0.0f);
    app.setListeningToInput (true);
    block = input;
    app.processBlock (block, midi);
    CHECK (app.takeInputPeak() == peak);
    CHECK (block.getMagnitude (0, 512) == 0.0f);

    // A block with NaN leaves the meter alone, in both.
    auto broken = sineBlock (0.5f);
    broken.setSample (1, 100, std::numeric_limits<float>::quiet_NaN());
    for (auto* processor : { static_cast<plugin::SonotypeProcessor*> (&effect), static_cast<plugin::SonotypeProcessor*> (&app) })
    {
        block = broken;
        processor->processBlock (block, midi);
        const auto meter = processor->takeInputPeak();
        CHECK ((meter == 0.0f || meter == Approx (0.5f).margin (0.01f)));
    }
}
