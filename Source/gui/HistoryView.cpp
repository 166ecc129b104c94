#include "gui/HistoryView.h"

#include "gui/Theme.h"

namespace sonotype::gui
{

void HistoryView::update (const std::vector<runtime::WindowResult>& newest, const DisplayState& state, double hopSeconds)
{
    if (state.generation != generation_)
    {
        columns_.clear();
        generation_ = state.generation;
        lastWindow_ = -1;
    }
    state_ = state;
    hopSeconds_ = hopSeconds;
    bool changed = false;
    for (const auto& result : newest)
    {
        if (result.generation != generation_ || result.windowIndex <= lastWindow_)
            continue;
        lastWindow_ = result.windowIndex;
        columns_.push_back ({ result.startSeconds, result.endSeconds, result.probabilities,
                              runtime::topEnabledClass (result.probabilities.data(), static_cast<int> (result.probabilities.size()), state.enabled) });
        changed = true;
    }
    while (! columns_.empty() && columns_.back().end - columns_.front().end > kSpanSeconds)
        columns_.pop_front();
    if (changed)
        repaint();
}

void HistoryView::paint (juce::Graphics& g)
{
    auto area = getLocalBounds().toFloat();
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (area, 6.0f);
    area = area.reduced (6.0f);
    const int numClasses = static_cast<int> (state_.labels.size());
    if (numClasses == 0)
        return;

    const auto labelArea = area.removeFromLeft (area.getWidth() * 0.14f);
    const auto timeArea = area.removeFromBottom (std::max (12.0f, area.getHeight() * 0.08f));
    const float rowHeight = area.getHeight() / static_cast<float> (numClasses);
    const float fontHeight = std::min (rowHeight * 0.8f, labelArea.getWidth() * 0.16f);
    g.setFont (fontHeight);
    for (int c = 0; c < numClasses; ++c)
    {
        const bool enabled = c >= static_cast<int> (state_.enabled.size()) || state_.enabled[static_cast<std::size_t> (c)];
        g.setColour (enabled ? classColour (c, state_.labels[static_cast<std::size_t> (c)]) : Colours::dimText.withAlpha (0.5f));
        g.drawText (state_.labels[static_cast<std::size_t> (c)], labelArea.withY (area.getY() + rowHeight * static_cast<float> (c)).withHeight (rowHeight).reduced (2.0f, 0.0f),
                    juce::Justification::centredRight);
    }
    g.setColour (juce::Colour (0xff161a2a));
    g.fillRect (area);

    // Time axis: the newest window's end at the right edge, 30 s to the left.
    const double now = columns_.empty() ? kSpanSeconds : columns_.back().end;
    const double from = now - kSpanSeconds;
    auto xOf = [&] (double t) { return area.getX() + static_cast<float> ((t - from) / kSpanSeconds) * area.getWidth(); };
    g.setColour (Colours::dimText);
    g.setFont (std::max (10.0f, timeArea.getHeight() * 0.8f));
    for (int s = 0; s <= 30; s += 5)
    {
        const float x = xOf (now - s);
        if (s == 0)
            g.drawText ("now", juce::Rectangle<float> (x - 60.0f, timeArea.getY(), 60.0f, timeArea.getHeight()), juce::Justification::centredRight);
        else if (s < 30)
            g.drawText ("-" + juce::String (s) + " s", juce::Rectangle<float> (x - 30.0f, timeArea.getY(), 60.0f, timeArea.getHeight()), juce::Justification::centred);
    }

    // Each window is drawn over the last hop of its span (where it is the newest information).
    for (const auto& column : columns_)
    {
        const float x0 = std::max (area.getX(), xOf (column.end - hopSeconds_)), x1 = std::min (area.getRight(), xOf (column.end));
        if (x1 <= x0)
            continue;
        for (int c = 0; c < numClasses && c < static_cast<int> (column.probabilities.size()); ++c)
        {
            g.setColour (heatColour (column.probabilities[static_cast<std::size_t> (c)]));
            g.fillRect (juce::Rectangle<float> (x0, area.getY() + rowHeight * static_cast<float> (c), x1 - x0 + 0.5f, rowHeight + 0.5f));
        }
    }
    // The top class: a frame around each run of windows it held, inside its own row. No line joins
    // one run to the next, so a quickly changing answer never draws over the other rows' heat.
    const float stroke = std::max (1.5f, std::min (3.0f, rowHeight * 0.1f));
    g.setColour (juce::Colours::white.withAlpha (0.9f));
    for (std::size_t i = 0; i < columns_.size();)
    {
        const int top = columns_[i].topClass;
        std::size_t j = i + 1;
        while (j < columns_.size() && columns_[j].topClass == top)
            ++j;
        if (top >= 0 && top < numClasses)
        {
            const float x0 = std::max (area.getX(), xOf (columns_[i].end - hopSeconds_)), x1 = std::min (area.getRight(), xOf (columns_[j - 1].end));
            if (x1 > x0)
                g.drawRect (juce::Rectangle<float> (x0, area.getY() + rowHeight * static_cast<float> (top), x1 - x0, rowHeight).reduced (stroke * 0.5f), stroke);
        }
        i = j;
    }
}

} // namespace sonotype::gui
