// The plugin's processor: bit-exact pass-through, predictions and MIDI on known clips, parameters,
// state, model hot-swap, the class filter, bad input.
#include "plugin/PluginParameters.h"
#include "plugin/ProcessorDriver.h"
#include "resources/BuiltinModel.h"
#include "support/ExampleClips.h"
#include "support/Fixtures.h"
#include "teach/TaughtModel.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <numeric>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
void setParameter (plugin::SonotypeProcessor& processor, const char* id, float value)
{
    auto* parameter = processor.parameters.getParameter (id);
    parameter->setValueNotifyingHost (parameter->convertTo0to1 (value));
}

float parameterValue (plugin::SonotypeProcessor& processor, const char* id)
{
    return processor.parameters.getRawParameterValue (id)->load();
}

int labelIndex (const plugin::SonotypeProcessor& processor, const std::string& label)
{
    const auto labels = processor.analysis().labels();
    return static_cast<int> (std::find (labels.begin(), labels.end(), label) - labels.begin());
}

/** Note-ons in order (note numbers), from a driver's MIDI. */
std::vector<int> noteOns (const std::vector<TimedMidi>& midi)
{
    std::vector<int> notes;
    for (const auto& event : midi)
        if (event.message.isNoteOn())
            notes.push_back (event.message.getNoteNumber());
    return notes;
}
} // namespace

TEST_CASE ("audio passes through bit-exactly, in every supported layout and any block size", "[plugin]")
{
    const int channels = GENERATE (1, 2, 6);
    TestProcessor processor;
    juce::AudioProcessor::BusesLayout layout;
    layout.inputBuses.add (juce::AudioChannelSet::canonicalChannelSet (channels));
    layout.outputBuses.add (juce::AudioChannelSet::canonicalChannelSet (channels));
    REQUIRE (processor.setBusesLayout (layout));
    processor.prepareToPlay (44100.0, 1024);
    std::mt19937 random (static_cast<unsigned> (channels));
    std::normal_distribution<float> noise;
    juce::MidiBuffer midi;
    for (int block = 0; block < 300; ++block)
    {
        const int n = std::uniform_int_distribution<int> (1, 1024) (random);
        juce::AudioBuffer<float> buffer (channels, n), copy;
        for (int c = 0; c < channels; ++c)
            for (int i = 0; i < n; ++i)
                buffer.setSample (c, i, noise (random));
        if (block == 7)
            buffer.setSample (0, 0, std::nanf ("")); // even NaN passes through untouched (and is not analyzed as such)
        copy.makeCopyOf (buffer);
        processor.processBlock (buffer, midi);
        for (int c = 0; c < channels; ++c)
            REQUIRE (std::memcmp (buffer.getReadPointer (c), copy.getReadPointer (c), sizeof (float) * static_cast<std::size_t> (n)) == 0);
    }
    CHECK (processor.getLatencySamples() == 0);
    processor.releaseResources();
}

TEST_CASE ("bus layouts: 1 to 8 channels in, as many out", "[plugin]")
{
    TestProcessor processor;
    auto layout = [] (int in, int out) {
        juce::AudioProcessor::BusesLayout l;
        l.inputBuses.add (juce::AudioChannelSet::discreteChannels (in));
        l.outputBuses.add (juce::AudioChannelSet::discreteChannels (out));
        return l;
    };
    for (int n = 1; n <= 8; ++n)
        CHECK (processor.checkBusesLayoutSupported (layout (n, n)));
    CHECK_FALSE (processor.checkBusesLayoutSupported (layout (2, 1)));
    CHECK_FALSE (processor.checkBusesLayoutSupported (layout (9, 9)));
    // Every program has a name (Steinberg's VST3 validator rejects "Program 000: has no name").
    REQUIRE (processor.getNumPrograms() == 1);
    CHECK (processor.getProgramName (0).isNotEmpty());
}

