// MIDI out of the standalone app, as far as a machine without an ALSA sequencer lets a test go.
// JUCE's standalone window (juce_StandaloneFilterWindow.h, which Source/app/StandaloneApp.cpp
// opens) offers a MIDI output in its Audio/MIDI settings only when the processor produces MIDI,
// and hands each block's MIDI from AudioProcessorPlayer to the device manager's default MIDI
// output (player.setMidiOutput in its audioDeviceAboutToStart). The tests build the settings
// component as the window builds it, and run the processor in AudioProcessorPlayer, the
// standalone's audio callback, on a fake audio device: per-hit notes come out of that chain. Where
// the machine has an ALSA sequencer, a virtual MIDI port is the device manager's default output,
// and the notes are read back from it; elsewhere that part is skipped with a warning.
#include "formats/AudioFileReader.h"
#include "plugin/PluginParameters.h"
#include "plugin/ProcessorDriver.h"
#include "support/EncodedAudio.h"
#include "support/ExampleClips.h"
#include "support/Fixtures.h"
#include "support/KitPattern.h"
#include "support/MessageLoop.h"

#include <juce_audio_utils/juce_audio_utils.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** An audio device that never runs by itself: the test calls the player as its thread would. */
class FakeDevice final : public juce::AudioIODevice
{
public:
    FakeDevice (double rate, int block) : juce::AudioIODevice ("Fake", "Fake"), rate_ (rate), block_ (block) {}
    juce::StringArray getOutputChannelNames() override { return { "L", "R" }; }
    juce::StringArray getInputChannelNames() override { return { "L", "R" }; }
    juce::Array<double> getAvailableSampleRates() override { return { rate_ }; }
    juce::Array<int> getAvailableBufferSizes() override { return { block_ }; }
    int getDefaultBufferSize() override { return block_; }
    juce::String open (const juce::BigInteger&, const juce::BigInteger&, double, int) override { return {}; }
    void close() override {}
    bool isOpen() override { return true; }
    void start (juce::AudioIODeviceCallback*) override {}
    void stop() override {}
    bool isPlaying() override { return true; }
    juce::String getLastError() override { return {}; }
    int getCurrentBufferSizeSamples() override { return block_; }
    double getCurrentSampleRate() override { return rate_; }
    int getCurrentBitDepth() override { return 32; }
    juce::BigInteger getActiveOutputChannels() const override { return 3; }
    juce::BigInteger getActiveInputChannels() const override { return 3; }
    int getOutputLatencyInSamples() override { return 0; }
    int getInputLatencyInSamples() override { return 0; }

private:
    double rate_;
    int block_;
};

/** Counts the note-ons a MIDI input receives. */
struct NoteCounter final : public juce::MidiInputCallback
{
    void handleIncomingMidiMessage (juce::MidiInput*, const juce::MidiMessage& message) override
    {
        if (message.isNoteOn())
            ++notes;
    }
    std::atomic<int> notes { 0 };
};

/** The processor as the standalone app creates it (wrapperType_Standalone), counting the note-ons
    of each block's MIDI as it hands the block back to the player: what the player sends to its
    MIDI output. */
class StandaloneProcessor final : public plugin::SonotypeProcessor
{
public:
    static std::unique_ptr<StandaloneProcessor> create()
    {
        juce::AudioProcessor::setTypeOfNextNewPlugin (juce::AudioProcessor::wrapperType_Standalone);
        std::unique_ptr<StandaloneProcessor> processor (new StandaloneProcessor());
        juce::AudioProcessor::setTypeOfNextNewPlugin (juce::AudioProcessor::wrapperType_Undefined);
        return processor;
    }

    void processBlock (juce::AudioBuffer<float>& buffer, juce::MidiBuffer& midi) override
    {
        plugin::SonotypeProcessor::processBlock (buffer, midi);
        for (const auto metadata : midi)
            noteOns += metadata.getMessage().isNoteOn() ? 1 : 0;
    }
    using plugin::SonotypeProcessor::processBlock;
    juce::AudioProcessorEditor* createEditor() override { return new gui::SonotypeEditor (*this); }

    int noteOns = 0; // (the test's thread is the audio thread)

private:
    StandaloneProcessor() = default;
};

/** Plays `samples` (then a second of silence) through `player` as a device of this rate would, in
    blocks of 256, about 2x faster than real time (the analysis worker keeps up). */
