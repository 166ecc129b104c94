#include "gui/StatusBanner.h"

#include "gui/Theme.h"

namespace sonotype::gui
{

StatusBanner::StatusBanner()
{
    dismiss_.setTooltip ("Dismiss");
    dismiss_.onClick = [this] {
        if (onDismiss)
            onDismiss();
    };
    addAndMakeVisible (dismiss_);
}

void StatusBanner::show (const juce::String& message, bool isError)
{
    if (message == message_ && isError == isError_)
        return;
    message_ = message;
    isError_ = isError;
    setVisible (message.isNotEmpty());
    repaint();
}

namespace
{
    constexpr int kPadding = 8;
}

juce::TextLayout StatusBanner::layoutFor (float width) const
{
    juce::AttributedString text (message_);
    text.setFont (juce::Font (fontHeight_));
    text.setColour (isError_ ? Colours::error.brighter (0.3f) : Colours::text);
    text.setWordWrap (juce::AttributedString::byWord);
    text.setJustification (juce::Justification::centredLeft);
    juce::TextLayout layout;
    layout.createLayout (text, std::max (10.0f, width));
    return layout;
}

int StatusBanner::heightForWidth (int width, float fontHeight) const
{
    auto* self = const_cast<StatusBanner*> (this);
    const auto previous = fontHeight_;
    self->fontHeight_ = fontHeight;
    const auto button = juce::roundToInt (fontHeight * 2.0f);
    const auto height = juce::roundToInt (std::ceil (layoutFor (static_cast<float> (width - button - 2 * kPadding)).getHeight()));
    self->fontHeight_ = previous;
    return std::max (button, height + 2 * kPadding);
}

void StatusBanner::paint (juce::Graphics& g)
{
    // Opaque: the banner lies over the views below it rather than pushing them down.
    const auto colour = isError_ ? Colours::error : Colours::accent;
    const auto bounds = getLocalBounds().toFloat();
    g.setColour (Colours::background);
    g.fillRoundedRectangle (bounds, 5.0f);
    g.setColour (colour.withAlpha (0.18f));
    g.fillRoundedRectangle (bounds, 5.0f);
    g.setColour (colour);
    g.drawRoundedRectangle (bounds.reduced (0.5f), 5.0f, 1.0f);
    const auto button = juce::roundToInt (fontHeight_ * 2.0f);
    const auto area = getLocalBounds().reduced (kPadding).withTrimmedRight (button).toFloat();
    layoutFor (area.getWidth()).draw (g, area);
}

void StatusBanner::resized()
{
    const auto button = juce::roundToInt (fontHeight_ * 2.0f);
    dismiss_.setBounds (getLocalBounds().removeFromRight (button).removeFromTop (button).reduced (button / 5));
}

} // namespace sonotype::gui
