// What the editor's views draw in one frame, taken from the processor's LiveSnapshot.
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
};

} // namespace sonotype::gui
