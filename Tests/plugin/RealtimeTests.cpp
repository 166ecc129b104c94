// processBlock() is real-time safe: across 10^5 blocks of random size and channel count, with the
// worker busy and MIDI notes coming back, the audio thread allocates, frees and locks nothing; in
// the per-hit mode too (its notes, its pass-through delay).
#include "plugin/PluginParameters.h"
#include "plugin/ProcessorDriver.h"
#include "support/AllocationCounter.h"
#include "support/EncodedAudio.h"
#include "support/ExampleClips.h"
#include "support/Fixtures.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** processBlock, adding what it allocated, freed and locked (on this thread) to `counts`. */
void processCounted (plugin::SonotypeProcessor& processor, juce::AudioBuffer<float>& buffer, juce::MidiBuffer& midi, AllocationCounts& counts)
{
    ScopedAllocationCounter counter;
    processor.processBlock (buffer, midi);
    const auto c = counter.counts();
    counts.allocations += c.allocations;
    counts.frees += c.frees;
    counts.locks += c.locks;
}
/** Sets `buffer` to n samples on 2 channels: `signal` from `position` on, looped. */
void fillLooped (juce::AudioBuffer<float>& buffer, int n, const std::vector<float>& signal, int64_t position)
{
    buffer.setSize (2, n, false, false, true);
    for (int c = 0; c < 2; ++c)
        for (int i = 0; i < n; ++i)
            buffer.setSample (c, i, signal[static_cast<std::size_t> ((position + i) % static_cast<int64_t> (signal.size()))]);
}
} // namespace

TEST_CASE ("processBlock allocates, frees and locks nothing over 1e5 blocks", "[plugin][realtime]")
{
    TestProcessor processor;
    auto* threshold = processor.parameters.getParameter (plugin::ParameterIds::threshold);
    threshold->setValueNotifyingHost (threshold->convertTo0to1 (30.0f));
    constexpr double rate = 48000.0;
    constexpr int maxBlock = 1024;
    processor.setPlayConfigDetails (2, 2, rate, maxBlock);
    processor.prepareToPlay (rate, maxBlock);

    // Alternating clips so that notes start and stop while we count.
    const auto signal = exampleSequence ({ "drums", "speech", "piano", "noise" }, rate, 1);
    juce::AudioBuffer<float> buffer (2, maxBlock);
    juce::MidiBuffer midi;
    midi.ensureSize (4096); // hosts hand plugins a MIDI buffer with room reserved
    std::mt19937 random (11);
    std::vector<int> sizes (100000);
    for (auto& size : sizes)
        size = std::uniform_int_distribution<int> (1, 256) (random);
    sizes[100] = maxBlock;

    AllocationCounts counts;
    int64_t midiEvents = 0, position = 0, sincePause = 0;
    for (std::size_t block = 0; block < sizes.size(); ++block)
    {
        const int n = sizes[block];
        fillLooped (buffer, n, signal, position);
        midi.clear();
        processCounted (processor, buffer, midi, counts);
        midiEvents += midi.getNumEvents();
        position += n;
        sincePause += n;
        if (sincePause > static_cast<int64_t> (rate / 4)) // let the worker analyze every window (one per hop)
        {
            REQUIRE (ProcessorDriver::waitForAnalysis (processor));
            sincePause = 0;
        }
    }
    processor.releaseResources();
    CHECK (counts.allocations == 0);
    CHECK (counts.frees == 0);
    CHECK (counts.locks == 0);
    INFO ("MIDI events during the counted blocks: " << midiEvents);
    // Notes really came back through the queue while counting: the four clips take turns every
    // 2 s over ~270 s of audio, and each turn gives a note (on and off events).
    CHECK (midiEvents >= 100);
}

