#include "runtime/LiveHits.h"

#include <algorithm>
#include <cmath>

namespace sonotype::runtime
{

LiveHits::LiveHits (std::shared_ptr<const LiveHitClassifier> classifier, double sampleRate, const dsp::OnsetSettings& onsets, double afterSeconds)
    : classifier_ (std::move (classifier)), rate_ (sampleRate), detector_ (sampleRate, onsets), signature_ (sampleRate, afterSeconds),
      latency_ (std::max<int64_t> (detector_.latencySamples(), signature_.samplesAfter()))
{
    // The ring holds a pending hit's whole span: its background and pre-roll, and everything up to
    // the detector's report and the chunk in which it came.
    const auto needed = static_cast<std::size_t> (signature_.samplesBefore() + latency_) + kChunk + 1;
    std::size_t size = 1;
    while (size < needed)
        size *= 2;
    ring_.assign (size, 0.0f);
    mask_ = size - 1;
    found_.resize (detector_.maxOnsets (kChunk) + 1); // (a chunk may reach the detector in two parts, at the ring's end)
    span_.resize (static_cast<std::size_t> (signature_.samplesBefore() + signature_.samplesAfter()));
    if (classifier_ != nullptr)
        probabilities_.resize (static_cast<std::size_t> (classifier_->numLabels()));
}

int64_t LiveHits::latencySamples (double sampleRate, double afterSeconds) noexcept
{
    const auto after = std::max<int64_t> (1, std::llround (afterSeconds * sampleRate));
    return std::max (dsp::QuickOnsetDetector::latencySamples (sampleRate), after);
}

std::size_t LiveHits::maxHits (std::size_t numSamples) const noexcept
{
    return detector_.maxOnsets (numSamples) + kMaxPending;
}

void LiveHits::reset() noexcept
{
    detector_.reset();
    std::fill (ring_.begin(), ring_.end(), 0.0f);
    written_ = 0;
    numPending_ = 0;
}

std::size_t LiveHits::push (const float* samples, std::size_t numSamples, LiveHit* out, std::size_t capacity) noexcept
{
    std::size_t count = 0;
    for (std::size_t start = 0; start < numSamples; start += kChunk)
    {
        const auto n = std::min (kChunk, numSamples - start);
        for (std::size_t i = 0; i < n; ++i)
        {
            const float x = samples[start + i];
            ring_[static_cast<std::size_t> (written_ + static_cast<int64_t> (i)) & mask_] = std::isfinite (x) ? x : 0.0f;
        }
        // The detector reads the cleaned samples, from the ring (a chunk never wraps past what it holds).
        const auto first = static_cast<std::size_t> (written_) & mask_;
        const auto firstPart = std::min (n, ring_.size() - first);
        auto found = detector_.push (ring_.data() + first, firstPart, found_.data(), found_.size());
        found += detector_.push (ring_.data(), n - firstPart, found_.data() + found, found_.size() - found);
        written_ += static_cast<int64_t> (n);
        for (std::size_t i = 0; i < found && numPending_ < kMaxPending; ++i)
            pending_[numPending_++] = found_[i];
        settle (written_, out, capacity, count);
    }
    return count;
}

std::size_t LiveHits::finish (LiveHit* out, std::size_t capacity) noexcept
{
    // The spans still to come are silence: as many zeros as the last pending hit needs.
    std::size_t count = 0;
    const float zeros[kChunk] = {};
    while (numPending_ > 0)
    {
        const auto room = capacity - count;
        count += push (zeros, kChunk, out + count, room);
    }
    return count;
}

void LiveHits::settle (int64_t available, LiveHit* out, std::size_t capacity, std::size_t& count) noexcept
{
    std::size_t kept = 0;
    for (std::size_t i = 0; i < numPending_; ++i)
    {
        const auto onset = pending_[i];
        if (onset + signature_.samplesAfter() > available)
        {
            pending_[kept++] = onset;
            continue;
        }
        if (count < capacity)
            take (onset, out[count++]);
    }
    numPending_ = kept;
}

void LiveHits::take (int64_t onset, LiveHit& hit) noexcept
{
    const int64_t from = onset - signature_.samplesBefore();
    for (std::size_t i = 0; i < span_.size(); ++i)
    {
        const auto position = from + static_cast<int64_t> (i);
        span_[i] = position < 0 ? 0.0f : ring_[static_cast<std::size_t> (position) & mask_];
    }
    hit.onset = onset;
    signature_.compute (span_.data(), hit.signature);
    float peak = 0.0f;
    for (auto i = static_cast<std::size_t> (signature_.samplesBefore()); i < span_.size(); ++i)
        peak = std::max (peak, std::abs (span_[i]));
    hit.levelDb = peak > 0.0f ? 20.0f * std::log10 (peak) : -200.0f;
    hit.label = -1;
    hit.confidence = 0.0f;
    if (classifier_ != nullptr)
    {
        hit.label = classifier_->classify (hit.signature, probabilities_);
        hit.confidence = hit.label >= 0 ? probabilities_[static_cast<std::size_t> (hit.label)] : 0.0f;
    }
}

} // namespace sonotype::runtime
