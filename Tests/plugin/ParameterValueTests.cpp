// What a host reads back from the plugin's parameters: switches exactly on or off after any number
// the host sends, every stepped parameter on its steps, and every value the same after a saved
// state is restored (the checks of pluginval's "Plugin state" and "Plugin state restoration").
#include "plugin/PluginParameters.h"
#include "plugin/ProcessorDriver.h"
#include "plugin/SwitchParameter.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** The numbers a host may send: a fine sweep of [0, 1], the numbers either side of 0.5, and what a
    careless host sends outside the range. */
std::vector<float> hostNumbers()
{
    std::vector<float> numbers;
    for (int i = 0; i <= 1000; ++i)
        numbers.push_back (static_cast<float> (i) / 1000.0f);
    numbers.push_back (std::nextafter (0.5f, 0.0f));
    numbers.push_back (std::nextafter (0.5f, 1.0f));
    numbers.push_back (0.288f);
    numbers.push_back (0.797f);
    numbers.push_back (0.014f);
    numbers.push_back (-0.25f);
    numbers.push_back (1.5f);
    return numbers;
}

/** Every parameter's value as a host reads it (getValue, 0 to 1), in the processor's order. */
std::vector<float> hostValues (const juce::AudioProcessor& processor)
{
    std::vector<float> values;
    for (const auto* parameter : processor.getParameters())
        values.push_back (parameter->getValue());
    return values;
}

juce::MemoryBlock savedState (juce::AudioProcessor& processor)
{
    juce::MemoryBlock state;
    processor.getStateInformation (state);
    return state;
}

void restore (juce::AudioProcessor& processor, const juce::MemoryBlock& state)
{
    processor.setStateInformation (state.getData(), static_cast<int> (state.getSize()));
}

juce::String parameterId (const juce::AudioProcessorParameter& parameter)
{
    const auto* withId = dynamic_cast<const juce::AudioProcessorParameterWithID*> (&parameter);
    return withId != nullptr ? withId->paramID : parameter.getName (64);
}
} // namespace

TEST_CASE ("the plugin's switches are the two on/off parameters, boolean to hosts, with their IDs and version hints", "[plugin][params]")
{
    TestProcessor processor;
    juce::StringArray switches;
    for (const auto* parameter : processor.getParameters())
        if (parameter->isBoolean())
        {
            switches.add (parameterId (*parameter));
            CHECK (dynamic_cast<const plugin::SwitchParameter*> (parameter) != nullptr);
            CHECK (parameter->isDiscrete());
            CHECK (parameter->getNumSteps() == 2);
            CHECK (parameter->getText (1.0f, 16) == "On");
            CHECK (parameter->getText (0.0f, 16) == "Off");
            for (const auto* on : { "on", "On", "yes", "true", "1" })
                CHECK (parameter->getValueForText (on) == 1.0f);
            for (const auto* off : { "off", "Off", "no", "false", "0" })
                CHECK (parameter->getValueForText (off) == 0.0f);
        }
    CHECK (switches == juce::StringArray { plugin::ParameterIds::midiOut, plugin::ParameterIds::hitMode });
    // A host keys automation and saved sessions on the ID; an AU host also on the version hint.
    auto* midiOut = dynamic_cast<juce::AudioProcessorParameterWithID*> (processor.parameters.getParameter (plugin::ParameterIds::midiOut));
    auto* hitMode = dynamic_cast<juce::AudioProcessorParameterWithID*> (processor.parameters.getParameter (plugin::ParameterIds::hitMode));
    REQUIRE (midiOut != nullptr);
    REQUIRE (hitMode != nullptr);
    CHECK (midiOut->getVersionHint() == plugin::kParameterVersion);
    CHECK (hitMode->getVersionHint() == plugin::kHitParameterVersion);
    CHECK (midiOut->getDefaultValue() == 1.0f);
    CHECK (hitMode->getDefaultValue() == 0.0f);
    CHECK (midiOut->getValue() == 1.0f);
    CHECK (hitMode->getValue() == 0.0f);
}

TEST_CASE ("a switch reads back exactly 0 or 1 after any number a host sets, and the processor sees the same", "[plugin][params]")
{
    TestProcessor processor;
    for (const auto* id : { plugin::ParameterIds::midiOut, plugin::ParameterIds::hitMode })
    {
        auto* parameter = processor.parameters.getParameter (id);
        REQUIRE (parameter != nullptr);
        for (const float number : hostNumbers())
        {
            INFO (id << " set to " << number);
            const float expected = number >= 0.5f ? 1.0f : 0.0f;
            parameter->setValueNotifyingHost (number); // as the plugin formats' wrappers do
            CHECK (parameter->getValue() == expected);
            CHECK (processor.parameters.getRawParameterValue (id)->load() == expected);
            CHECK (parameter->getText (number, 16) == (expected > 0.0f ? "On" : "Off"));
            parameter->setValue (1.0f - expected); // without telling anyone, as a host's own copy may
            parameter->setValue (number);
            CHECK (parameter->getValue() == expected);
        }
    }
}