TEST_CASE ("offline, processBlock waits for the worker but allocates and frees nothing", "[plugin][realtime][offline]")
{
    TestProcessor processor;
    processor.setNonRealtime (true);
    auto* threshold = processor.parameters.getParameter (plugin::ParameterIds::threshold);
    threshold->setValueNotifyingHost (threshold->convertTo0to1 (30.0f)); // a note for each clip, piano too
    constexpr double rate = 48000.0;
    processor.setPlayConfigDetails (2, 2, rate, 1024);
    processor.prepareToPlay (rate, 1024);
    const auto signal = exampleSequence ({ "drums", "speech", "piano", "noise" }, rate, 2); // 16 s
    juce::AudioBuffer<float> buffer (2, 1024);
    juce::MidiBuffer midi;
    midi.ensureSize (4096);
    std::mt19937 random (3);
    AllocationCounts counts;
    int64_t midiEvents = 0;
    for (std::size_t position = 0; position < signal.size();)
    {
        const int n = static_cast<int> (std::min<std::size_t> (std::uniform_int_distribution<std::size_t> (1, 1024) (random), signal.size() - position));
        buffer.setSize (2, n, false, false, true);
        for (int c = 0; c < 2; ++c)
            std::copy_n (signal.data() + position, n, buffer.getWritePointer (c));
        midi.clear();
        processCounted (processor, buffer, midi, counts);
        midiEvents += midi.getNumEvents();
        position += static_cast<std::size_t> (n);
    }
    const auto stats = processor.analysis().stats();
    processor.releaseResources();
    CHECK (counts.allocations == 0);
    CHECK (counts.frees == 0);
    CHECK (stats.windowsSkipped == 0); // every window analyzed, with no pause in the test
    CHECK (stats.windowsRun >= 60);
    CHECK (midiEvents >= 8);
}

TEST_CASE ("recording an example from the input and running taught classes allocate and lock nothing on the audio thread", "[plugin][realtime][teach]")
{
    TestProcessor processor;
    constexpr double rate = 44100.0;
    processor.setPlayConfigDetails (2, 2, rate, 512);
    processor.prepareToPlay (rate, 512);
    auto& teach = processor.teaching();
    REQUIRE (teach.addClass ("beat").isEmpty());
    REQUIRE (teach.addClass ("talk").isEmpty());
    const auto signal = exampleSequence ({ "drums", "speech" }, rate, 2);
    juce::AudioBuffer<float> buffer (2, 512);
    juce::MidiBuffer midi;
    midi.ensureSize (4096);
    std::mt19937 random (5);
    AllocationCounts counts;
    int recordings = 0;
    for (std::size_t position = 0, block = 0; block < 20000; ++block)
    {
        // Between blocks, as the message thread would: record half a second, give it to a class
        // (the model service learns and swaps the taught model in while audio runs).
        if (block % 500 == 0 && ! processor.recorder().isRecording())
            processor.recorder().start (0.5, rate);
        if (auto recorded = processor.recorder().take(); ! recorded.empty())
            REQUIRE (teach.addSound (recordings++ % 2, recorded, rate, "input").isEmpty());
        const int n = std::uniform_int_distribution<int> (1, 512) (random);
        buffer.setSize (2, n, false, false, true);
        for (int c = 0; c < 2; ++c)
            for (int i = 0; i < n; ++i)
                buffer.setSample (c, i, signal[(position + static_cast<std::size_t> (i)) % signal.size()]);
        midi.clear();
        processCounted (processor, buffer, midi, counts);
        position += static_cast<std::size_t> (n);
        if (block % 200 == 0)
            REQUIRE (ProcessorDriver::waitForAnalysis (processor));
    }
    processor.releaseResources();
    CHECK (recordings >= 20);
    CHECK (teach.waitUntilIdle (10000));
    CHECK (teach.isRunningTaught());
    CHECK (counts.allocations == 0);
    CHECK (counts.frees == 0);
    CHECK (counts.locks == 0);
}

