// The streaming runtime's statistics, as readers get them (StreamingRuntime::stats()): the audio
// inlet's counts (pushed, dropped) and the analysis worker's (windows, timing, stream position).
#pragma once

#include <cstdint>
#include <string>

namespace sonotype::runtime
{

struct RuntimeStats
{
    double lastInferenceMs = 0.0, meanInferenceMs = 0.0, maxInferenceMs = 0.0;
    double workerLoad = 0.0; // mean inference time / hop: the share of one core the analysis takes
    int64_t windowsRun = 0, windowsSkipped = 0;
    int64_t hits = 0;                                // hits the per-hit analysis classified since prepare()
    int64_t fifoOverruns = 0;                        // samples the audio thread had to drop
    int64_t nonFiniteSamples = 0;                    // NaN/Inf samples replaced by 0
    int64_t pushedSamples = 0;                       // host-rate samples the audio thread has pushed since prepare()
    int64_t inputSamples = 0;                        // the worker's stream position: host-rate samples it has taken from
                                                     // the FIFO, plus those the audio thread dropped before them
    int64_t analyzedSamples = 0;                     // the stream position up to which the worker has analyzed (or, live,
                                                     // skipped) every complete window and run its listener: when it
                                                     // equals pushedSamples, every result the audio pushed so far can give is out
    double pushedSeconds = 0.0, streamSeconds = 0.0; // the same two, in seconds
    uint64_t generation = 0;                         // of the model and settings in use
    std::string error;                               // the worker's last error (a failed swap, an exception)
};

} // namespace sonotype::runtime