TEST_CASE ("the built-in model names the example clips live, and MIDI notes follow the top class", "[plugin]")
{
    const double rate = GENERATE (44100.0, 48000.0);
    TestProcessor processor;
    setParameter (processor, plugin::ParameterIds::baseNote, 36.0f);
    ProcessorDriver driver (processor, rate, 2, 512);
    const int drums = labelIndex (processor, "drums"), speech = labelIndex (processor, "speech");

    driver.play (exampleSequence ({ "drums" }, rate, 2));
    auto snapshot = processor.snapshot();
    REQUIRE (snapshot.hasResult);
    CHECK (snapshot.info->labels[static_cast<std::size_t> (snapshot.topClass)] == "drums");
    CHECK_FALSE (snapshot.stale);

    driver.play (exampleSequence ({ "speech" }, rate, 2));
    snapshot = processor.snapshot();
    CHECK (snapshot.info->labels[static_cast<std::size_t> (snapshot.topClass)] == "speech");

    const auto notes = noteOns (driver.midi);
    REQUIRE (notes.size() >= 2);
    CHECK (notes.front() == 36 + drums);
    CHECK (notes.back() == 36 + speech);
    CHECK (notes.size() <= 4); // hysteresis: no machine-gunning within 8 s of two clips
    // Every note-on is closed before the next one starts.
    int open = -1;
    for (const auto& event : driver.midi)
    {
        if (event.message.isNoteOn())
        {
            CHECK (open == -1);
            open = event.message.getNoteNumber();
            CHECK (event.message.getVelocity() > 0);
        }
        else if (event.message.isNoteOff())
        {
            CHECK (event.message.getNoteNumber() == open);
            open = -1;
        }
    }
}

TEST_CASE ("MIDI off sends no notes and closes an open one, transport stop closes it too", "[plugin]")
{
    TestProcessor processor;
    ProcessorDriver driver (processor, 48000.0, 2, 256);
    driver.play (exampleSequence ({ "drums" }, 48000.0, 2));
    REQUIRE (noteOns (driver.midi).size() == 1);
    setParameter (processor, plugin::ParameterIds::midiOut, 0.0f);
    driver.play (exampleSequence ({ "drums", "speech" }, 48000.0, 1));
    CHECK (noteOns (driver.midi).size() == 1);
    REQUIRE (driver.midi.back().message.isNoteOff());

    // Transport: playing, then stopped, with a note open.
    struct PlayHead final : juce::AudioPlayHead
    {
        bool playing = true;
        juce::Optional<PositionInfo> getPosition() const override
        {
            PositionInfo info;
            info.setIsPlaying (playing);
            return info;
        }
    } playHead;
    setParameter (processor, plugin::ParameterIds::midiOut, 1.0f);
    processor.setPlayHead (&playHead);
    driver.play (exampleSequence ({ "drums" }, 48000.0, 2));
    REQUIRE (driver.midi.back().message.isNoteOn());
    playHead.playing = false;
    driver.play (std::vector<float> (256, 0.0f));
    CHECK (driver.midi.back().message.isNoteOff());
    processor.setPlayHead (nullptr);
}

TEST_CASE ("a class out of play gets 0, the answer is renormalised over the others, never its MIDI note", "[plugin]")
{
    TestProcessor processor;
    processor.setClassEnabled ("drums", false);
    ProcessorDriver driver (processor, 48000.0, 1, 512);
    driver.play (exampleSequence ({ "drums" }, 48000.0, 2));
    const auto snapshot = processor.snapshot();
    REQUIRE (snapshot.hasResult);
    CHECK (snapshot.info->labels[static_cast<std::size_t> (snapshot.topClass)] != "drums");
    // Out of play: 0, and the answer renormalised over the other classes.
    CHECK (snapshot.result.probabilities[static_cast<std::size_t> (labelIndex (processor, "drums"))] == 0.0f);
    CHECK (std::accumulate (snapshot.result.probabilities.begin(), snapshot.result.probabilities.end(), 0.0) == Approx (1.0).epsilon (1e-5));
    for (int note : noteOns (driver.midi))
        CHECK (note != 36 + labelIndex (processor, "drums"));
    CHECK_FALSE (processor.isClassEnabled ("drums"));
    CHECK (processor.isClassEnabled ("speech"));
}

TEST_CASE ("parameters reach the analysis: hop and smoothing re-configure the running worker", "[plugin]")
{
    TestProcessor processor;
    ProcessorDriver driver (processor, 48000.0, 2, 512);
    setParameter (processor, plugin::ParameterIds::hop, 0.5f);
    setParameter (processor, plugin::ParameterIds::smoothing, 0.0f);
    processor.applyAnalysisParameters();
    driver.play (exampleSequence ({ "piano" }, 48000.0, 2));
    const auto info = processor.analysis().info();
    CHECK (info->hopSeconds == Approx (0.5));
    CHECK (info->smoothingSeconds == 0.0);
    const auto history = processor.analysis().history (8);
    REQUIRE (history.size() >= 2);
    CHECK (history[1].startSeconds - history[0].startSeconds == Approx (0.5));
    auto* hop = processor.parameters.getParameter (plugin::ParameterIds::hop);
    CHECK (hop->getText (hop->getValue(), 20) == "500 ms");
}

