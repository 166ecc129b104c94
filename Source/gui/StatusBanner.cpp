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

void StatusBanner::paint (juce::Graphics& g)
{
    const auto colour = isError_ ? Colours::error : Colours::accent;
    g.setColour (colour.withAlpha (0.15f));
    g.fillRoundedRectangle (getLocalBounds().toFloat(), 5.0f);
    g.setColour (colour);
    g.drawRoundedRectangle (getLocalBounds().toFloat().reduced (0.5f), 5.0f, 1.0f);
    g.setFont (static_cast<float> (getHeight()) * 0.45f);
    g.drawFittedText (message_, getLocalBounds().reduced (10, 2).withTrimmedRight (getHeight()), juce::Justification::centredLeft, 2, 0.8f);
}

void StatusBanner::resized()
{
    dismiss_.setBounds (getLocalBounds().removeFromRight (getHeight()).reduced (getHeight() / 5));
}

} // namespace sonotype::gui
