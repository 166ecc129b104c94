#include "gui/ClassBars.h"

#include "gui/Theme.h"

namespace sonotype::gui
{

void ClassBars::update (const DisplayState& state)
{
    state_ = state;
    repaint();
}

juce::Rectangle<float> ClassBars::rowBounds (int index) const
{
    const int n = std::max<int> (1, static_cast<int> (state_.labels.size()));
    const float rowHeight = static_cast<float> (getHeight()) / static_cast<float> (n);
    return { 0.0f, rowHeight * static_cast<float> (index), static_cast<float> (getWidth()), rowHeight };
}

void ClassBars::paint (juce::Graphics& g)
{
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (getLocalBounds().toFloat(), 6.0f);
    for (int c = 0; c < static_cast<int> (state_.labels.size()); ++c)
    {
        auto row = rowBounds (c).reduced (6.0f, 2.0f);
        const bool enabled = c >= static_cast<int> (state_.enabled.size()) || state_.enabled[static_cast<std::size_t> (c)];
        const float p = c < static_cast<int> (state_.probabilities.size()) ? state_.probabilities[static_cast<std::size_t> (c)] : 0.0f;
        const auto labelArea = row.removeFromLeft (row.getWidth() * 0.3f);
        const float fontHeight = std::min (row.getHeight() * 0.75f, labelArea.getWidth() * 0.16f);
        const juce::Font font (fontHeight, c == state_.topClass ? juce::Font::bold : juce::Font::plain);
        // The value column fits "100%" in full at this font (never "10..."), and a "?" after it.
        const auto valueArea = row.removeFromRight (std::max (row.getWidth() * 0.16f, font.getStringWidthFloat ("100%?") + 4.0f));
        const bool uncertain = c == state_.topClass && p < state_.threshold;

        g.setFont (font);
        g.setColour (enabled ? Colours::text : Colours::dimText.withAlpha (0.6f));
        g.drawText (state_.labels[static_cast<std::size_t> (c)], labelArea, juce::Justification::centredLeft);

        const auto track = row.reduced (0.0f, row.getHeight() * 0.18f);
        g.setColour (Colours::background);
        g.fillRoundedRectangle (track, 3.0f);
        if (enabled)
        {
            // A top class below the detection threshold is uncertain: dimmed, and its value gets a "?".
            g.setColour (classColour (c, state_.labels[static_cast<std::size_t> (c)]).withAlpha (state_.stale || uncertain ? 0.4f : 1.0f));
            g.fillRoundedRectangle (track.withWidth (track.getWidth() * juce::jlimit (0.0f, 1.0f, p)), 3.0f);
        }
        else
        {
            g.setColour (Colours::dimText.withAlpha (0.5f));
            g.drawText ("off (click to enable)", track, juce::Justification::centred);
        }
        g.setColour (enabled ? Colours::text : Colours::dimText);
        g.drawText (enabled ? valueText (c) : juce::String ("-"), valueArea, juce::Justification::centredRight, false);
    }
}

juce::String ClassBars::valueText (int index) const
{
    const float p = index >= 0 && index < static_cast<int> (state_.probabilities.size()) ? state_.probabilities[static_cast<std::size_t> (index)] : 0.0f;
    const bool uncertain = index == state_.topClass && p < state_.threshold;
    return juce::String (juce::roundToInt (p * 100.0f)) + (uncertain ? "%?" : "%");
}

bool ClassBars::valuesFit() const
{
    for (int c = 0; c < static_cast<int> (state_.labels.size()); ++c)
    {
        auto row = rowBounds (c).reduced (6.0f, 2.0f);
        const auto labelArea = row.removeFromLeft (row.getWidth() * 0.3f);
        const float fontHeight = std::min (row.getHeight() * 0.75f, labelArea.getWidth() * 0.16f);
        const juce::Font font (fontHeight, c == state_.topClass ? juce::Font::bold : juce::Font::plain);
        const float width = std::max (row.getWidth() * 0.16f, font.getStringWidthFloat ("100%?") + 4.0f);
        if (font.getStringWidthFloat (valueText (c)) > width)
            return false;
    }
    return true;
}

void ClassBars::mouseUp (const juce::MouseEvent& event)
{
    for (int c = 0; c < static_cast<int> (state_.labels.size()); ++c)
        if (rowBounds (c).contains (event.position))
        {
            const bool enabled = c >= static_cast<int> (state_.enabled.size()) || state_.enabled[static_cast<std::size_t> (c)];
            if (onToggle)
                onToggle (state_.labels[static_cast<std::size_t> (c)], ! enabled);
        }
}

} // namespace sonotype::gui