TEST_CASE ("per-hit mode: processBlock allocates, frees and locks nothing, live or offline, while notes go out and settings change", "[plugin][realtime][hits]")
{
    const bool offline = GENERATE (false, true);
    INFO ((offline ? "offline" : "real time"));
    TestProcessor processor;
    auto set = [&] (const char* id, float value) {
        auto* parameter = processor.parameters.getParameter (id);
        parameter->setValueNotifyingHost (parameter->convertTo0to1 (value));
        processor.applyAnalysisParameters(); // as the timer would, between two blocks
    };
    set (plugin::ParameterIds::hitMode, 1.0f);
    processor.setNonRealtime (offline);
    constexpr double rate = 44100.0;
    constexpr int maxBlock = 1024;
    processor.setPlayConfigDetails (2, 2, rate, maxBlock);
    processor.prepareToPlay (rate, maxBlock);
    REQUIRE (processor.getLatencySamples() > 0);

    // The drum pattern (the fixture step renders it), played over and over.
    formats::AudioFileReader reader (fixturePath ("kit/pattern.wav"));
    const auto signal = readAll (reader);
    REQUIRE (signal.size() > 44100);
    juce::AudioBuffer<float> buffer (2, maxBlock);
    juce::MidiBuffer midi;
    midi.ensureSize (4096);
    std::mt19937 random (13);
    AllocationCounts counts;
    int64_t notes = 0, position = 0, sincePause = 0;
    const int blocks = offline ? 20000 : 50000;
    for (int block = 0; block < blocks; ++block)
    {
        if (block == blocks / 3)
            set (plugin::ParameterIds::onsetThreshold, 2.0f); // a new detector on the worker
        if (block == blocks / 2)
            set (plugin::ParameterIds::hitMode, 0.0f); // the windows' notes, no latency
        if (block == 2 * blocks / 3)
            set (plugin::ParameterIds::hitMode, 1.0f);
        const int n = block == 100 ? maxBlock : std::uniform_int_distribution<int> (1, 256) (random);
        fillLooped (buffer, n, signal, position);
        midi.clear();
        processCounted (processor, buffer, midi, counts);
        for (const auto metadata : midi)
            notes += metadata.getMessage().isNoteOn() ? 1 : 0;
        position += n;
        sincePause += n;
        if (! offline && sincePause > static_cast<int64_t> (rate / 20)) // live: let the worker keep up
        {
            REQUIRE (ProcessorDriver::waitForAnalysis (processor));
            sincePause = 0;
        }
    }
    const auto stats = processor.analysis().stats();
    processor.releaseResources();
    CHECK (counts.allocations == 0);
    CHECK (counts.frees == 0);
    if (! offline)
        CHECK (counts.locks == 0);
    INFO ("note-ons during the counted blocks: " << notes << ", hits " << stats.hits);
    CHECK (stats.hits >= 100);
    CHECK (notes >= 100);
}

TEST_CASE ("per-hit Live: the audio thread finds and names the hits, allocating, freeing and locking nothing, while the live path is swapped",
           "[plugin][realtime][hits][live]")
{
    TestProcessor processor;
    REQUIRE (teachFixtureKit (processor)); // the Teach view's kit carries the hits' signatures
    auto set = [&] (const char* id, float value) {
        auto* parameter = processor.parameters.getParameter (id);
        parameter->setValueNotifyingHost (parameter->convertTo0to1 (value));
        processor.applyAnalysisParameters(); // as the timer would, between two blocks: a new live path is published
    };
    constexpr double rate = 48000.0;
    constexpr int maxBlock = 1024;
    processor.setPlayConfigDetails (2, 2, rate, maxBlock);
    processor.prepareToPlay (rate, maxBlock);
    set (plugin::ParameterIds::hitMode, 1.0f);
    REQUIRE (processor.hitNotes().live() != nullptr);
    CHECK (processor.getLatencySamples() <= 480); // 10 ms at 48 kHz
    formats::AudioFileReader reader (fixturePath ("kit/pattern.wav"));
    const auto signal = readAll (reader);
    juce::AudioBuffer<float> buffer (2, maxBlock);
    juce::MidiBuffer midi;
    midi.ensureSize (4096);
    std::mt19937 random (17);
    AllocationCounts counts;
    int64_t notes = 0, position = 0;
    constexpr int blocks = 40000;
    for (int block = 0; block < blocks; ++block)
    {
        if (block == blocks / 4)
            set (plugin::ParameterIds::onsetThreshold, 1.5f); // a new live path
        if (block == blocks / 2)
            set (plugin::ParameterIds::hitResponse, 1.0f); // Exact: the worker's hits
        if (block == 3 * blocks / 4)
            set (plugin::ParameterIds::hitResponse, 0.0f); // Live again
        const int n = block == 100 ? maxBlock : std::uniform_int_distribution<int> (1, 256) (random);
        fillLooped (buffer, n, signal, position);
        midi.clear();
        processCounted (processor, buffer, midi, counts);
        for (const auto metadata : midi)
            notes += metadata.getMessage().isNoteOn() ? 1 : 0;
        position += n;
        if (block % 400 == 0) // the exact quarter: let the worker keep up
            REQUIRE (ProcessorDriver::waitForAnalysis (processor));
    }
    processor.releaseResources();
    CHECK (counts.allocations == 0);
    CHECK (counts.frees == 0);
    CHECK (counts.locks == 0);
    INFO ("note-ons: " << notes << ", live hits " << processor.hitNotes().liveHits());
    CHECK (processor.hitNotes().liveHits() >= 100);
    CHECK (notes >= 150);
}
