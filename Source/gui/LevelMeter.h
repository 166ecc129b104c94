// Input level meter: peak with a falling bar and a held peak, in dBFS.
#pragma once

#include <juce_audio_basics/juce_audio_basics.h>
#include <juce_gui_basics/juce_gui_basics.h>

namespace sonotype::gui
{

class LevelMeter final : public juce::Component
{
public:
    /** Called every frame with the peak (linear) seen since the last frame. */
    void push (float peak, double frameSeconds);
    void paint (juce::Graphics&) override;

private:
    float levelDb_ = -100.0f, heldDb_ = -100.0f;
    double heldFor_ = 0.0;
};

} // namespace sonotype::gui
