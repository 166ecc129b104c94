#include "plugin/PluginParameters.h"

#include "plugin/SwitchParameter.h"

namespace sonotype::plugin
{

juce::AudioProcessorValueTreeState::ParameterLayout createParameterLayout()
{
    using juce::AudioParameterFloatAttributes;
    juce::AudioProcessorValueTreeState::ParameterLayout layout;
    auto seconds = [] (float value, int) { return value < 1.0f ? juce::String (juce::roundToInt (value * 1000.0f)) + " ms" : juce::String (value, 2) + " s"; };

    layout.add (std::make_unique<juce::AudioParameterFloat> (
        juce::ParameterID { ParameterIds::hop, kParameterVersion }, "Update interval", juce::NormalisableRange<float> (0.05f, 1.0f, 0.01f, 0.6f), 0.25f,
        AudioParameterFloatAttributes().withLabel ("s").withStringFromValueFunction (seconds)));
    layout.add (std::make_unique<juce::AudioParameterFloat> (
        juce::ParameterID { ParameterIds::smoothing, kParameterVersion }, "Smoothing", juce::NormalisableRange<float> (0.0f, 5.0f, 0.01f, 0.5f), 0.25f,
        AudioParameterFloatAttributes().withLabel ("s").withStringFromValueFunction ([seconds] (float value, int n) {
            return value <= 0.0f ? juce::String ("off") : seconds (value, n);
        })));
    layout.add (std::make_unique<juce::AudioParameterFloat> (
        juce::ParameterID { ParameterIds::threshold, kParameterVersion }, "Detection threshold", juce::NormalisableRange<float> (0.0f, 100.0f, 1.0f), 50.0f,
        AudioParameterFloatAttributes().withLabel ("%").withStringFromValueFunction ([] (float value, int) { return juce::String (juce::roundToInt (value)) + " %"; })));
    layout.add (std::make_unique<SwitchParameter> (juce::ParameterID { ParameterIds::midiOut, kParameterVersion }, "MIDI output", true));
    layout.add (std::make_unique<juce::AudioParameterInt> (
        juce::ParameterID { ParameterIds::baseNote, kParameterVersion }, "MIDI base note", 0, 127, 36,
        juce::AudioParameterIntAttributes().withStringFromValueFunction ([] (int note, int) { return juce::MidiMessage::getMidiNoteName (note, true, true, 3); })));
    // The per-hit mode (defaults as classify --onsets': dsp::OnsetSettings).
    layout.add (std::make_unique<SwitchParameter> (juce::ParameterID { ParameterIds::hitMode, kHitParameterVersion }, "Per-hit MIDI", false));
    layout.add (std::make_unique<juce::AudioParameterFloat> (
        juce::ParameterID { ParameterIds::onsetThreshold, kHitParameterVersion }, "Onset threshold", juce::NormalisableRange<float> (0.0f, 10.0f, 0.05f, 0.5f), 1.2f,
        AudioParameterFloatAttributes().withStringFromValueFunction ([] (float value, int) { return juce::String (value, 2); })));
    layout.add (std::make_unique<juce::AudioParameterFloat> (
        juce::ParameterID { ParameterIds::onsetGap, kHitParameterVersion }, "Onset minimum gap", juce::NormalisableRange<float> (0.0f, 1.0f, 0.005f, 0.5f), 0.05f,
        AudioParameterFloatAttributes().withLabel ("s").withStringFromValueFunction (seconds)));
    layout.add (std::make_unique<juce::AudioParameterFloat> (
        juce::ParameterID { ParameterIds::onsetSilence, kHitParameterVersion }, "Onset silence", juce::NormalisableRange<float> (-96.0f, 0.0f, 1.0f), -50.0f,
        AudioParameterFloatAttributes().withLabel ("dB").withStringFromValueFunction ([] (float value, int) { return juce::String (juce::roundToInt (value)) + " dB"; })));
    layout.add (std::make_unique<juce::AudioParameterChoice> (juce::ParameterID { ParameterIds::hitResponse, kHitResponseParameterVersion },
                                                              "Hit response", juce::StringArray { "Live (10 ms)", "Exact (longer)" }, 0));
    return layout;
}

} // namespace sonotype::plugin