void play (juce::AudioProcessorPlayer& player, const std::vector<float>& samples)
{
    constexpr int block = 256;
    juce::AudioBuffer<float> input (2, block), output (2, block);
    const auto total = samples.size() + 48000;
    for (std::size_t position = 0; position < total; position += block)
    {
        for (int c = 0; c < 2; ++c)
            for (int i = 0; i < block; ++i)
                input.setSample (c, i, position + static_cast<std::size_t> (i) < samples.size() ? samples[position + static_cast<std::size_t> (i)] : 0.0f);
        player.audioDeviceIOCallbackWithContext (input.getArrayOfReadPointers(), 2, output.getArrayOfWritePointers(), 2, block, {});
        std::this_thread::sleep_for (std::chrono::microseconds (2500));
    }
}
} // namespace

TEST_CASE ("the standalone's Audio/MIDI settings offer a MIDI output, since the processor produces MIDI", "[gui][app][midi]")
{
    const auto processor = StandaloneProcessor::create();
    REQUIRE (processor->wrapperType == juce::AudioProcessor::wrapperType_Standalone);
    CHECK (processor->producesMidi());
    juce::AudioDeviceManager devices;
    // As juce_StandaloneFilterWindow.h's SettingsComponent builds it.
    juce::AudioDeviceSelectorComponent selector (devices, 0, 2, 0, 2, true, processor->producesMidi(), true, false);
    selector.setSize (500, 450);
    const juce::Label* outputLabel = nullptr;
    for (auto* child : selector.getChildren())
        if (auto* label = dynamic_cast<juce::Label*> (child); label != nullptr && label->getText() == "MIDI Output:")
            outputLabel = label;
    REQUIRE (outputLabel != nullptr);
    auto* outputs = dynamic_cast<juce::ComboBox*> (outputLabel->getAttachedComponent());
    REQUIRE (outputs != nullptr);
    CHECK (outputs->isVisible());
    // "<< none >>" and every output this machine has (none without an ALSA sequencer).
    CHECK (outputs->getNumItems() == juce::MidiOutput::getAvailableDevices().size() + 1);
}

TEST_CASE ("in the standalone's audio callback per-hit and window notes go to the default MIDI output", "[gui][app][midi]")
{
    const auto processor = StandaloneProcessor::create();
    processor->setListeningToInput (true); // the app analyses its input only when asked
    formats::AudioFileReader reader (fixturePath ("kit/pattern.wav"));
    const double rate = reader.sampleRate();
    const auto pattern = readAll (reader);

    // The device manager's default MIDI output, a virtual port read back, where ALSA allows one.
    juce::AudioDeviceManager devices;
    NoteCounter received;
    // (Asked only where the sequencer exists: without it JUCE 7.0.5's ALSA client leaks the port it
    // fails to open, which the sanitizer build reports.)
    std::unique_ptr<juce::MidiInput> port;
    if (juce::File ("/dev/snd/seq").exists())
        port = juce::MidiInput::createNewDevice ("Sonotype test", &received);
    if (port != nullptr)
    {
        port->start();
        devices.setDefaultMidiOutputDevice (port->getIdentifier());
        REQUIRE (devices.getDefaultMidiOutput() != nullptr);
    }
    else
        WARN ("No ALSA sequencer here (no /dev/snd/seq): the notes are counted as the processor hands them to the player, not read back "
              "from a MIDI port");

    juce::AudioProcessorPlayer player;
    player.setProcessor (processor.get());
    FakeDevice device (rate, 256);
    player.audioDeviceAboutToStart (&device);
    player.setMidiOutput (devices.getDefaultMidiOutput()); // what the standalone window does there
    CHECK (processor->getSampleRate() == rate);

    // Per-hit MIDI: a note per hit of the kit's pattern.
    processor->parameters.getParameter (plugin::ParameterIds::hitMode)->setValueNotifyingHost (1.0f);
    pumpMessages (150); // the processor's timer applies the mode
    play (player, pattern);
    const auto rendered = kitPattern();
    const int hitNotes = processor->noteOns;
    INFO (hitNotes << " per-hit notes for " << rendered.size() << " hits");
    CHECK (std::abs (hitNotes - static_cast<int> (rendered.size())) <= 3);
    CHECK (hitNotes == processor->hitNotes().notesSent());

    // Window notes: speech, then drums.
    processor->parameters.getParameter (plugin::ParameterIds::hitMode)->setValueNotifyingHost (0.0f);
    pumpMessages (150);
    play (player, exampleSequence ({ "speech", "drums" }, rate, 1));
    const int windowNotes = processor->noteOns - hitNotes;
    INFO (windowNotes << " window notes");
    CHECK (windowNotes >= 2);
    player.audioDeviceStopped();
    player.setProcessor (nullptr);

    if (port != nullptr)
    {
        for (int wait = 0; wait < 100 && received.notes.load() < processor->noteOns; ++wait)
            std::this_thread::sleep_for (std::chrono::milliseconds (10));
        CHECK (received.notes.load() == processor->noteOns);
        port->stop();
    }
}
