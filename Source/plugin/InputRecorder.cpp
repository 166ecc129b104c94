#include "plugin/InputRecorder.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <utility>

namespace sonotype::plugin
{

void InputRecorder::start (double seconds, double sampleRate)
{
    cancel();
    const auto length = static_cast<std::size_t> (std::max (1.0, std::round (std::clamp (seconds, 0.1, 60.0) * std::clamp (sampleRate, 1.0, 1.0e6))));
    buffer_.assign (length, 0.0f); // the audio thread sees it only once the state says so, below
    sampleRate_ = sampleRate;
    written_.store (0);
    state_.store (kRecording);
}

void InputRecorder::cancel() noexcept
{
    state_.store (kIdle);
    waitForAudioThread(); // a write that read "recording" before the store above ends first
}

void InputRecorder::waitForAudioThread() const noexcept
{
    while (audioInside_.load())
        std::this_thread::yield();
}

std::vector<float> InputRecorder::stop()
{
    const int state = state_.load();
    if (state == kDone)
        return take();
    if (state != kRecording)
        return {};
    cancel(); // from here on the audio thread writes nothing: the buffer and written_ are ours
    buffer_.resize (static_cast<std::size_t> (std::clamp<int64_t> (written_.load(), 0, static_cast<int64_t> (buffer_.size()))));
    written_.store (0);
    return std::exchange (buffer_, {});
}

double InputRecorder::progress() const noexcept
{
    if (state_.load() == kDone)
        return 1.0;
    return buffer_.empty() || state_.load() != kRecording ? 0.0 : static_cast<double> (written_.load()) / static_cast<double> (buffer_.size());
}

std::vector<float> InputRecorder::take()
{
    if (state_.load() != kDone)
        return {};
    state_.store (kIdle);
    return std::exchange (buffer_, {});
}

void InputRecorder::write (const float* const* channels, int numChannels, int numSamples) noexcept
{
    // The order matters: audioInside_ is raised before the state is read, so a cancel() that
    // stores kIdle and then sees audioInside_ false knows no write is under way or will begin.
    audioInside_.store (true);
    if (state_.load() == kRecording && numChannels > 0 && numSamples > 0)
    {
        const auto position = written_.load (std::memory_order_relaxed);
        const auto count = std::min<int64_t> (numSamples, static_cast<int64_t> (buffer_.size()) - position);
        const float scale = 1.0f / static_cast<float> (numChannels);
        for (int64_t i = 0; i < count; ++i)
        {
            float sum = 0.0f;
            for (int c = 0; c < numChannels; ++c)
                sum += channels[c][i];
            buffer_[static_cast<std::size_t> (position + i)] = std::isfinite (sum) ? sum * scale : 0.0f;
        }
        written_.store (position + count);
        if (position + count >= static_cast<int64_t> (buffer_.size()))
            state_.store (kDone);
    }
    audioInside_.store (false);
}

} // namespace sonotype::plugin
