#include "timeline/MidiNotes.h"

#include <algorithm>
#include <cmath>

namespace sonotype::timeline
{
namespace
{
    void addMidi (juce::MidiBuffer& midi, const juce::MidiMessage& message, int position) noexcept
    {
        try
        {
            midi.addEvent (message, position);
        }
        catch (...)
        {
        }
    }
} // namespace

int confidenceVelocity (float confidence) noexcept
{
    return juce::jlimit (1, 127, juce::roundToInt (confidence * 127.0f));
}

int hitVelocity (float levelDb) noexcept
{
    constexpr float kRangeDb = 48.0f;
    if (! std::isfinite (levelDb))
        return 1;
    return std::clamp (static_cast<int> (std::lround (1.0f + 126.0f * (levelDb + kRangeDb) / kRangeDb)), 1, 127);
}

juce::MidiMessage noteOn (int note, int velocity) noexcept
{
    return juce::MidiMessage::noteOn (kMidiChannel, note, static_cast<juce::uint8> (juce::jlimit (1, 127, velocity)));
}

juce::MidiMessage noteOff (int note) noexcept
{
    return juce::MidiMessage::noteOff (kMidiChannel, note);
}

void addNoteOn (juce::MidiBuffer& midi, int note, int velocity, int position) noexcept
{
    addMidi (midi, noteOn (note, velocity), position);
}

void addNoteOff (juce::MidiBuffer& midi, int note, int position) noexcept
{
    addMidi (midi, noteOff (note), position);
}

} // namespace sonotype::timeline
