// What the editor's top panel and bars draw in one frame: the live input (the processor's
// LiveSnapshot), or in the Files view, the file on show at one time (TimelineView::momentAt).
#pragma once

#include "plugin/SonotypeProcessor.h"

#include <vector>

namespace sonotype::gui
{

struct DisplayState
{
    std::vector<juce::String> labels;
    std::vector<bool> enabled;
    std::vector<float> probabilities; // empty until the first result
    int topClass = -1;
    bool stale = false;
    float threshold = 0.0f; // the detection threshold, 0..1: a top class below it is shown as uncertain
    uint64_t generation = 0;
    /** Empty: the values are the live input's. Else the file they are of ("song.wav") and when
        ("at 1:23.4", or per hit ": the hit at 1:23.35"): the Files view. */
    juce::String sourceFile, sourceWhen;
    /** What the top panel says while there is no top class. */
    juce::String idleLabel = "listening...", idleText = "waiting for the first window";
};

} // namespace sonotype::gui
