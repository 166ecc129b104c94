// One bar per class with its live probability. Clicking a class switches it off or on (the class
// filter: excluded from the top class, MIDI and OSC).
#pragma once

#include "gui/DisplayState.h"

#include <functional>

namespace sonotype::gui
{

class ClassBars final : public juce::Component
{
public:
    std::function<void (const juce::String& label, bool enabled)> onToggle;

    void update (const DisplayState& state);
    void paint (juce::Graphics&) override;
    void mouseUp (const juce::MouseEvent&) override;

private:
    juce::Rectangle<float> rowBounds (int index) const;
    DisplayState state_;
};

} // namespace sonotype::gui
