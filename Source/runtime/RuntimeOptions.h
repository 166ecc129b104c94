// The streaming runtime's settings, fixed when it is made (the hop and the smoothing can change
// later: StreamingRuntime::reconfigure()).
#pragma once

#include <cstddef>

namespace sonotype::runtime
{

struct RuntimeOptions
{
    double hopSeconds = 0.25;
    double smoothingSeconds = 0.0; // exponential moving average time constant; 0 = off
    double fifoSeconds = 4.0;      // audio the FIFO holds before the audio thread drops samples
    std::size_t historySize = 512; // results kept for readers (per model generation)
};

} // namespace sonotype::runtime
