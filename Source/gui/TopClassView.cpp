#include "gui/TopClassView.h"

#include "gui/Theme.h"

namespace sonotype::gui
{

void TopClassView::update (const DisplayState& state)
{
    const bool has = state.topClass >= 0 && state.topClass < static_cast<int> (state.labels.size()) && state.topClass < static_cast<int> (state.probabilities.size());
    const auto label = has ? state.labels[static_cast<std::size_t> (state.topClass)] : state.idleLabel;
    const float confidence = has ? state.probabilities[static_cast<std::size_t> (state.topClass)] : 0.0f;
    const bool uncertain = has && confidence < state.threshold;
    if (label != label_ || std::abs (confidence - confidence_) > 0.002f || stale_ != state.stale || classIndex_ != (has ? state.topClass : -1)
        || uncertain != uncertain_ || std::abs (state.threshold - threshold_) > 0.002f || idleText_ != state.idleText || sourceFile_ != state.sourceFile
        || sourceWhen_ != state.sourceWhen)
    {
        uncertain_ = uncertain;
        threshold_ = state.threshold;
        label_ = label;
        confidence_ = confidence;
        stale_ = state.stale;
        classIndex_ = has ? state.topClass : -1;
        idleText_ = state.idleText;
        sourceFile_ = state.sourceFile;
        sourceWhen_ = state.sourceWhen;
        repaint();
    }
}

juce::String TopClassView::displayedLabel() const
{
    return label_.toUpperCase() + (uncertain_ ? "?" : "");
}

juce::String TopClassView::detailText() const
{
    const auto percent = juce::String (juce::roundToInt (confidence_ * 100.0f)) + "%";
    return classIndex_ < 0 ? idleText_
           : uncertain_    ? percent + ": uncertain, below the " + juce::String (juce::roundToInt (threshold_ * 100.0f)) + "% threshold"
                           : percent + " confident";
}

juce::String TopClassView::sourceText() const
{
    return sourceFile_.isEmpty() ? juce::String() : sourceFile_ + (sourceWhen_.startsWithChar (':') ? "" : " ") + sourceWhen_;
}

void TopClassView::paint (juce::Graphics& g)
{
    auto area = getLocalBounds().toFloat();
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (area, area.getHeight() * 0.06f);
    area = area.reduced (area.getHeight() * 0.08f);

    const auto colour = classIndex_ >= 0 ? classColour (classIndex_, label_) : Colours::dimText;
    const float h = area.getHeight();
    // Below the detection threshold the top class is only a guess: dimmed, with a "?".
    g.setColour (stale_ || uncertain_ ? colour.withMultipliedSaturation (0.3f).withMultipliedBrightness (0.6f) : colour);
    g.setFont (juce::Font (h * 0.55f, juce::Font::bold));
    g.drawFittedText (displayedLabel(), area.removeFromTop (h * 0.62f).toNearestInt(), juce::Justification::centredLeft, 1, 0.6f);

    auto line = area.removeFromTop (h * 0.3f);
    const juce::Font font (h * 0.2f);
    g.setFont (font);
    const auto detail = detailText();
    float detailWidth = font.getStringWidthFloat (detail);
    if (sourceFile_.isNotEmpty())
    {
        // Right of the confidence: the file and the time. Where both do not fit, the file's name is
        // shortened first (never the time), down to a few letters; then the detail (an error's
        // reason, which the timeline and the message strip also give in full) ends in "...".
        const auto when = (sourceWhen_.startsWithChar (':') ? "" : " ") + sourceWhen_;
        const float gap = font.getHeight();
        const float shortest = font.getStringWidthFloat (sourceFile_.substring (0, 6) + "..." + when);
        detailWidth = std::min (detailWidth, std::max (0.0f, line.getWidth() - std::min (shortest, font.getStringWidthFloat (sourceFile_ + when)) - gap));
        const float room = line.getWidth() - detailWidth - gap;
        auto name = sourceFile_;
        while (name.length() > 4 && font.getStringWidthFloat (name + when) > room)
            name = name.dropLastCharacters (4) + "...";
        g.setColour (Colours::accent);
        g.drawText (name + when, line, juce::Justification::centredRight, true);
    }
    g.setColour (Colours::text);
    g.drawText (detail, line.withWidth (detailWidth + 1.0f), juce::Justification::centredLeft, true);
    if (stale_)
    {
        g.setColour (Colours::warning);
        g.drawText ("STALE: results are behind the audio", line, juce::Justification::centredRight);
    }
}

} // namespace sonotype::gui
