// The plugin's automatable parameters (AudioProcessorValueTreeState): IDs, ranges, units.
#pragma once

#include <juce_audio_processors/juce_audio_processors.h>

namespace sonotype::plugin
{

namespace ParameterIds
{
    inline constexpr const char* hop = "hop";             // update interval, seconds
    inline constexpr const char* smoothing = "smoothing"; // probability smoothing time, seconds
    inline constexpr const char* threshold = "threshold"; // detection threshold, percent
    inline constexpr const char* midiOut = "midiOut";     // MIDI output on/off
    inline constexpr const char* baseNote = "baseNote";   // MIDI note of class 0
} // namespace ParameterIds

/** Version hint for the host (bump when parameters are added). */
inline constexpr int kParameterVersion = 1;

juce::AudioProcessorValueTreeState::ParameterLayout createParameterLayout();

} // namespace sonotype::plugin
