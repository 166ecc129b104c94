// Optional OSC output (off by default): each analyzed window sends
//   /sonotype/top   <label: string> <confidence: float32>
//   /sonotype/probs <probability: float32> ... (one per class, model label order; disabled classes 0)
// over UDP to a configurable host:port, for live visuals and Max/TouchDesigner patches.
// Sending happens on the runtime's worker thread, never the audio thread.
#pragma once

#include "runtime/StreamingRuntime.h"

#include <juce_osc/juce_osc.h>

#include <mutex>

namespace sonotype::plugin
{

class OscOutput
{
public:
    struct Target
    {
        bool enabled = false;
        juce::String host = "127.0.0.1";
        int port = 9000;
    };

    /** Message thread: applies a target; returns an error message, or empty when it worked. */
    juce::String setTarget (const Target& target);
    Target target() const;

    /** Worker thread: sends one window's messages (skipped while setTarget() runs). */
    void send (const runtime::WindowResult& result, const runtime::AnalysisInfo& info, int topClass, const std::vector<bool>& enabled);

private:
    mutable std::mutex mutex_; // message thread and worker only
    juce::OSCSender sender_;
    Target target_;
    bool connected_ = false;
};

} // namespace sonotype::plugin
