// Sonotype's look: a dark theme with one accent colour per class, and the look-and-feel that
// draws JUCE's stock controls in it. Sizes scale with the editor (see SonotypeEditor::resized).
#pragma once

#include <juce_gui_basics/juce_gui_basics.h>

namespace sonotype::gui
{

namespace Colours
{
    inline const juce::Colour background { 0xff12141a };
    inline const juce::Colour panel { 0xff1b1e27 };
    inline const juce::Colour panelEdge { 0xff2a2f3c };
    inline const juce::Colour text { 0xffe8ebf2 };
    inline const juce::Colour dimText { 0xffb6bdcc }; // secondary text: about 9:1 against the panels
    inline const juce::Colour accent { 0xff4fd1c5 };
    inline const juce::Colour warning { 0xfff6ad55 };
    inline const juce::Colour error { 0xfffc6d6d };
} // namespace Colours

/** A distinct, saturated colour for class `index` (of any number of classes), so no class looks
    switched off; a class named for the absence of a sound ("silence", "noise", "unknown",
    "background", "other") is grey whatever its index, as the classes out of play are. */
juce::Colour classColour (int index, const juce::String& label = {});

/** Whether `label` names the absence of a sound rather than a sound (drawn grey). */
bool isQuietClass (const juce::String& label);

/** Heat-map colour for a probability in [0, 1] (dark blue -> teal -> yellow). */
juce::Colour heatColour (float probability);

class SonotypeLookAndFeel final : public juce::LookAndFeel_V4
{
public:
    SonotypeLookAndFeel();
    void setScale (float scale) noexcept { scale_ = scale; }
    float scale() const noexcept { return scale_; }

    juce::Font getLabelFont (juce::Label&) override;
    juce::Font getTextButtonFont (juce::TextButton&, int buttonHeight) override;
    void drawToggleButton (juce::Graphics&, juce::ToggleButton&, bool highlighted, bool down) override;
    void drawLinearSlider (juce::Graphics&, int x, int y, int width, int height, float sliderPos, float minSliderPos, float maxSliderPos,
                           juce::Slider::SliderStyle, juce::Slider&) override;

private:
    float scale_ = 1.0f;
};

} // namespace sonotype::gui
