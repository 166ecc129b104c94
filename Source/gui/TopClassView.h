// The top class, large, with its confidence (and a "stale" badge when results lag): the live
// input's, or in the Files view, the file's at the time shown, which the panel names ("song.wav at
// 1:23.4") so that it is never taken for the live input.
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
    /** The line under it: the confidence, or what there is instead of a class. */
    juce::String detailText() const;
    /** What the values are of: empty for the live input, else "song.wav at 1:23.4". */
    juce::String sourceText() const;
    bool isUncertain() const noexcept { return uncertain_; }

private:
    juce::String label_ = "listening...", idleText_;
    juce::String sourceFile_, sourceWhen_;
    float confidence_ = 0.0f;
    int classIndex_ = -1;
    bool stale_ = false;
    bool uncertain_ = false;
    float threshold_ = 0.0f;
};

} // namespace sonotype::gui
