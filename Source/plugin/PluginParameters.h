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
    // The per-hit mode (plugin/HitNotes.h): one note per hit instead of notes from the windows.
    inline constexpr const char* hitMode = "hitMode";               // per-hit MIDI on/off
    inline constexpr const char* onsetThreshold = "onsetThreshold"; // the onset detector's threshold (dsp::OnsetSettings)
    inline constexpr const char* onsetGap = "onsetGap";             // minimum gap between hits, seconds
    inline constexpr const char* onsetSilence = "onsetSilence";     // silence gate, dBFS
    inline constexpr const char* hitResponse = "hitResponse";       // Live (10 ms: runtime::LiveHits) or Exact (the model on a clip)
} // namespace ParameterIds

/** Version hint for the host of the first parameters; the ones added later have their own (an AU
    host learns from it which parameters a saved session can know). The switches (midiOut, hitMode)
    are plugin::SwitchParameter, always exactly on or off; a host keys automation and sessions on
    the ID and this hint, not on a parameter's class, so they stay what they were. */
inline constexpr int kParameterVersion = 1;
inline constexpr int kHitParameterVersion = 2; // the per-hit mode's
inline constexpr int kHitResponseParameterVersion = 3;

/** The choices of hitResponse, in order. */
enum class HitResponse
{
    live,
    exact
};

juce::AudioProcessorValueTreeState::ParameterLayout createParameterLayout();

} // namespace sonotype::plugin
