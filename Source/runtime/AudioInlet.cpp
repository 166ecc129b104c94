#include "runtime/AudioInlet.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <thread>

namespace sonotype::runtime
{

void AudioInlet::prepare (std::size_t fifoCapacity)
{
    pushedSamples_.store (0, std::memory_order_relaxed);
    fifo_ = std::make_unique<SpscFifo> (fifoCapacity);
    gaps_ = std::make_unique<SpscRing<Gap>> (256);
    written_ = 0;
    unsentGap_ = {};
}

void AudioInlet::push (const float* const* channels, int numChannels, int numSamples) noexcept
{
    if (numChannels <= 0 || numSamples <= 0)
        return;
    const float scale = 1.0f / static_cast<float> (numChannels);
    for (int offset = 0; offset < numSamples; offset += static_cast<int> (std::size (downmix_)))
    {
        const int count = std::min (numSamples - offset, static_cast<int> (std::size (downmix_)));
        for (int i = 0; i < count; ++i)
        {
            float sum = 0.0f;
            for (int c = 0; c < numChannels; ++c)
                sum += channels[c] != nullptr ? channels[c][offset + i] : 0.0f;
            downmix_[i] = sum * scale;
        }
        // A gap goes to the worker before the samples that follow it (if its ring is full, the
        // worker meets it a little late: it then counts from where it is).
        if (unsentGap_.count > 0 && gaps_->write (&unsentGap_, 1) == 1)
            unsentGap_ = {};
        auto written = static_cast<int64_t> (fifo_->write (downmix_, static_cast<std::size_t> (count)));
        if (written < count && waitForRoom_.load (std::memory_order_acquire))
        {
            // Offline: wait for the worker to make room (a stalled worker: drop after a while).
            auto lastProgress = std::chrono::steady_clock::now();
            while (written < count && consumerRunning_.load (std::memory_order_acquire)
                   && std::chrono::steady_clock::now() - lastProgress < std::chrono::seconds (10))
            {
                std::this_thread::sleep_for (std::chrono::microseconds (50));
                const auto more = static_cast<int64_t> (fifo_->write (downmix_ + written, static_cast<std::size_t> (count - written)));
                if (more > 0)
                    lastProgress = std::chrono::steady_clock::now();
                written += more;
            }
        }
        written_ += written;
        if (written < count)
        {
            // Dropped: the worker will count them as time that passed, so the timeline stays the host's.
            const int64_t dropped = count - written;
            fifoOverruns_.fetch_add (dropped, std::memory_order_relaxed);
            if (unsentGap_.count == 0)
                unsentGap_.at = written_;
            unsentGap_.count += dropped;
        }
    }
    if (unsentGap_.count > 0 && gaps_->write (&unsentGap_, 1) == 1)
        unsentGap_ = {};
    // One writer: a plain load and store, no read-modify-write needed.
    pushedSamples_.store (pushedSamples_.load (std::memory_order_relaxed) + numSamples, std::memory_order_relaxed);
}

} // namespace sonotype::runtime
