#include "gui/TopClassView.h"

#include "gui/Theme.h"

namespace sonotype::gui
{

void TopClassView::update (const DisplayState& state)
{
    const bool has = state.topClass >= 0 && state.topClass < static_cast<int> (state.labels.size());
    const auto label = has ? state.labels[static_cast<std::size_t> (state.topClass)] : juce::String ("listening...");
    const float confidence = has ? state.probabilities[static_cast<std::size_t> (state.topClass)] : 0.0f;
    const bool uncertain = has && confidence < state.threshold;
    if (label != label_ || std::abs (confidence - confidence_) > 0.002f || stale_ != state.stale || classIndex_ != state.topClass
        || uncertain != uncertain_ || std::abs (state.threshold - threshold_) > 0.002f)
    {
        uncertain_ = uncertain;
        threshold_ = state.threshold;
        label_ = label;
        confidence_ = confidence;
        stale_ = state.stale;
        classIndex_ = has ? state.topClass : -1;
        repaint();
    }
}

juce::String TopClassView::displayedLabel() const
{
    return label_.toUpperCase() + (uncertain_ ? "?" : "");
}

void TopClassView::paint (juce::Graphics& g)
{
    auto area = getLocalBounds().toFloat();
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (area, area.getHeight() * 0.06f);
    area = area.reduced (area.getHeight() * 0.08f);

    const auto colour = classIndex_ >= 0 ? classColour (classIndex_) : Colours::dimText;
    const float h = area.getHeight();
    // Below the detection threshold the top class is only a guess: dimmed, with a "?".
    g.setColour (stale_ || uncertain_ ? colour.withMultipliedSaturation (0.3f).withMultipliedBrightness (0.6f) : colour);
    g.setFont (juce::Font (h * 0.55f, juce::Font::bold));
    g.drawFittedText (displayedLabel(), area.removeFromTop (h * 0.62f).toNearestInt(), juce::Justification::centredLeft, 1, 0.6f);

    const auto line = area.removeFromTop (h * 0.3f);
    g.setColour (Colours::text);
    g.setFont (juce::Font (h * 0.2f));
    const auto percent = juce::String (juce::roundToInt (confidence_ * 100.0f)) + "%";
    const auto text = classIndex_ < 0 ? juce::String ("waiting for the first window")
                      : uncertain_    ? percent + ": uncertain, below the " + juce::String (juce::roundToInt (threshold_ * 100.0f)) + "% threshold"
                                      : percent + " confident";
    g.drawText (text, line, juce::Justification::centredLeft);
    if (stale_)
    {
        g.setColour (Colours::warning);
        g.drawText ("STALE: results are behind the audio", line, juce::Justification::centredRight);
    }
}

} // namespace sonotype::gui
