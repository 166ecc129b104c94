// An on/off parameter that is always exactly on or off, whatever number a host sends it.
#pragma once

#include <juce_audio_processors/juce_audio_processors.h>

#include <atomic>

namespace sonotype::plugin
{

/** A switch (MIDI output, per-hit MIDI): a boolean parameter to hosts (two steps, "On"/"Off")
    whose value is always exactly 0 or 1. setValue snaps whatever number it is given (0.5 and above
    is on) and getValue returns the snapped value.

    JUCE 7.0.5's AudioParameterBool keeps the number a host sends (0.797 reads back as 0.797) while
    the saved state records only on or off. A host that sets an odd number, saves, restores and
    compares the values then finds them changed: the restore skips a value that means the same
    on/off setting (the odd number stays) and turns another into exactly 1 (pluginval's "Plugin
    state restoration" at strictness 6 and above). Snapped, what the host reads back is what the
    state holds.

    Threading: getValue and setValue may be called on any thread at once (the VST3 wrapper applies
    a host's automation on the audio thread, the editor's button attachment on the message thread);
    the value is one lock-free atomic, and neither allocates, locks nor waits. The parameter's
    listeners are told by juce::AudioProcessorParameter::setValueNotifyingHost, as for JUCE's own
    parameters. */
class SwitchParameter final : public juce::RangedAudioParameter
{
public:
    SwitchParameter (const juce::ParameterID& parameterId, const juce::String& parameterName, bool defaultOn)
        : juce::RangedAudioParameter (parameterId, parameterName), default_ (defaultOn ? 1.0f : 0.0f), value_ (default_)
    {
        static_assert (std::atomic<float>::is_always_lock_free, "the audio thread sets switches: their value must be lock-free");
    }

    /** What every number means: on from 0.5 up (as AudioParameterBool's text and the processor
        read it), off below (and for NaN). */
    static float snap (float value) noexcept { return value >= 0.5f ? 1.0f : 0.0f; }

    bool isOn() const noexcept { return value_.load (std::memory_order_relaxed) >= 0.5f; }

    float getValue() const override { return value_.load (std::memory_order_relaxed); }
    void setValue (float newValue) override { value_.store (snap (newValue), std::memory_order_relaxed); }
    float getDefaultValue() const override { return default_; }
    int getNumSteps() const override { return 2; }
    bool isDiscrete() const override { return true; }
    bool isBoolean() const override { return true; }
    const juce::NormalisableRange<float>& getNormalisableRange() const override { return range_; }

    juce::String getText (float value, int) const override { return snap (value) > 0.0f ? "On" : "Off"; }

    /** The words AudioParameterBool reads (on/yes/true, off/no/false), else a number: not 0 is on. */
    float getValueForText (const juce::String& text) const override
    {
        const auto word = text.trim().toLowerCase();
        if (word == "on" || word == "yes" || word == "true")
            return 1.0f;
        if (word == "off" || word == "no" || word == "false")
            return 0.0f;
        return word.getIntValue() != 0 ? 1.0f : 0.0f;
    }

private:
    const juce::NormalisableRange<float> range_ { 0.0f, 1.0f, 1.0f };
    const float default_;
    std::atomic<float> value_;
};

} // namespace sonotype::plugin