TEST_CASE ("every update interval and smoothing a host or slider can set reaches the analysis as its exact 10 ms step", "[plugin]")
{
    // A host sends a normalised float; the parameter's float in seconds is a hair off the decimal
    // (0.25 may come back as 0.2499999851), and window times k * hop would print 13.249999 in an
    // export where `classify --hop 0.25` prints 13.250000.
    TestProcessor processor;
    auto* hop = processor.parameters.getParameter (plugin::ParameterIds::hop);
    auto* smoothing = processor.parameters.getParameter (plugin::ParameterIds::smoothing);
    int offGrid = 0;
    for (int ms = 50; ms <= 1000; ms += 10)
    {
        const double seconds = ms / 1000.0;
        hop->setValueNotifyingHost (hop->convertTo0to1 (static_cast<float> (seconds)));
        smoothing->setValueNotifyingHost (smoothing->convertTo0to1 (static_cast<float> (seconds)));
        offGrid += static_cast<double> (processor.parameters.getRawParameterValue (plugin::ParameterIds::hop)->load()) != seconds ? 1 : 0;
        processor.applyAnalysisParameters();
        const auto info = processor.analysis().info();
        INFO (ms << " ms");
        CHECK (info->hopSeconds == seconds);
        CHECK (info->smoothingSeconds == seconds);
    }
    CHECK (offGrid > 0); // (the parameter's own floats are off the grid: what this test is about)
}

TEST_CASE ("a model can be swapped while audio runs, a bad file keeps the running model", "[plugin]")
{
    TestProcessor processor;
    ProcessorDriver driver (processor, 48000.0, 2, 512);
    driver.play (exampleSequence ({ "drums" }, 48000.0, 1));
    const auto before = processor.analysis().info()->generation;

    const auto bad = juce::File::createTempFile ("safetensors");
    bad.replaceWithText ("this is not a model");
    CHECK_FALSE (loadModel (processor, bad));
    CHECK (processor.statusIsError());
    CHECK (processor.statusMessage().contains (bad.getFileName()));
    CHECK (processor.analysis().info()->generation == before);
    CHECK (processor.modelDescription().builtin);
    CHECK_FALSE (loadModel (processor, juce::File ("/no/such/model.safetensors")));
    bad.deleteFile();

    const juce::File tiny (fixturePath ("tiny_classifier.safetensors"));
    REQUIRE (loadModel (processor, tiny));
    CHECK_FALSE (processor.statusIsError());
    CHECK (processor.modelDescription().name == "tiny_classifier.safetensors");
    driver.play (exampleSequence ({ "speech" }, 48000.0, 1));
    auto snapshot = processor.snapshot();
    CHECK (snapshot.info->generation > before);
    CHECK (snapshot.info->labels.size() == 4); // the fixture's own classes
    REQUIRE (snapshot.hasResult);
    CHECK (snapshot.result.probabilities.size() == 4);
    CHECK (snapshot.stats.error.empty());

    processor.useBuiltinModel(); // swapped in on the model service's thread
    REQUIRE (waitForModelLoad (processor));
    CHECK (processor.modelDescription().builtin);
    driver.play (exampleSequence ({ "drums" }, 48000.0, 2));
    snapshot = processor.snapshot();
    CHECK (snapshot.info->labels.size() == 12);
    CHECK (snapshot.info->labels[static_cast<std::size_t> (snapshot.topClass)] == "drums");
}

