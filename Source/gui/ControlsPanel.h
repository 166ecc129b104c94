// The parameters (update interval, smoothing, threshold, MIDI out and base note; the per-hit mode
// and its onset detector's threshold, minimum gap and silence gate), attached to the processor's
// AudioProcessorValueTreeState, and the OSC target.
#pragma once

#include "plugin/SonotypeProcessor.h"

namespace sonotype::gui
{

class ControlsPanel final : public juce::Component
{
public:
    explicit ControlsPanel (plugin::SonotypeProcessor& processor);
    void paint (juce::Graphics&) override;
    void resized() override;

    /** Reports each change of the OSC target: the problem with it, or empty when it is set (an
        earlier problem is out of date). */
    std::function<void (const juce::String& error)> onOscResult;

private:
    struct LabelledSlider
    {
        juce::Label label;
        juce::Slider slider { juce::Slider::LinearHorizontal, juce::Slider::TextBoxRight };
        std::unique_ptr<juce::AudioProcessorValueTreeState::SliderAttachment> attachment;
    };
    void setUp (LabelledSlider&, const juce::String& name, const char* parameterId);
    void applyOsc();

    plugin::SonotypeProcessor& processor_;
    LabelledSlider hop_, smoothing_, threshold_, baseNote_;
    LabelledSlider onsetThreshold_, onsetGap_, onsetSilence_;
    juce::ToggleButton hitMode_ { "Per-hit MIDI" };
    std::unique_ptr<juce::AudioProcessorValueTreeState::ButtonAttachment> hitModeAttachment_;
    juce::ComboBox hitResponse_; // Live (10 ms) or Exact (longer)
    std::unique_ptr<juce::AudioProcessorValueTreeState::ComboBoxAttachment> hitResponseAttachment_;
    juce::ToggleButton midiOut_ { "MIDI out" };
    std::unique_ptr<juce::AudioProcessorValueTreeState::ButtonAttachment> midiAttachment_;
    juce::ToggleButton oscEnabled_ { "OSC out" };
    juce::TextEditor oscHost_, oscPort_;
};

} // namespace sonotype::gui
