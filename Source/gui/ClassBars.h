// One bar per class with its probability: the live input's, or in the Files view, the file's at the
// time shown (the pointer's, the player's or the last click's; the top panel names it). Clicking a class takes it out of play or back (the
// class filter: a class out of play gets 0 and the answer is renormalised over the others, in the
// live analysis, the files' timelines, MIDI and OSC).
#pragma once

#include "gui/DisplayState.h"

#include <functional>

namespace sonotype::gui
{

class ClassBars final : public juce::Component, public juce::SettableTooltipClient
{
public:
    std::function<void (const juce::String& label, bool enabled)> onToggle;

    void update (const DisplayState& state);
    /** The value shown for class `index`: "87%", or "35%?" for a top class below the threshold. */
    juce::String valueText (int index) const;
    /** Whether every row's value fits its column in full at the current size. */
    bool valuesFit() const;
    void paint (juce::Graphics&) override;
    void mouseUp (const juce::MouseEvent&) override;

private:
    juce::Rectangle<float> rowBounds (int index) const;
    DisplayState state_;
};

} // namespace sonotype::gui