TEST_CASE ("state round trip: parameters, class filter, OSC target and the user's model", "[plugin]")
{
    juce::MemoryBlock state;
    {
        TestProcessor processor;
        setParameter (processor, plugin::ParameterIds::hop, 0.1f);
        setParameter (processor, plugin::ParameterIds::threshold, 70.0f);
        setParameter (processor, plugin::ParameterIds::midiOut, 0.0f);
        setParameter (processor, plugin::ParameterIds::baseNote, 60.0f);
        processor.setClassEnabled ("silence", false);
        processor.osc().setTarget ({ false, "10.0.0.7", 7000 });
        REQUIRE (loadModel (processor, juce::File (fixturePath ("tiny_classifier.safetensors"))));
        processor.getStateInformation (state);
    }
    TestProcessor restored;
    restored.setStateInformation (state.getData(), static_cast<int> (state.getSize()));
    REQUIRE (waitForModelLoad (restored));
    CHECK (parameterValue (restored, plugin::ParameterIds::hop) == Approx (0.1f));
    CHECK (parameterValue (restored, plugin::ParameterIds::threshold) == Approx (70.0f));
    CHECK (parameterValue (restored, plugin::ParameterIds::midiOut) == 0.0f);
    CHECK (parameterValue (restored, plugin::ParameterIds::baseNote) == 60.0f);
    CHECK_FALSE (restored.isClassEnabled ("silence"));
    CHECK (restored.osc().target().host == "10.0.0.7");
    CHECK (restored.osc().target().port == 7000);
    CHECK (restored.modelDescription().name == "tiny_classifier.safetensors");
    CHECK_FALSE (restored.modelDescription().builtin);
    CHECK (restored.analysis().info()->hopSeconds == Approx (0.1));
    CHECK (restored.analysis().labels().size() == 4); // the model itself runs, not only its name
    CHECK (restored.statusMessage().isEmpty());

    // Restored into an instance that is playing (the worker swaps between windows): the restored
    // hop and smoothing must not re-queue the old model over the restored one.
    TestProcessor playing;
    ProcessorDriver driver (playing, 48000.0, 2, 512);
    driver.play (exampleSequence ({ "drums" }, 48000.0, 1));
    playing.setStateInformation (state.getData(), static_cast<int> (state.getSize()));
    REQUIRE (waitForModelLoad (playing));
    driver.play (exampleSequence ({ "speech" }, 48000.0, 1));
    CHECK (playing.modelDescription().name == "tiny_classifier.safetensors");
    CHECK (playing.analysis().labels().size() == 4);
    CHECK (playing.analysis().info()->hopSeconds == Approx (0.1));
    const auto snapshot = playing.snapshot();
    REQUIRE (snapshot.hasResult);
    CHECK (snapshot.result.probabilities.size() == 4);
}

TEST_CASE ("restoring a session whose model is gone falls back to the built-in model and says so", "[plugin]")
{
    const auto copy = juce::File::createTempFile ("safetensors");
    REQUIRE (juce::File (fixturePath ("tiny_classifier.safetensors")).copyFileTo (copy));
    juce::MemoryBlock state;
    {
        TestProcessor processor;
        REQUIRE (loadModel (processor, copy));
        processor.getStateInformation (state);
    }
    copy.deleteFile();
    TestProcessor restored;
    restored.setStateInformation (state.getData(), static_cast<int> (state.getSize()));
    REQUIRE (waitForModelLoad (restored));
    CHECK (restored.modelDescription().builtin);
    CHECK (restored.analysis().labels().size() == 12);
    CHECK (restored.statusIsError());
    CHECK (restored.statusMessage().contains (copy.getFullPathName()));
    CHECK (restored.statusMessage().contains ("built-in"));

    // Garbage state: defaults, an error message, no crash.
    TestProcessor garbage;
    const char junk[] = "definitely not a saved state";
    garbage.setStateInformation (junk, sizeof (junk));
    CHECK (garbage.statusIsError());
    CHECK (garbage.modelDescription().builtin);
}

TEST_CASE ("re-preparing with another rate and block size mid-stream works, bypass passes audio and stops notes", "[plugin]")
{
    TestProcessor processor;
    {
        ProcessorDriver driver (processor, 44100.0, 2, 64);
        driver.play (exampleSequence ({ "drums" }, 44100.0, 2));
        REQUIRE (noteOns (driver.midi).size() == 1);
    }
    ProcessorDriver driver (processor, 96000.0, 2, 4096);
    driver.play (exampleSequence ({ "speech" }, 96000.0, 2));
    auto snapshot = processor.snapshot();
    REQUIRE (snapshot.hasResult);
    CHECK (snapshot.info->labels[static_cast<std::size_t> (snapshot.topClass)] == "speech");
    CHECK (snapshot.result.endSeconds <= 4.0 + 1e-6); // stream time restarted at prepare

    juce::AudioBuffer<float> buffer (2, 256), copy;
    buffer.clear();
    buffer.setSample (1, 3, 0.5f);
    copy.makeCopyOf (buffer);
    juce::MidiBuffer midi;
    processor.processBlockBypassed (buffer, midi);
    CHECK (std::memcmp (buffer.getReadPointer (1), copy.getReadPointer (1), 256 * sizeof (float)) == 0);
    bool noteOff = false;
    for (const auto metadata : midi)
        noteOff = noteOff || metadata.getMessage().isNoteOff();
    CHECK (noteOff); // the speech note was open
}

