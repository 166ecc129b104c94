// dsp::QuickOnsetDetector on the audio thread: after its constructor, push() (any block sizes, onsets
// reported) and reset() allocate, free and lock nothing.
#include "QuickOnsetSignals.h"
#include "support/AllocationCounter.h"

#include <catch2/catch.hpp>

#include <limits>

using namespace sonotype;
using namespace sonotype::testing;

TEST_CASE ("quick onsets: push and reset allocate and lock nothing", "[dsp][onsets][quick][realtime]")
{
    const double rate = 48000.0;
    std::mt19937 random (4);
    auto samples = noiseAt (rate, 10.0, -60.0, 5);
    for (int64_t at = 4800; at < static_cast<int64_t> (samples.size()) - 48000; at += 9000)
        addPiece (samples, rate, at, static_cast<Piece> ((at / 9000) % 4), -12.0, random, 120.0);
    samples[100000] = std::numeric_limits<float>::quiet_NaN(); // a broken host's sample is read as silence
    dsp::QuickOnsetDetector detector (rate);
    std::vector<int64_t> out (detector.maxOnsets (4096));
    std::uniform_int_distribution<std::size_t> size (1, 4096);
    std::size_t found = 0;
    AllocationCounts counts;
    {
        ScopedAllocationCounter counter;
        for (int pass = 0; pass < 2; ++pass)
        {
            for (std::size_t i = 0; i < samples.size();)
            {
                const auto block = std::min (size (random), samples.size() - i);
                found += detector.push (samples.data() + i, block, out.data(), out.size());
                i += block;
            }
            detector.reset();
        }
        counts = counter.counts();
    }
    CHECK (found >= 2 * 40);
    CHECK (counts.allocations == 0);
    CHECK (counts.frees == 0);
    CHECK (counts.locks == 0);
}
