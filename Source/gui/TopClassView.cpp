#include "gui/TopClassView.h"

#include "gui/Theme.h"

namespace sonotype::gui
{

void TopClassView::update (const DisplayState& state)
{
    const bool has = state.topClass >= 0 && state.topClass < static_cast<int> (state.labels.size());
    const auto label = has ? state.labels[static_cast<std::size_t> (state.topClass)] : juce::String ("listening...");
    const float confidence = has ? state.probabilities[static_cast<std::size_t> (state.topClass)] : 0.0f;
    if (label != label_ || std::abs (confidence - confidence_) > 0.002f || stale_ != state.stale || classIndex_ != state.topClass)
    {
        label_ = label;
        confidence_ = confidence;
        stale_ = state.stale;
        classIndex_ = has ? state.topClass : -1;
        repaint();
    }
}

void TopClassView::paint (juce::Graphics& g)
{
    auto area = getLocalBounds().toFloat();
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (area, area.getHeight() * 0.06f);
    area = area.reduced (area.getHeight() * 0.08f);

    const auto colour = classIndex_ >= 0 ? classColour (classIndex_) : Colours::dimText;
    const float h = area.getHeight();
    g.setColour (stale_ ? colour.withMultipliedSaturation (0.3f).withMultipliedBrightness (0.6f) : colour);
    g.setFont (juce::Font (h * 0.55f, juce::Font::bold));
    g.drawFittedText (label_.toUpperCase(), area.removeFromTop (h * 0.62f).toNearestInt(), juce::Justification::centredLeft, 1, 0.6f);

    const auto line = area.removeFromTop (h * 0.3f);
    g.setColour (Colours::text);
    g.setFont (juce::Font (h * 0.2f));
    const auto text = classIndex_ >= 0 ? juce::String (juce::roundToInt (confidence_ * 100.0f)) + "% confident" : juce::String ("waiting for the first window");
    g.drawText (text, line, juce::Justification::centredLeft);
    if (stale_)
    {
        g.setColour (Colours::warning);
        g.drawText ("STALE: results are behind the audio", line, juce::Justification::centredRight);
    }
}

} // namespace sonotype::gui
