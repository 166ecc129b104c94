#include "gui/LevelMeter.h"

#include "gui/Theme.h"

namespace sonotype::gui
{
namespace
{
    constexpr float kFloorDb = -60.0f;
}

void LevelMeter::push (float peak, double frameSeconds)
{
    const float db = juce::Decibels::gainToDecibels (peak, -100.0f);
    const float fallen = levelDb_ - static_cast<float> (frameSeconds) * 24.0f; // 24 dB/s release
    const float next = std::max (db, fallen);
    heldFor_ += frameSeconds;
    if (db >= heldDb_ || heldFor_ > 1.5)
    {
        heldDb_ = db;
        heldFor_ = 0.0;
    }
    if (std::abs (next - levelDb_) > 0.05f)
    {
        levelDb_ = next;
        repaint();
    }
}

void LevelMeter::paint (juce::Graphics& g)
{
    auto area = getLocalBounds().toFloat();
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (area, 4.0f);
    area = area.reduced (3.0f);
    auto proportion = [] (float db) { return juce::jlimit (0.0f, 1.0f, (db - kFloorDb) / -kFloorDb); };
    const float level = proportion (levelDb_);
    juce::ColourGradient gradient (juce::Colour (0xff38a169), area.getBottomLeft(), Colours::error, area.getTopLeft(), false);
    gradient.addColour (0.8, Colours::warning);
    g.setGradientFill (gradient);
    g.fillRect (area.withTop (area.getBottom() - area.getHeight() * level));
    g.setColour (Colours::text);
    const float held = area.getBottom() - area.getHeight() * proportion (heldDb_);
    g.drawHorizontalLine (juce::roundToInt (held), area.getX(), area.getRight());
}

} // namespace sonotype::gui
