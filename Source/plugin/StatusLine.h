// The one line of status the editor shows inline (its banner): model loads, the taught classes,
// the analysis rate, the file transport, OSC. One channel, so that no message hides another a frame
// later; an error is marked as such.
//
// Threading contract
// - Any thread but the audio thread: set(), message(), isError() (the message thread, the model
//   service's thread, prepareToPlay's thread).
// Shared: the message and its mark behind mutex_, set together.
#pragma once

#include <juce_core/juce_core.h>

#include <mutex>
#include <utility>

namespace sonotype::plugin
{

class StatusLine
{
public:
    void set (juce::String message, bool isError)
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        message_ = std::move (message);
        isError_ = isError;
    }

    juce::String message() const
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        return message_;
    }

    bool isError() const
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        return isError_;
    }

private:
    mutable std::mutex mutex_;
    juce::String message_;
    bool isError_ = false;
};

} // namespace sonotype::plugin