TEST_CASE ("the choice, whole-number and stepped parameters land on their steps after any number a host sets", "[plugin][params]")
{
    TestProcessor processor;
    for (auto* parameter : processor.getParameters())
    {
        const auto id = parameterId (*parameter);
        const auto* ranged = dynamic_cast<const juce::RangedAudioParameter*> (parameter);
        REQUIRE (ranged != nullptr);
        const auto& range = ranged->getNormalisableRange();
        for (const float number : hostNumbers())
        {
            INFO (id << " set to " << number);
            parameter->setValueNotifyingHost (number);
            const float value = parameter->getValue();
            CHECK (value >= 0.0f);
            CHECK (value <= 1.0f);
            // On a step: the value it stands for is a legal value of the range, and setting what
            // was read back changes nothing.
            const float plain = range.convertFrom0to1 (value);
            CHECK (range.snapToLegalValue (plain) == Approx (plain).margin (1e-4 * (range.end - range.start)));
            parameter->setValueNotifyingHost (value);
            CHECK (parameter->getValue() == value);
        }
    }
    // The hit response is a choice of two: exactly 0 or 1, as a switch.
    auto* response = processor.parameters.getParameter (plugin::ParameterIds::hitResponse);
    for (const float number : hostNumbers())
    {
        INFO ("hitResponse set to " << number);
        response->setValueNotifyingHost (number);
        CHECK ((response->getValue() == 0.0f || response->getValue() == 1.0f));
    }
}

TEST_CASE ("a state saved after a host set odd values restores every parameter's value exactly, in a fresh instance", "[plugin][params][state]")
{
    for (const unsigned seed : { 1u, 2u, 3u, 0x5eedu })
    {
        INFO ("seed " << seed);
        std::mt19937 random (seed);
        std::uniform_real_distribution<float> number (0.0f, 1.0f);
        TestProcessor processor;
        for (auto* parameter : processor.getParameters())
            parameter->setValueNotifyingHost (number (random));
        const auto set = hostValues (processor);
        const auto state = savedState (processor);

        TestProcessor reopened;
        restore (reopened, state);
        const auto restored = hostValues (reopened);
        REQUIRE (restored.size() == set.size());
        for (std::size_t i = 0; i < set.size(); ++i)
        {
            INFO (parameterId (*processor.getParameters()[static_cast<int> (i)]));
            CHECK (restored[i] == set[i]);
        }
        CHECK (savedState (reopened) == state);
    }
}

TEST_CASE ("pluginval's state checks: after random values, a restore gives each parameter back the value it had, and the same state",
           "[plugin][params][state]")
{
    // pluginval 1.0.3's "Plugin state" (random values for every parameter, then the state saved
    // before them restored) followed by its "Plugin state restoration" (for each parameter: one
    // random value, then that state restored, and the value compared with the one before), with
    // its random seeds.
    for (const unsigned seed : { 0u, 1u, 7u, 42u, 0x2a51u, 0xdeadu })
    {
        INFO ("seed " << seed);
        std::mt19937 random (seed);
        std::uniform_real_distribution<float> number (0.0f, 1.0f);
        TestProcessor processor;
        const auto before = savedState (processor);
        for (auto* parameter : processor.getParameters())
            parameter->setValueNotifyingHost (number (random));
        restore (processor, before);
        CHECK (hostValues (processor) == hostValues (TestProcessor()));

        const auto original = savedState (processor);
        for (auto* parameter : processor.getParameters())
        {
            INFO (parameterId (*parameter));
            const float was = parameter->getValue();
            parameter->setValueNotifyingHost (number (random));
            restore (processor, original);
            CHECK (parameter->getValue() == was);
        }
        CHECK (savedState (processor) == original);
    }
}