TEST_CASE ("a sample rate the analysis cannot use passes audio through and says why, a usable one brings it back", "[plugin]")
{
    // Steinberg's VST3 validator prepares at 1234567.8 Hz: no exception may reach the host.
    TestProcessor processor;
    processor.setPlayConfigDetails (2, 2, 1234567.8, 512);
    REQUIRE_NOTHROW (processor.prepareToPlay (1234567.8, 512));
    CHECK (processor.statusIsError());
    CHECK (processor.statusMessage().contains ("1234567.8 Hz"));
    juce::AudioBuffer<float> buffer (2, 512), copy;
    for (int i = 0; i < 512; ++i)
        buffer.setSample (i % 2, i, 0.001f * static_cast<float> (i));
    copy.makeCopyOf (buffer);
    juce::MidiBuffer midi;
    processor.processBlock (buffer, midi);
    CHECK (std::memcmp (buffer.getReadPointer (0), copy.getReadPointer (0), 512 * sizeof (float)) == 0);
    CHECK (std::memcmp (buffer.getReadPointer (1), copy.getReadPointer (1), 512 * sizeof (float)) == 0);
    processor.releaseResources();

    ProcessorDriver driver (processor, 48000.0, 2, 480);
    CHECK_FALSE (processor.statusIsError());
    driver.play (exampleSequence ({ "drums" }, 48000.0, 2));
    const auto snapshot = processor.snapshot();
    REQUIRE (snapshot.hasResult);
    CHECK (snapshot.info->labels[static_cast<std::size_t> (snapshot.topClass)] == "drums");
}

namespace
{
struct PlacedMidi
{
    int64_t sample; // in the stream since prepareToPlay
    juce::MidiMessage message;
    bool operator== (const PlacedMidi& other) const
    {
        return sample == other.sample && message.getRawDataSize() == other.message.getRawDataSize()
               && std::memcmp (message.getRawData(), other.message.getRawData(), static_cast<std::size_t> (message.getRawDataSize())) == 0;
    }
};

struct Bounce
{
    std::vector<PlacedMidi> midi;
    std::vector<runtime::WindowResult> results;
    runtime::RuntimeStats stats;
};

/** Renders `signal` offline (isNonRealtime) as fast as the processor goes, in random blocks of 1 to
    maxBlock samples (maxBlock alone when fixed): no sleeps, no waiting in the test. */
Bounce bounce (const std::vector<float>& signal, double rate, int maxBlock, bool fixed, unsigned seed)
{
    TestProcessor processor;
    processor.setNonRealtime (true);
    // A detection threshold every clip's class crosses (the built-in model names the piano and guitar
    // clips at 30-90 % a window): a note for each clip.
    setParameter (processor, plugin::ParameterIds::threshold, 30.0f);
    processor.setPlayConfigDetails (2, 2, rate, maxBlock);
    processor.prepareToPlay (rate, maxBlock);
    std::mt19937 random (seed);
    juce::AudioBuffer<float> buffer (2, maxBlock);
    juce::MidiBuffer midi;
    Bounce out;
    std::size_t position = 0;
    while (position < signal.size())
    {
        const int n = static_cast<int> (std::min<std::size_t> (fixed ? static_cast<std::size_t> (maxBlock) : static_cast<std::size_t> (std::uniform_int_distribution<int> (1, maxBlock) (random)),
                                                               signal.size() - position));
        buffer.setSize (2, n, false, false, true);
        for (int c = 0; c < 2; ++c)
            std::copy_n (signal.data() + position, n, buffer.getWritePointer (c));
        midi.clear();
        processor.processBlock (buffer, midi);
        for (const auto metadata : midi)
            out.midi.push_back ({ static_cast<int64_t> (position) + metadata.samplePosition, metadata.getMessage() });
        position += static_cast<std::size_t> (n);
    }
    out.results = processor.analysis().history (1024);
    out.stats = processor.analysis().stats();
    processor.releaseResources();
    return out;
}
} // namespace

