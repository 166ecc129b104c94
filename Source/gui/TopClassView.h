// The current top class, large, with its confidence (and a "stale" badge when results lag).
#pragma once

#include "gui/DisplayState.h"

namespace sonotype::gui
{

class TopClassView final : public juce::Component
{
public:
    void update (const DisplayState& state);
    void paint (juce::Graphics&) override;

private:
    juce::String label_ = "listening...";
    float confidence_ = 0.0f;
    int classIndex_ = -1;
    bool stale_ = false;
};

} // namespace sonotype::gui
