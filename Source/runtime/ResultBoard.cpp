#include "runtime/ResultBoard.h"

#include <algorithm>
#include <thread>

namespace sonotype::runtime
{

ResultBoard::ResultBoard (int numClasses, std::size_t capacity) : numClasses_ (numClasses), slots_ (std::max<std::size_t> (capacity, 2))
{
    for (auto& slot : slots_)
    {
        slot.probabilities = std::make_unique<std::atomic<float>[]> (static_cast<std::size_t> (numClasses));
        for (int c = 0; c < numClasses; ++c)
            slot.probabilities[static_cast<std::size_t> (c)].store (0.0f, std::memory_order_relaxed);
    }
}

void ResultBoard::publish (const WindowResult& result) noexcept
{
    const auto index = published_.load (std::memory_order_relaxed);
    auto& slot = slots_[index % slots_.size()];
    const auto sequence = slot.sequence.load (std::memory_order_relaxed);
    // Seqlock without fences (which ThreadSanitizer cannot check): the data is stored with release
    // and loaded with acquire, so a reader that sees any new field also sees the odd sequence.
    slot.sequence.store (sequence + 1, std::memory_order_relaxed);
    slot.windowIndex.store (result.windowIndex, std::memory_order_release);
    slot.readySample.store (result.readySample, std::memory_order_release);
    slot.startSeconds.store (result.startSeconds, std::memory_order_release);
    slot.endSeconds.store (result.endSeconds, std::memory_order_release);
    slot.inferenceMs.store (result.inferenceMs, std::memory_order_release);
    slot.topClass.store (result.topClass, std::memory_order_release);
    slot.confidence.store (result.confidence, std::memory_order_release);
    const auto count = std::min (static_cast<std::size_t> (numClasses_), result.probabilities.size());
    for (std::size_t c = 0; c < count; ++c)
        slot.probabilities[c].store (result.probabilities[c], std::memory_order_release);
    slot.sequence.store (sequence + 2, std::memory_order_release);
    published_.store (index + 1, std::memory_order_release);
}

bool ResultBoard::read (const Slot& slot, WindowResult& out) const
{
    out.probabilities.resize (static_cast<std::size_t> (numClasses_));
    for (int attempt = 0;; ++attempt)
    {
        const auto before = slot.sequence.load (std::memory_order_acquire);
        if (before == 0)
            return false;
        if ((before & 1u) == 0)
        {
            out.windowIndex = slot.windowIndex.load (std::memory_order_acquire);
            out.readySample = slot.readySample.load (std::memory_order_acquire);
            out.startSeconds = slot.startSeconds.load (std::memory_order_acquire);
            out.endSeconds = slot.endSeconds.load (std::memory_order_acquire);
            out.inferenceMs = slot.inferenceMs.load (std::memory_order_acquire);
            out.topClass = slot.topClass.load (std::memory_order_acquire);
            out.confidence = slot.confidence.load (std::memory_order_acquire);
            for (std::size_t c = 0; c < out.probabilities.size(); ++c)
                out.probabilities[c] = slot.probabilities[c].load (std::memory_order_acquire);
            if (slot.sequence.load (std::memory_order_relaxed) == before)
                return true;
        }
        if (attempt > 64)
            std::this_thread::yield(); // a reader may wait for the writer, never the reverse
    }
}

bool ResultBoard::latest (WindowResult& out) const
{
    const auto count = published_.load (std::memory_order_acquire);
    return count > 0 && read (slots_[(count - 1) % slots_.size()], out);
}

std::vector<WindowResult> ResultBoard::history (std::size_t maxCount) const
{
    const auto count = published_.load (std::memory_order_acquire);
    const auto available = std::min<uint64_t> ({ count, static_cast<uint64_t> (maxCount), static_cast<uint64_t> (slots_.size() - 1) });
    std::vector<WindowResult> results;
    results.reserve (static_cast<std::size_t> (available));
    for (uint64_t i = count - available; i < count; ++i)
    {
        WindowResult result;
        if (read (slots_[i % slots_.size()], result))
            results.push_back (std::move (result));
    }
    // A slot overwritten while we copied holds a newer window: keep the list in window order.
    std::stable_sort (results.begin(), results.end(), [] (const WindowResult& a, const WindowResult& b) { return a.windowIndex < b.windowIndex; });
    return results;
}

} // namespace sonotype::runtime