TEST_CASE ("offline bounce: every window analyzed, MIDI on the sample its window ends, identical in any block sizes", "[plugin][offline]")
{
    const double rate = GENERATE (44100.0, 48000.0);
    const auto signal = exampleSequence ({ "drums", "speech", "piano", "guitar" }, rate, 1); // 8 s
    const auto reference = bounce (signal, rate, 512, true, 1);
    // Every window whose samples have all come out of the resampler: those ending by 8 s minus its delay.
    INFO ("windows analyzed " << reference.stats.windowsRun << ", skipped " << reference.stats.windowsSkipped);
    CHECK (reference.stats.windowsSkipped == 0);
    CHECK (reference.stats.fifoOverruns == 0);
    CHECK (reference.stats.windowsRun >= 28); // windows [0,1) ... [6.75,7.75) at least
    REQUIRE (static_cast<int64_t> (reference.results.size()) == reference.stats.windowsRun);
    for (std::size_t i = 0; i < reference.results.size(); ++i)
        CHECK (reference.results[i].windowIndex == static_cast<int64_t> (i));

    // MIDI came (a real-time-paced worker would have skipped nearly everything), and each event
    // lies on the sample its result is due: its window's end plus the resampler's fixed delay.
    std::vector<int> notes;
    for (const auto& event : reference.midi)
        if (event.message.isNoteOn())
            notes.push_back (event.message.getNoteNumber());
    REQUIRE (notes.size() >= 4);
    CHECK (notes.front() == 36 + 3); // drums
    for (const auto& event : reference.midi)
    {
        const auto due = std::find_if (reference.results.begin(), reference.results.end(), [&] (const runtime::WindowResult& r) { return r.readySample == event.sample; });
        REQUIRE (due != reference.results.end());
        const auto windowEnd = static_cast<int64_t> (std::ceil (due->endSeconds * rate - 1e-6));
        CHECK (event.sample >= windowEnd);
        CHECK (event.sample - windowEnd <= static_cast<int64_t> (0.1 * rate)); // libsoxr's delay: ~77 ms
    }

    // The same audio in other block sizes: the very same MIDI, sample for sample, the same windows.
    for (const auto& [maxBlock, fixed] : { std::pair { 64, false }, std::pair { 4096, false }, std::pair { 1, true }, std::pair { 2048, true } })
    {
        INFO ("blocks of " << (fixed ? "" : "1 to ") << maxBlock);
        const auto other = bounce (signal, rate, maxBlock, fixed, static_cast<unsigned> (maxBlock));
        CHECK (other.midi == reference.midi);
        CHECK (other.stats.windowsRun == reference.stats.windowsRun);
        CHECK (other.stats.windowsSkipped == 0);
        REQUIRE (other.results.size() == reference.results.size());
        for (std::size_t i = 0; i < other.results.size(); ++i)
            CHECK (other.results[i].probabilities == reference.results[i].probabilities);
    }
}

