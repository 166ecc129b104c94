// The worker publishes window results here; any number of readers (GUI timers, OSC senders, tests)
// copy the newest one or the recent history, lock-free. Each slot of a fixed ring is a seqlock:
// the single writer never waits; a reader retries the rare copy that overlapped a write.
#pragma once

#include "runtime/WindowResult.h"

#include <atomic>
#include <memory>
#include <vector>

namespace sonotype::runtime
{

class ResultBoard
{
public:
    /** Allocates everything: numClasses probabilities in each of `capacity` slots. */
    ResultBoard (int numClasses, std::size_t capacity);

    /** Writer (one thread): publishes a result; no allocation, no locks. */
    void publish (const WindowResult& result) noexcept;

    /** Readers: the newest result; false when nothing has been published. */
    bool latest (WindowResult& out) const;
    /** Readers: up to `maxCount` newest results, oldest first. */
    std::vector<WindowResult> history (std::size_t maxCount) const;

    std::size_t capacity() const noexcept { return slots_.size(); }
    uint64_t numPublished() const noexcept { return published_.load (std::memory_order_acquire); }

private:
    struct Slot
    {
        std::atomic<uint64_t> sequence { 0 }; // odd while being written
        std::atomic<int64_t> windowIndex { -1 }, readySample { -1 };
        std::atomic<double> startSeconds { 0.0 }, endSeconds { 0.0 }, inferenceMs { 0.0 };
        std::atomic<int> topClass { -1 };
        std::atomic<float> confidence { 0.0f };
        std::unique_ptr<std::atomic<float>[]> probabilities;
    };
    bool read (const Slot& slot, WindowResult& out) const;

    int numClasses_;
    std::vector<Slot> slots_;
    std::atomic<uint64_t> published_ { 0 };
};

} // namespace sonotype::runtime
