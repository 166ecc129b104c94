// Model info (name, labels, sample rate, window and hop) and live statistics (inference time,
// worker load, skipped windows, dropped samples); in per-hit mode, its clip, latency and the delay
// of its last note.
#pragma once

#include "gui/DisplayState.h"

namespace sonotype::gui
{

class InfoPanel final : public juce::Component
{
public:
    void update (const plugin::ModelDescription& model, const plugin::LiveSnapshot& snapshot);
    void paint (juce::Graphics&) override;

private:
    juce::StringArray modelLines_, statsLines_;
};

} // namespace sonotype::gui