TEST_CASE ("every note-on gets exactly its note-off under random automation, re-prepares and bypass", "[plugin]")
{
    const bool offline = GENERATE (false, true);
    INFO ((offline ? "offline" : "real time"));
    TestProcessor processor;
    processor.setNonRealtime (offline);
    setParameter (processor, plugin::ParameterIds::threshold, 30.0f);
    double rate = 48000.0;
    processor.setPlayConfigDetails (2, 2, rate, 512);
    processor.prepareToPlay (rate, 512);
    const auto signal = exampleSequence ({ "drums", "speech", "piano", "guitar", "noise", "drums", "speech", "piano" }, 48000.0, 1);
    std::mt19937 random (offline ? 5u : 6u);
    juce::AudioBuffer<float> buffer (2, 512);
    juce::MidiBuffer midi;
    int open = -1, noteOns = 0, changedWhileSounding = 0, preparedWhileSounding = 0;
    auto collect = [&] {
        for (const auto metadata : midi)
        {
            const auto message = metadata.getMessage();
            if (message.isNoteOn())
            {
                INFO ("note-on " << message.getNoteNumber() << " while " << open << " sounds");
                CHECK (open == -1); // the previous note was closed first
                open = message.getNoteNumber();
                ++noteOns;
            }
            else if (message.isNoteOff())
            {
                INFO ("note-off " << message.getNoteNumber() << " while " << open << " sounds");
                CHECK (message.getNoteNumber() == open); // exactly the note that sounds
                open = -1;
            }
        }
    };
    std::size_t position = 0;
    int64_t sinceWait = 0;
    for (int round = 0; round < 3; ++round)
        for (position = 0; position + 512 <= signal.size(); position += 512)
        {
            const int action = std::uniform_int_distribution<int> (0, 99) (random);
            if (action < 8)
            {
                changedWhileSounding += open >= 0;
                setParameter (processor, plugin::ParameterIds::baseNote, static_cast<float> (std::uniform_int_distribution<int> (0, 127) (random)));
            }
            else if (action < 10) // (up to 70 %: thresholds the built-in model's answers on these clips cross)
                setParameter (processor, plugin::ParameterIds::threshold, static_cast<float> (std::uniform_int_distribution<int> (20, 70) (random)));
            else if (action < 12)
                setParameter (processor, plugin::ParameterIds::hop, std::uniform_real_distribution<float> (0.05f, 0.5f) (random));
            else if (action < 14)
                setParameter (processor, plugin::ParameterIds::smoothing, std::uniform_real_distribution<float> (0.0f, 1.0f) (random));
            else if (action == 14)
                setParameter (processor, plugin::ParameterIds::midiOut, processor.parameters.getRawParameterValue (plugin::ParameterIds::midiOut)->load() >= 0.5f ? 0.0f : 1.0f);
            else if (action == 15)
                processor.setClassEnabled ("drums", ! processor.isClassEnabled ("drums"));
            // A re-prepare while a note sounds is the case under test: until one has happened, blocks that
            // would do nothing (18-39) re-prepare while a note sounds, so the case does not hang on which
            // windows the built-in model calls what.
            else if (action == 16 || (open >= 0 && preparedWhileSounding == 0 && action >= 18 && action < 40))
            {
                preparedWhileSounding += open >= 0;
                rate = rate == 48000.0 ? 44100.0 : 48000.0; // (the audio stays as it is: only the notes matter here)
                processor.prepareToPlay (rate, 512);
            }
            processor.applyAnalysisParameters(); // as the timer would
            buffer.setSize (2, 512, false, false, true);
            for (int c = 0; c < 2; ++c)
                std::copy_n (signal.data() + position, 512, buffer.getWritePointer (c));
            midi.clear();
            if (action == 17)
                processor.processBlockBypassed (buffer, midi);
            else
                processor.processBlock (buffer, midi);
            collect();
            sinceWait += 512;
            if (! offline && sinceWait > 2400) // real time: let the worker keep up (every 50 ms of audio)
            {
                sinceWait = 0;
                ProcessorDriver::waitForAnalysis (processor);
            }
        }
    // All notes off: bypass closes what sounds.
    buffer.setSize (2, 512, false, false, true);
    midi.clear();
    processor.processBlockBypassed (buffer, midi);
    collect();
    processor.releaseResources();
    CHECK (open == -1);
    INFO ("note-ons " << noteOns << ", base note changed while sounding " << changedWhileSounding << ", prepared while sounding " << preparedWhileSounding);
    CHECK (noteOns >= 5);
    CHECK (changedWhileSounding >= 3);
    CHECK (preparedWhileSounding >= 1);
}

TEST_CASE ("a model file that takes long to read loads off the calling thread: the status says so, then the error", "[plugin][load]")
{
    SlowModelFile slow; // outlives the processors that read it
    REQUIRE (slow.created());
    TestProcessor processor;
    ProcessorDriver driver (processor, 48000.0, 2, 512);
    processor.loadModelFile (slow.file()); // returns while the file is still being read
    CHECK_FALSE (slow.isReleased());       // (a loader on this thread would only return after the writer's 20 s)
    CHECK (processor.isLoadingModel());
    CHECK_FALSE (processor.statusIsError());
    CHECK (processor.statusMessage().contains ("Loading"));
    CHECK (processor.statusMessage().contains (slow.file().getFileName()));
    // Audio and analysis go on meanwhile, with the running model.
    driver.play (exampleSequence ({ "drums" }, 48000.0, 1));
    CHECK (processor.snapshot().hasResult);
    CHECK (processor.modelDescription().builtin);
    // A state saved while it loads names the file the user chose.
    {
        juce::MemoryBlock state;
        processor.getStateInformation (state);
        TestProcessor other;
        other.setStateInformation (state.getData(), static_cast<int> (state.getSize()));
        CHECK (other.isLoadingModel()); // the restore reads the same slow file, off the message thread too
        slow.release();
        REQUIRE (waitForModelLoad (other));
        CHECK (other.statusIsError());
        CHECK (other.statusMessage().contains ("built-in"));
    }
    REQUIRE (waitForModelLoad (processor));
    CHECK (processor.statusIsError());
    CHECK (processor.statusMessage().contains (slow.file().getFullPathName()));
    CHECK (processor.statusMessage().contains ("keeps running"));
    CHECK (processor.modelDescription().builtin);
    CHECK (processor.analysis().labels().size() == 12);
}

