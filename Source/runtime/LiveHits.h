// The live per-hit mode over a mono stream: a low-latency onset detector (dsp::QuickOnsetDetector)
// finds each hit a few milliseconds after it starts, its signature (dsp::HitSignature) is taken as
// soon as the first milliseconds of the hit have arrived, and the kit's classifier
// (LiveHitClassifier) names it: a hit is reported latencySamples() after its onset, about 10 ms
// at most, so that the plugin can report that latency and a drummer plays through it. The plugin
// runs it on the audio thread; `classify --onsets --response live` over a file, with the same hits
// and classes; teaching (teach::Lesson) runs it without a classifier, for the signatures.
//
// Streaming, any block sizes (the same hits for any split). The velocity's level is the peak of
// the hit's first milliseconds (the span the signature reads after the onset), not the 50 ms the
// exact mode looks at: the live note cannot wait for it.
// Allocates in its constructor only: push() and reset() take no lock and allocate nothing. One
// thread at a time.
#pragma once

#include "dsp/HitSignature.h"
#include "dsp/OnsetDetector.h"
#include "dsp/QuickOnsetDetector.h"
#include "runtime/LiveHitClassifier.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace sonotype::runtime
{

struct LiveHit
{
    int64_t onset = 0; // input sample of the onset, since the start or reset()
    int label = -1;    // the model's label index, -1: unknown (or no classifier)
    float confidence = 0.0f;
    float levelDb = -200.0f; // the peak of the span after the onset the signature reads, dBFS
    dsp::HitSignature::Values signature {};
};

class LiveHits
{
public:
    /** `classifier` null: hits are found and their signatures taken, not classified (teaching).
        Throws std::invalid_argument for a rate or onset settings the detector refuses, or a span
        the signature refuses. */
    LiveHits (std::shared_ptr<const LiveHitClassifier> classifier, double sampleRate, const dsp::OnsetSettings& onsets,
              double afterSeconds = dsp::HitSignature::kDefaultAfterSeconds);

    /** Feeds samples (NaN and infinity become 0); writes the hits known now into out[0, capacity)
        and returns how many (with capacity >= maxHits (numSamples) none is lost). No allocation,
        no lock. */
    std::size_t push (const float* samples, std::size_t numSamples, LiveHit* out, std::size_t capacity) noexcept;
    /** The hits still pending at the stream's end (their span padded with silence). */
    std::size_t finish (LiveHit* out, std::size_t capacity) noexcept;
    /** The most hits one push of numSamples can report. */
    std::size_t maxHits (std::size_t numSamples) const noexcept;
    /** A new stream from sample 0. No allocation. */
    void reset() noexcept;

    /** A hit is reported by the push that brings the input to its onset + latencySamples(). */
    int64_t latencySamples() const noexcept { return latency_; }
    /** The same, without making one. */
    static int64_t latencySamples (double sampleRate, double afterSeconds = dsp::HitSignature::kDefaultAfterSeconds) noexcept;
    double sampleRate() const noexcept { return rate_; }
    const LiveHitClassifier* classifier() const noexcept { return classifier_.get(); }

private:
    static constexpr std::size_t kChunk = 256;     // the detector and the ring take the input in steps of at most this
    static constexpr std::size_t kMaxPending = 64; // onsets found whose span has not all arrived
    void settle (int64_t available, LiveHit* out, std::size_t capacity, std::size_t& count) noexcept;
    void take (int64_t onset, LiveHit& hit) noexcept;

    std::shared_ptr<const LiveHitClassifier> classifier_;
    double rate_;
    dsp::QuickOnsetDetector detector_;
    dsp::HitSignature signature_;
    int64_t latency_;
    std::vector<float> ring_; // the last ring_.size() samples (a power of two), zeros before the stream
    std::size_t mask_ = 0;
    int64_t written_ = 0; // samples pushed since the start
    std::array<int64_t, kMaxPending> pending_ {};
    std::size_t numPending_ = 0;
    std::vector<int64_t> found_;       // the detector's output for one chunk
    std::vector<float> span_;          // one hit's samples, for the signature
    std::vector<float> probabilities_; // one hit's, over the model's labels
};

} // namespace sonotype::runtime
