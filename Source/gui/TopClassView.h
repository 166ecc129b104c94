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
    /** The label as drawn: "DRUMS", or "DRUMS?" while below the detection threshold. */
    juce::String displayedLabel() const;
    bool isUncertain() const noexcept { return uncertain_; }

private:
    juce::String label_ = "listening...";
    float confidence_ = 0.0f;
    int classIndex_ = -1;
    bool stale_ = false;
    bool uncertain_ = false;
    float threshold_ = 0.0f;
};

} // namespace sonotype::gui
