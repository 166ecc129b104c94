// The streaming runtime's inlet: where the audio thread's blocks go in. It downmixes each block to
// mono and writes it into a lock-free FIFO for the analysis worker; what the FIFO cannot take is
// dropped, counted, and announced to the worker as a gap (so the worker keeps the host's timeline).
//
// Threading contract
// - Audio thread: push() and written() only. Never blocks, allocates, locks or makes a system
//   call; O(numChannels * numSamples). The one exception is non-real-time mode (the facade's flag,
//   read here): push() then sleeps in short steps until the worker makes room in the FIFO.
// - Analysis worker (the FIFO's and the gap ring's one consumer): available(), read(), peekGap(),
//   takeGap().
// - Control thread, while neither of the others runs (StreamingRuntime::prepare()): prepare(),
//   which allocates the FIFO and the gap ring.
// - Any thread: overruns() and pushedSamples() (atomics, written by the audio thread only).
// Shared: the samples (SpscFifo) and the gaps (SpscRing<Gap>), audio thread -> worker, both
// lock-free; two counters (atomics). Everything else here belongs to the audio thread.
#pragma once

#include "runtime/SpscFifo.h"

#include <atomic>
#include <cstdint>
#include <memory>

namespace sonotype::runtime
{

class AudioInlet
{
public:
    /** Samples the audio thread dropped, after `at` samples written to the FIFO. */
    struct Gap
    {
        int64_t at = 0, count = 0;
    };

    /** `waitForRoom`: non-real-time mode (push() waits for room instead of dropping);
        `consumerRunning`: whether the worker still runs (else nobody makes room: no waiting). */
    AudioInlet (const std::atomic<bool>& waitForRoom, const std::atomic<bool>& consumerRunning) noexcept
        : waitForRoom_ (waitForRoom), consumerRunning_ (consumerRunning)
    {
    }

    /** Control thread, while neither the audio thread nor the worker runs: an empty FIFO of
        `fifoCapacity` samples and gap ring; the audio thread's counts start again from 0. */
    void prepare (std::size_t fifoCapacity);

    /** Audio thread: copies a block (any channel count, any length) in. Never blocks, allocates or
        makes a system call; O(numChannels * numSamples). In non-real-time mode it waits for room
        in the FIFO instead of dropping samples. Call only after prepare(). */
    void push (const float* const* channels, int numChannels, int numSamples) noexcept;

    /** Audio thread: samples written to the FIFO since prepare() (dropped ones not included). */
    int64_t written() const noexcept { return written_; }

    // ----- the analysis worker (the consumer) --------------------------------------------------
    std::size_t available() const noexcept { return fifo_->available(); }
    std::size_t read (float* destination, std::size_t count) noexcept { return fifo_->read (destination, count); }
    /** The oldest gap not taken yet, if any. */
    bool peekGap (Gap& gap) const noexcept { return gaps_->peek (gap); }
    void takeGap() noexcept
    {
        Gap gap;
        gaps_->read (&gap, 1);
    }

    // ----- any thread ----------------------------------------------------------------------------
    /** Samples dropped because the FIFO was full, since the runtime was made. */
    int64_t overruns() const noexcept { return fifoOverruns_.load (std::memory_order_relaxed); }
    /** Host-rate samples pushed since prepare(), dropped ones included. */
    int64_t pushedSamples() const noexcept { return pushedSamples_.load (std::memory_order_relaxed); }

private:
    const std::atomic<bool>& waitForRoom_;
    const std::atomic<bool>& consumerRunning_;

    // Rebuilt by prepare().
    std::unique_ptr<SpscFifo> fifo_;
    std::unique_ptr<SpscRing<Gap>> gaps_; // audio thread -> worker: where samples were dropped

    // The audio thread's own.
    int64_t written_ = 0; // samples written to the FIFO since prepare()
    Gap unsentGap_;       // a gap not handed to the worker yet
    float downmix_[512] {};

    std::atomic<int64_t> fifoOverruns_ { 0 }, pushedSamples_ { 0 };
};

} // namespace sonotype::runtime
