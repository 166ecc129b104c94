// Session::run() is real-time safe: no heap allocation or free, no mutex, on real models.
#include "engine/CpuDispatch.h"
#include "engine/Session.h"
#include "support/AllocationCounter.h"
#include "support/Fixtures.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace sonotype;
using namespace sonotype::testing;

TEST_CASE ("the allocation counter sees allocations and locks", "[realtime]")
{
    // The counter must be able to fail: prove it notices what it is meant to catch.
    ScopedAllocationCounter counter;
    auto* vector = new std::vector<float> (100);
    delete vector;
    CHECK (counter.counts().allocations >= 2);
    CHECK (counter.counts().frees >= 2);
}

// On the kernel path in effect: CMake runs this test once more per lower path (SONOTYPE_KERNELS).
TEST_CASE ("Session::run makes no allocations and takes no locks", "[realtime][fixtures]")
{
    // The built-in model for its convolutions (BatchNorm and ReLU fused), pooling and attention.
    // recurrent_tagger: GRU and LSTM (the rnn op's products and fused cells); waveform_classifier: the
    // stft (reflect pad, FFT), complex_abs and log10.
    const auto path = GENERATE (fixturePath ("seed000.safetensors"), fixturePath ("large_transformer.safetensors"), fixturePath ("recurrent_tagger.safetensors"),
                                fixturePath ("waveform_classifier.safetensors"),
                                std::string (SONOTYPE_SOURCE_DIR) + "/Resources/models/default.safetensors");
    INFO (path << " on the " << engine::activeKernelPath().name << " kernels");
    engine::Session session (engine::Model::load (path));
    auto input = session.input();
    for (std::size_t i = 0; i < input.size(); ++i)
        input[i] = static_cast<float> ((i * 7919) % 1000) / 500.0f - 1.0f;

    ScopedAllocationCounter counter; // from the very first run: no lazy initialisation either
    for (int i = 0; i < 20; ++i)
        session.run();
    const auto counts = counter.counts();
    CHECK (counts.allocations == 0);
    CHECK (counts.frees == 0);
    CHECK (counts.locks == 0);
}