TEST_CASE ("switches in saved sessions load as they were saved, odd numbers as the switch they mean", "[plugin][params][state]")
{
    // A session saved before per-hit MIDI existed (Tests/fuzz/corpus: MIDI output on, no hitMode):
    // MIDI output on, per-hit MIDI at its default (off), whatever the instance held before.
    juce::MemoryBlock old;
    REQUIRE (juce::File (SONOTYPE_SOURCE_DIR).getChildFile ("Tests/fuzz/corpus/plugin_state/default.bin").loadFileAsData (old));
    auto xml = juce::AudioProcessor::getXmlFromBinary (old.getData(), static_cast<int> (old.getSize()));
    REQUIRE (xml != nullptr);
    const auto paramElement = [&xml] (const char* id) -> juce::XmlElement* {
        for (auto* param : xml->getChildWithTagNameIterator ("PARAM"))
            if (param->getStringAttribute ("id") == id)
                return param;
        return nullptr;
    };
    REQUIRE (paramElement (plugin::ParameterIds::midiOut) != nullptr);
    CHECK (paramElement (plugin::ParameterIds::midiOut)->getStringAttribute ("value") == "1.0");
    REQUIRE (paramElement (plugin::ParameterIds::hitMode) == nullptr);
    const auto switchValues = [] (plugin::SonotypeProcessor& processor) {
        std::vector<float> values;
        for (const auto* id : { plugin::ParameterIds::midiOut, plugin::ParameterIds::hitMode })
        {
            values.push_back (processor.parameters.getParameter (id)->getValue());
            values.push_back (processor.parameters.getRawParameterValue (id)->load());
        }
        return values;
    };
    {
        TestProcessor processor;
        processor.parameters.getParameter (plugin::ParameterIds::midiOut)->setValueNotifyingHost (0.3f);
        processor.parameters.getParameter (plugin::ParameterIds::hitMode)->setValueNotifyingHost (0.8f);
        restore (processor, old);
        CHECK (switchValues (processor) == std::vector<float> { 1.0f, 1.0f, 0.0f, 0.0f });
    }

    // The same session with both switches written in other ways (by a later version, by hand).
    auto* hitMode = xml->createNewChildElement ("PARAM");
    hitMode->setAttribute ("id", plugin::ParameterIds::hitMode);
    const std::tuple<const char*, const char*, float, float> cases[] = {
        { "1.0", "0.0", 1.0f, 0.0f },
        { "0.0", "1.0", 0.0f, 1.0f },
        { "1", "0", 1.0f, 0.0f },
        { "0.7", "0.3", 1.0f, 0.0f },
        { "0.2", "0.9", 0.0f, 1.0f },
    };
    for (const auto& [midiOutText, hitModeText, midiOutValue, hitModeValue] : cases)
    {
        INFO ("midiOut=" << midiOutText << " hitMode=" << hitModeText);
        paramElement (plugin::ParameterIds::midiOut)->setAttribute ("value", midiOutText);
        hitMode->setAttribute ("value", hitModeText);
        juce::MemoryBlock state;
        juce::AudioProcessor::copyXmlToBinary (*xml, state);
        TestProcessor processor;
        // Odd numbers that mean what the session holds: a restore that skips them leaves them.
        processor.parameters.getParameter (plugin::ParameterIds::midiOut)->setValueNotifyingHost (midiOutValue > 0.0f ? 0.8f : 0.3f);
        processor.parameters.getParameter (plugin::ParameterIds::hitMode)->setValueNotifyingHost (hitModeValue > 0.0f ? 0.6f : 0.1f);
        restore (processor, state);
        CHECK (switchValues (processor) == std::vector<float> { midiOutValue, midiOutValue, hitModeValue, hitModeValue });
    }
}

TEST_CASE ("a switch's button in the editor sets it exactly on or off, and shows what a host set", "[plugin][params]")
{
    // The editor's ControlsPanel attaches its toggle buttons with JUCE's ButtonAttachment.
    TestProcessor processor;
    for (const auto* id : { plugin::ParameterIds::midiOut, plugin::ParameterIds::hitMode })
    {
        INFO (id);
        auto* parameter = processor.parameters.getParameter (id);
        juce::ToggleButton button;
        const juce::AudioProcessorValueTreeState::ButtonAttachment attachment (processor.parameters, id, button);
        CHECK (button.getToggleState() == (parameter->getValue() == 1.0f));
        button.setToggleState (true, juce::sendNotificationSync);
        CHECK (parameter->getValue() == 1.0f);
        button.setToggleState (false, juce::sendNotificationSync);
        CHECK (parameter->getValue() == 0.0f);
        parameter->setValueNotifyingHost (0.7f); // on the message thread: the attachment follows at once
        CHECK (button.getToggleState());
        parameter->setValueNotifyingHost (0.2f);
        CHECK_FALSE (button.getToggleState());
    }
}