TEST_CASE ("a newer model request supersedes one still loading", "[plugin][load]")
{
    SlowModelFile slow;
    REQUIRE (slow.created());
    TestProcessor processor;
    processor.loadModelFile (slow.file());
    REQUIRE (processor.isLoadingModel());
    processor.loadModelFile (juce::File (fixturePath ("tiny_classifier.safetensors"))); // waits behind the slow one
    slow.release();
    REQUIRE (waitForModelLoad (processor));
    CHECK_FALSE (processor.statusIsError()); // the slow file's failure is not reported: it was superseded
    CHECK (processor.modelDescription().name == "tiny_classifier.safetensors");
    CHECK (processor.analysis().labels().size() == 4);
    processor.useBuiltinModel(); // a command like the others, run once the service gets to it
    REQUIRE (waitForModelLoad (processor));
    CHECK (processor.modelDescription().builtin);
    CHECK (processor.statusMessage() == "Using the built-in model");
}

TEST_CASE ("the standalone app never sends its input to the speakers, and analyzes it only when asked", "[plugin][standalone]")
{
    juce::AudioProcessor::setTypeOfNextNewPlugin (juce::AudioProcessor::wrapperType_Standalone);
    TestProcessor processor;
    juce::AudioProcessor::setTypeOfNextNewPlugin (juce::AudioProcessor::wrapperType_Undefined);
    REQUIRE (processor.wrapperType == juce::AudioProcessor::wrapperType_Standalone);
    ProcessorDriver driver (processor, 48000.0, 2, 512);
    const auto speech = exampleSequence ({ "speech" }, 48000.0, 2);

    // Not listening (the app's start): nothing analysed, nothing in the history, silence out.
    CHECK_FALSE (processor.isListeningToInput());
    juce::AudioBuffer<float> buffer (2, 512);
    juce::MidiBuffer midi;
    for (int c = 0; c < 2; ++c)
        std::copy_n (speech.data(), 512, buffer.getWritePointer (c));
    processor.processBlock (buffer, midi);
    CHECK (buffer.getMagnitude (0, 512) == 0.0f);
    driver.play (speech);
    CHECK (processor.analysis().stats().pushedSamples == 0);
    CHECK_FALSE (processor.snapshot().hasResult);
    CHECK (processor.liveHistory().segments.empty());

    // Listening: analysed (speech), still silence out.
    processor.setListeningToInput (true);
    driver.play (speech);
    const auto snapshot = processor.snapshot();
    REQUIRE (snapshot.hasResult);
    CHECK (snapshot.info->labels[static_cast<std::size_t> (snapshot.topClass)] == "speech");
    for (int c = 0; c < 2; ++c)
        std::copy_n (speech.data() + 4096, 512, buffer.getWritePointer (c));
    processor.processBlock (buffer, midi);
    CHECK (buffer.getMagnitude (0, 512) == 0.0f);

    // The speech note sounds; the input switched off ends it at once (no window will come to).
    REQUIRE_FALSE (driver.midi.empty());
    CHECK (driver.midi.back().message.isNoteOn());
    processor.setListeningToInput (false);
    midi.clear();
    processor.processBlock (buffer, midi);
    int noteOffs = 0;
    for (const auto metadata : midi)
        noteOffs += metadata.getMessage().isNoteOff() ? 1 : 0;
    CHECK (noteOffs == 1);
}

TEST_CASE ("a model taught from examples loads in the plugin like any model and names what it was taught", "[plugin][teach]")
{
    // Taught as sonotype learn teaches: the example clips as three new classes, written as one file.
    std::vector<teach::TaughtClass> classes;
    for (const auto& [name, clip] : { std::pair<const char*, const char*> { "talk", "speech" }, { "beat", "drums" }, { "keys", "piano" } })
        classes.push_back ({ name, teach::examplesOf (exampleFile (clip).getFullPathName().toStdString(), resources::builtinModel(), {}) });
    const auto head = teach::learn (classes, resources::builtinModel()->info().labels, 0.5);
    const auto bytes = teach::taughtModelFile (resources::builtinModelFile(), "built-in", head);
    const auto file = juce::File::createTempFile ("safetensors");
    REQUIRE (file.replaceWithData (bytes.data(), bytes.size()));

    TestProcessor processor;
    REQUIRE (loadModel (processor, file));
    ProcessorDriver driver (processor, 48000.0, 2, 512);
    driver.play (exampleSequence ({ "drums" }, 48000.0, 2));
    const auto snapshot = processor.snapshot();
    REQUIRE (snapshot.hasResult);
    CHECK (snapshot.info->labels == std::vector<std::string> { "talk", "beat", "keys", "unknown" });
    CHECK (snapshot.info->labels[static_cast<std::size_t> (snapshot.topClass)] == "beat");
    file.deleteFile();
}
