#include "gui/Theme.h"

namespace sonotype::gui
{

bool isQuietClass (const juce::String& label)
{
    for (const auto* quiet : { "silence", "noise", "unknown", "background", "other" })
        if (label.equalsIgnoreCase (quiet))
            return true;
    return false;
}

juce::Colour classColour (int index, const juce::String& label)
{
    if (isQuietClass (label))
        return label.equalsIgnoreCase ("silence") ? juce::Colour (0xff7f8c8d) : juce::Colour (0xffa0aec0);
    // Saturated hues, neighbours far apart on the wheel: a kit's first three or four pieces (the
    // classes people teach most) are orange, blue, green and red.
    static const juce::uint32 palette[] = { 0xfff6ad55, 0xff63b3ed, 0xff68d391, 0xfffc8181, 0xffb794f4, 0xfff6e05e,
                                            0xff4fd1c5, 0xfff687b3, 0xffa3e635, 0xff90cdf4, 0xffed64a6, 0xfffbd38d };
    constexpr int n = static_cast<int> (std::size (palette));
    const int i = std::max (index, 0);
    const auto base = juce::Colour (palette[i % n]);
    return i < n ? base : base.withRotatedHue (0.07f * static_cast<float> (i / n));
}

juce::Colour heatColour (float probability)
{
    const float p = juce::jlimit (0.0f, 1.0f, probability);
    const juce::Colour low (0xff161a2a), mid (0xff1f7a8c), high (0xfff6e05e);
    return p < 0.5f ? low.interpolatedWith (mid, p * 2.0f) : mid.interpolatedWith (high, (p - 0.5f) * 2.0f);
}

SonotypeLookAndFeel::SonotypeLookAndFeel()
{
    setColour (juce::ResizableWindow::backgroundColourId, Colours::background);
    setColour (juce::Label::textColourId, Colours::text);
    setColour (juce::TextButton::buttonColourId, Colours::panelEdge);
    setColour (juce::TextButton::buttonOnColourId, Colours::accent.darker (0.4f));
    setColour (juce::TextButton::textColourOffId, Colours::text);
    setColour (juce::TextButton::textColourOnId, Colours::text);
    setColour (juce::ToggleButton::textColourId, Colours::text);
    setColour (juce::ToggleButton::tickColourId, Colours::accent);
    setColour (juce::ToggleButton::tickDisabledColourId, Colours::dimText);
    setColour (juce::Slider::trackColourId, Colours::accent);
    setColour (juce::Slider::backgroundColourId, Colours::panelEdge);
    setColour (juce::Slider::thumbColourId, Colours::text);
    setColour (juce::Slider::textBoxTextColourId, Colours::text);
    setColour (juce::Slider::textBoxOutlineColourId, juce::Colours::transparentBlack);
    setColour (juce::TextEditor::backgroundColourId, Colours::background);
    setColour (juce::TextEditor::textColourId, Colours::text);
    setColour (juce::TextEditor::outlineColourId, Colours::panelEdge);
    setColour (juce::TextEditor::focusedOutlineColourId, Colours::accent);
    setColour (juce::PopupMenu::backgroundColourId, Colours::panel);
}

juce::Font SonotypeLookAndFeel::getLabelFont (juce::Label& label)
{
    return label.getFont().withHeight (std::max (13.0f, 16.0f * scale_));
}

juce::Font SonotypeLookAndFeel::getTextButtonFont (juce::TextButton&, int buttonHeight)
{
    return juce::Font (std::min (15.0f * scale_, static_cast<float> (buttonHeight) * 0.6f));
}

void SonotypeLookAndFeel::drawToggleButton (juce::Graphics& g, juce::ToggleButton& button, bool highlighted, bool down)
{
    // LookAndFeel_V4's, with the text at the editor's scale rather than at most 15 px.
    const float fontSize = std::min (15.0f * scale_, static_cast<float> (button.getHeight()) * 0.75f);
    const float tickWidth = fontSize * 1.1f;
    drawTickBox (g, button, 4.0f, (static_cast<float> (button.getHeight()) - tickWidth) * 0.5f, tickWidth, tickWidth, button.getToggleState(),
                 button.isEnabled(), highlighted, down);
    g.setColour (button.findColour (juce::ToggleButton::textColourId));
    g.setFont (fontSize);
    if (! button.isEnabled())
        g.setOpacity (0.5f);
    g.drawFittedText (button.getButtonText(), button.getLocalBounds().withTrimmedLeft (juce::roundToInt (tickWidth) + 10).withTrimmedRight (2),
                      juce::Justification::centredLeft, 10);
}

void SonotypeLookAndFeel::drawLinearSlider (juce::Graphics& g, int x, int y, int width, int height, float sliderPos, float, float,
                                            juce::Slider::SliderStyle style, juce::Slider& slider)
{
    if (style != juce::Slider::LinearHorizontal)
    {
        LookAndFeel_V4::drawLinearSlider (g, x, y, width, height, sliderPos, 0.0f, 0.0f, style, slider);
        return;
    }
    const auto track = juce::Rectangle<float> (static_cast<float> (x), static_cast<float> (y) + static_cast<float> (height) * 0.5f - 2.0f * scale_,
                                               static_cast<float> (width), 4.0f * scale_);
    g.setColour (slider.findColour (juce::Slider::backgroundColourId));
    g.fillRoundedRectangle (track, 2.0f * scale_);
    g.setColour (slider.findColour (juce::Slider::trackColourId));
    g.fillRoundedRectangle (track.withRight (sliderPos), 2.0f * scale_);
    g.setColour (slider.findColour (juce::Slider::thumbColourId));
    const float radius = 6.0f * scale_;
    g.fillEllipse (sliderPos - radius, track.getCentreY() - radius, radius * 2.0f, radius * 2.0f);
}

} // namespace sonotype::gui
