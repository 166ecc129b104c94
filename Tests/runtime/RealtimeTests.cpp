// The audio thread's side of the runtime is real-time safe: no allocation, free or lock in push().
#include "runtime/StreamingRuntime.h"
#include "support/AllocationCounter.h"
#include "support/Fixtures.h"

#include <catch2/catch.hpp>

#include <random>

using namespace sonotype;
using namespace sonotype::runtime;
using namespace sonotype::testing;

TEST_CASE ("push is real-time safe for any block size and channel count", "[runtime][realtime]")
{
    StreamingRuntime runtime (engine::Model::load (fixturePath ("tiny_classifier.safetensors")), {}, std::make_unique<StdWorkerThread>());
    runtime.prepare (48000.0);
    std::vector<std::vector<float>> buffers (8, std::vector<float> (16384, 0.1f));
    const float* channels[8];
    for (int c = 0; c < 8; ++c)
        channels[c] = buffers[static_cast<std::size_t> (c)].data();
    std::mt19937 random (7);
    std::vector<int> sizes (100000);
    for (auto& size : sizes)
        size = std::uniform_int_distribution<int> (1, 512) (random);
    sizes[10] = 16384;
    sizes[20] = 1;

    AllocationCounts counts;
    {
        ScopedAllocationCounter counter;
        for (std::size_t i = 0; i < sizes.size(); ++i)
            runtime.push (channels, 1 + static_cast<int> (i % 8), sizes[i]);
        counts = counter.counts();
    }
    CHECK (counts.allocations == 0);
    CHECK (counts.frees == 0);
    CHECK (counts.locks == 0);
}
