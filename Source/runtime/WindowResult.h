// One analysis window's classification.
#pragma once

#include <cstdint>
#include <vector>

namespace sonotype::runtime
{

struct WindowResult
{
    int64_t windowIndex = -1; // window k covers [k * hop, k * hop + window) seconds of the stream
    double startSeconds = 0.0, endSeconds = 0.0;
    std::vector<float> probabilities; // per class, in model label order (smoothed, if smoothing is on)
    int topClass = -1;
    float confidence = 0.0f;  // probabilities[topClass]
    double inferenceMs = 0.0; // front end + model, for this window
    uint64_t generation = 0;  // the runtime's model/settings generation (0 offline)
    int64_t readySample = -1; // live: the host-rate stream sample (since prepare()) by which this
                              // result is always known: its window's end plus the resampler's
                              // delay; the same in any block sizes (-1 offline)
};

} // namespace sonotype::runtime
