// The built VST3, loaded through JUCE's hosting API as a DAW would: 30 s of known clips in random
// block sizes at 44.1 and 48 kHz; audio comes back bit-exactly, MIDI notes name the clips, state
// survives a save/restore into a fresh instance.
#include "dsp/QuickOnsetSignals.h"
#include "formats/AudioFileReader.h"
#include "plugin/ProcessorDriver.h"
#include "runtime/LiveHitClassifier.h"
#include "support/EncodedAudio.h"
#include "support/ExampleClips.h"
#include "support/KitPattern.h"
#include "support/MessageLoop.h"

#include <catch2/catch.hpp>

#include <juce_audio_processors/juce_audio_processors.h>

#include <random>
#include <thread>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** Sends samples [position, position + n) of left/right through the plugin (its MIDI into `midi`);
    returns whether both channels came back bit for bit. */
bool processStereoBlock (juce::AudioProcessor& plugin, const std::vector<float>& left, const std::vector<float>& right, std::size_t position,
                         int n, juce::AudioBuffer<float>& buffer, juce::MidiBuffer& midi)
{
    buffer.setSize (2, n, false, false, true);
    std::copy_n (left.data() + position, n, buffer.getWritePointer (0));
    std::copy_n (right.data() + position, n, buffer.getWritePointer (1));
    midi.clear();
    plugin.processBlock (buffer, midi);
    const auto bytes = sizeof (float) * static_cast<std::size_t> (n);
    return std::memcmp (buffer.getReadPointer (0), left.data() + position, bytes) == 0
           && std::memcmp (buffer.getReadPointer (1), right.data() + position, bytes) == 0;
}

std::unique_ptr<juce::AudioPluginInstance> loadPlugin (double rate, int blockSize)
{
    juce::VST3PluginFormat format;
    juce::OwnedArray<juce::PluginDescription> types;
    format.findAllTypesForFile (types, SONOTYPE_VST3_PATH);
    REQUIRE (types.size() == 1);
    CHECK (types[0]->name == "Sonotype");
    CHECK_FALSE (types[0]->isInstrument);
    juce::String error;
    auto instance = format.createInstanceFromDescription (*types[0], rate, blockSize, error);
    INFO (error);
    REQUIRE (instance != nullptr);
    return instance;
}

juce::AudioProcessorParameter* findParameter (juce::AudioProcessor& processor, const juce::String& name)
{
    for (auto* parameter : processor.getParameters())
        if (parameter->getName (64) == name)
            return parameter;
    return nullptr;
}

int classNote (const std::string& label)
{
    static const std::vector<std::string> labels { "silence", "noise", "speech", "drums", "piano", "organ",
                                                   "guitar", "bass", "strings", "brass", "woodwind", "synth" };
    return 36 + static_cast<int> (std::find (labels.begin(), labels.end(), label) - labels.begin()); // default base note C1
}
} // namespace

TEST_CASE ("VST3: bit-exact pass-through, MIDI naming the clips, in random blocks at 44.1 and 48 kHz", "[host]")
{
    const double rate = GENERATE (44100.0, 48000.0);
    constexpr int maxBlock = 2048;
    auto plugin = loadPlugin (rate, maxBlock);
    CHECK (plugin->getLatencySamples() == 0);
    CHECK (plugin->producesMidi());
    REQUIRE (plugin->getTotalNumInputChannels() == 2);
    REQUIRE (plugin->getTotalNumOutputChannels() == 2);
    plugin->prepareToPlay (rate, maxBlock);

    const std::vector<std::string> clips { "drums", "speech", "piano", "guitar", "noise" };
    std::vector<float> left;
    for (const auto& clip : clips)
    {
        const auto audio = exampleSequence ({ clip }, rate, 3); // 6 s each: 30 s in all
        left.insert (left.end(), audio.begin(), audio.end());
    }
    std::mt19937 random (static_cast<unsigned> (rate));
    std::normal_distribution<float> noise (0.0f, 0.001f);
    std::vector<float> right (left.size());
    for (std::size_t i = 0; i < left.size(); ++i)
        right[i] = 0.5f * left[i] + noise (random); // a different right channel

    std::vector<int> notes;
    juce::AudioBuffer<float> buffer (2, maxBlock);
    juce::MidiBuffer midi;
    std::size_t position = 0, mismatches = 0, sincePause = 0;
    while (position < left.size())
    {
        const int n = static_cast<int> (std::min<std::size_t> (std::uniform_int_distribution<int> (1, maxBlock) (random), left.size() - position));
        mismatches += processStereoBlock (*plugin, left, right, position, n, buffer, midi) ? 0 : 1;
        for (const auto metadata : midi)
            if (metadata.getMessage().isNoteOn())
                notes.push_back (metadata.getMessage().getNoteNumber());
        position += static_cast<std::size_t> (n);
        sincePause += static_cast<std::size_t> (n);
        if (sincePause > static_cast<std::size_t> (rate / 8)) // the plugin's worker keeps up: ~15x real time
        {
            std::this_thread::sleep_for (std::chrono::milliseconds (8));
            sincePause = 0;
        }
    }
    plugin->releaseResources();
    CHECK (mismatches == 0);

    // Each clip's class shows up as a note, in the order the clips were played.
    std::size_t next = 0;
    for (int note : notes)
        if (next < clips.size() && note == classNote (clips[next]))
            ++next;
    INFO ("notes: " << juce::String (juce::StringArray ([&] { juce::StringArray s; for (int note : notes) s.add (juce::String (note)); return s; }()).joinIntoString (" ")));
    CHECK (next == clips.size());
    CHECK (notes.size() <= 3 * clips.size()); // hysteresis: no note storms
}

TEST_CASE ("VST3: state saved by one instance restores into another", "[host]")
{
    juce::MemoryBlock state;
    {
        auto plugin = loadPlugin (48000.0, 512);
        auto* threshold = findParameter (*plugin, "Detection threshold");
        auto* hop = findParameter (*plugin, "Update interval");
        REQUIRE (threshold != nullptr);
        REQUIRE (hop != nullptr);
        threshold->setValueNotifyingHost (0.8f);
        hop->setValueNotifyingHost (0.3f);
        plugin->getStateInformation (state);
        CHECK (state.getSize() > 0);
    }
    auto restored = loadPlugin (48000.0, 512);
    restored->setStateInformation (state.getData(), static_cast<int> (state.getSize()));
    CHECK (findParameter (*restored, "Detection threshold")->getValue() == Approx (0.8f).margin (1e-3));
    CHECK (findParameter (*restored, "Update interval")->getValue() == Approx (0.3f).margin (1e-2));
}

TEST_CASE ("VST3: after a host sets odd values, restoring a state gives each parameter back the value the host read before, switches exactly on or off",
           "[host][params]")
{
    // pluginval 1.0.3's "Plugin state" and "Plugin state restoration" through JUCE's VST3 host,
    // whose parameters read the host's own copy of each value (updated from the plugin when a
    // state is restored), with some of pluginval's random seeds.
    for (const unsigned seed : { 0u, 7u, 0x2a51u })
    {
        INFO ("seed " << seed);
        auto plugin = loadPlugin (48000.0, 512);
        std::vector<juce::AudioProcessorParameter*> parameters;
        for (auto* parameter : plugin->getParameters())
            if (parameter->isAutomatable() && parameter != plugin->getBypassParameter())
                parameters.push_back (parameter);
        REQUIRE (parameters.size() == 10);
        std::mt19937 random (seed);
        std::uniform_real_distribution<float> number (0.0f, 1.0f);
        const auto restore = [&plugin] (const juce::MemoryBlock& state) { plugin->setStateInformation (state.getData(), static_cast<int> (state.getSize())); };

        juce::MemoryBlock before, original, after;
        plugin->getStateInformation (before);
        for (auto* parameter : parameters)
            parameter->setValue (number (random));
        restore (before);
        plugin->getStateInformation (original);
        for (auto* parameter : parameters)
        {
            INFO (parameter->getName (64));
            const float was = parameter->getValue();
            if (parameter->getNumSteps() == 2) // the switches and the hit response (JUCE's VST3 host reports no parameter as boolean)
                CHECK ((was == 0.0f || was == 1.0f));
            parameter->setValue (number (random));
            restore (original);
            CHECK (parameter->getValue() == was);
        }
        plugin->getStateInformation (after);
        CHECK (after == original);
    }
}

namespace
{
struct HostedMidi
{
    int64_t sample;
    int note;
    bool on;
    bool operator== (const HostedMidi& other) const { return sample == other.sample && note == other.note && on == other.on; }
};

/** Renders `left`/`right` through a fresh VST3 instance in non-real-time (offline) mode, as fast
    as it goes, in random blocks of 1 to maxBlock samples (maxBlock alone when fixed). */
std::vector<HostedMidi> bounceVst3 (const std::vector<float>& left, const std::vector<float>& right, double rate, int maxBlock, bool fixed, std::size_t& mismatches)
{
    auto plugin = loadPlugin (rate, maxBlock);
    plugin->setNonRealtime (true); // the VST3 host tells the plugin kOffline when it sets up processing
    plugin->prepareToPlay (rate, maxBlock);
    std::mt19937 random (static_cast<unsigned> (maxBlock));
    juce::AudioBuffer<float> buffer (2, maxBlock);
    juce::MidiBuffer midi;
    std::vector<HostedMidi> events;
    std::size_t position = 0;
    while (position < left.size())
    {
        const auto size = fixed ? static_cast<std::size_t> (maxBlock) : static_cast<std::size_t> (std::uniform_int_distribution<int> (1, maxBlock) (random));
        const int n = static_cast<int> (std::min (size, left.size() - position));
        mismatches += processStereoBlock (*plugin, left, right, position, n, buffer, midi) ? 0 : 1;
        for (const auto metadata : midi)
        {
            const auto message = metadata.getMessage();
            if (message.isNoteOnOrOff())
                events.push_back ({ static_cast<int64_t> (position) + metadata.samplePosition, message.getNoteNumber(), message.isNoteOn() });
        }
        position += static_cast<std::size_t> (n);
    }
    plugin->releaseResources();
    return events;
}
} // namespace

TEST_CASE ("VST3 offline bounce: MIDI naming every clip, on the same samples in any block sizes", "[host][offline]")
{
    // A host exporting faster than real time (no pauses at all here): every window is analyzed.
    constexpr double rate = 48000.0;
    const std::vector<std::string> clips { "drums", "speech", "piano", "guitar", "noise" };
    std::vector<float> left;
    for (const auto& clip : clips)
    {
        const auto audio = exampleSequence ({ clip }, rate, 2); // 4 s each
        left.insert (left.end(), audio.begin(), audio.end());
    }
    std::vector<float> right (left.size());
    for (std::size_t i = 0; i < left.size(); ++i)
        right[i] = 0.5f * left[i];

    std::size_t mismatches = 0;
    const auto reference = bounceVst3 (left, right, rate, 512, true, mismatches);
    std::size_t next = 0;
    for (const auto& event : reference)
        if (event.on && next < clips.size() && event.note == classNote (clips[next]))
            ++next;
    CHECK (next == clips.size());
    for (const auto& [maxBlock, fixed] : { std::pair { 2048, false }, std::pair { 97, true } })
    {
        INFO ("blocks of " << (fixed ? "" : "1 to ") << maxBlock);
        const auto other = bounceVst3 (left, right, rate, maxBlock, fixed, mismatches);
        CHECK (other == reference);
    }
    CHECK (mismatches == 0);
}

TEST_CASE ("VST3: per-hit MIDI reports its latency to the host, and in an offline bounce each note lands on its hit once compensated",
           "[host][offline][hits]")
{
    formats::AudioFileReader reader (fixturePath ("kit/pattern.wav")); // FluidR3, hits at known times
    const auto signal = readAll (reader);
    const double rate = reader.sampleRate();
    constexpr int kBlock = 512;
    auto plugin = loadPlugin (rate, kBlock);
    plugin->setNonRealtime (true);
    plugin->prepareToPlay (rate, kBlock);
    CHECK (plugin->getLatencySamples() == 0); // fixed-hop MIDI: no latency
    auto* perHit = findParameter (*plugin, "Per-hit MIDI");
    REQUIRE (perHit != nullptr);
    perHit->setValueNotifyingHost (1.0f);
    // The plugin sets its latency on its message thread; the VST3 wrapper tells the host
    // (restartComponent(kLatencyChanged)) and the host reads it back through the VST3 interface.
    const auto deadline = juce::Time::getMillisecondCounter() + 5000u;
    while (plugin->getLatencySamples() == 0 && juce::Time::getMillisecondCounter() < deadline)
        pumpMessages (10);
    const auto latency = plugin->getLatencySamples();
    CHECK (latency == static_cast<int> (std::lround (0.24 * rate))); // the built-in model's clip, less its 10 ms before the onset
    plugin->releaseResources();                                      // a host re-prepares after a latency change
    plugin->prepareToPlay (rate, kBlock);

    juce::AudioBuffer<float> buffer (2, kBlock);
    juce::MidiBuffer midi;
    std::vector<double> noteSeconds; // each note-on, less the reported latency
    int otherNotes = 0;
    for (int64_t position = 0; position < static_cast<int64_t> (signal.size()) + latency + static_cast<int64_t> (rate); position += kBlock)
    {
        for (int c = 0; c < 2; ++c)
            for (int i = 0; i < kBlock; ++i)
                buffer.setSample (c, i, position + i < static_cast<int64_t> (signal.size()) ? signal[static_cast<std::size_t> (position + i)] : 0.0f);
        midi.clear();
        plugin->processBlock (buffer, midi);
        for (const auto metadata : midi)
            if (metadata.getMessage().isNoteOn())
            {
                noteSeconds.push_back (static_cast<double> (position + metadata.samplePosition - latency) / rate);
                otherNotes += metadata.getMessage().getNoteNumber() == classNote ("drums") ? 0 : 1; // the built-in model: every hit is drums
            }
    }
    plugin->releaseResources();
    const auto truth = kitPattern();
    int onTime = 0;
    for (const auto& hit : truth)
        onTime += std::any_of (noteSeconds.begin(), noteSeconds.end(), [&hit] (double s) { return std::abs (s - hit.seconds) < 0.025; }) ? 1 : 0;
    INFO (noteSeconds.size() << " notes, " << onTime << " of " << truth.size() << " hits with a note within 25 ms");
    CHECK (noteSeconds.size() == truth.size());
    CHECK (onTime == static_cast<int> (truth.size()));
    CHECK (otherNotes == 0);
}

namespace
{
/** The hosted plugin's session with its model set to `model`, as a host saves it: JUCE's VST3 host
    keeps the component's state (the plugin's own XML, then the VST3 wrapper's private data) in
    base64 under VST3PluginState/IComponent. */
juce::MemoryBlock sessionNaming (juce::AudioPluginInstance& plugin, const juce::File& model)
{
    juce::MemoryBlock state;
    plugin.getStateInformation (state);
    auto outer = juce::AudioProcessor::getXmlFromBinary (state.getData(), static_cast<int> (state.getSize()));
    REQUIRE (outer != nullptr);
    auto* component = outer->getChildByName ("IComponent");
    REQUIRE (component != nullptr);
    juce::MemoryBlock inner;
    REQUIRE (inner.fromBase64Encoding (component->getAllSubText()));
    REQUIRE (inner.getSize() > 8);
    const auto ours = 8 + static_cast<std::size_t> (juce::ByteOrder::littleEndianInt (static_cast<const char*> (inner.getData()) + 4));
    REQUIRE (ours <= inner.getSize());
    auto xml = juce::AudioProcessor::getXmlFromBinary (inner.getData(), static_cast<int> (ours));
    REQUIRE (xml != nullptr);
    xml->setAttribute ("modelPath", model.getFullPathName());
    juce::MemoryBlock replaced;
    juce::AudioProcessor::copyXmlToBinary (*xml, replaced);
    replaced.append (static_cast<const char*> (inner.getData()) + ours, inner.getSize() - ours); // the wrapper's own data
    component->deleteAllTextElements();
    component->addTextElement (replaced.toBase64Encoding());
    juce::MemoryBlock session;
    juce::AudioProcessor::copyXmlToBinary (*outer, session);
    return session;
}
} // namespace

TEST_CASE ("VST3 per-hit Live: a kit taught from one-shots, named in the session, reports at most 10 ms and plays each hit of a loop on time "
           "in 128-sample blocks at 48 kHz",
           "[host][hits][live]")
{
    constexpr double rate = 48000.0;
    constexpr int kBlock = 128;
    // The kit: kick (an 808-style sine), snare and hat, 5 one-shots each at -15 to -3 dBFS, taught
    // as hits in the Teach view's way, exported to a file.
    const auto kitFile = juce::File::getSpecialLocation (juce::File::tempDirectory).getNonexistentChildFile ("host_kit", ".safetensors");
    {
        TestProcessor teacher;
        teacher.teaching().setHits (true);
        const Piece pieces[] = { Piece::kick, Piece::snare, Piece::hat };
        const char* names[] = { "kick", "snare", "hat" };
        for (int c = 0; c < 3; ++c)
        {
            REQUIRE (teacher.teaching().addClass (names[c]).isEmpty());
            for (int k = 0; k < 5; ++k)
                REQUIRE (teacher.teaching().addSound (c, oneShot (pieces[c], rate, -15.0 + 3.0 * k, 40u + static_cast<unsigned> (5 * c + k)), rate, "one-shot").isEmpty());
        }
        REQUIRE (teacher.teaching().waitUntilIdle (60000));
        REQUIRE (teacher.teaching().exportModel (kitFile).isEmpty());
    }
    REQUIRE (runtime::liveHitClassifierFor (*engine::Model::load (kitFile.getFullPathName().toStdString())) != nullptr);

    // A session that names the kit, restored into the hosted plugin; per-hit MIDI on.
    auto plugin = loadPlugin (rate, kBlock);
    const auto state = sessionNaming (*plugin, kitFile);
    plugin->setStateInformation (state.getData(), static_cast<int> (state.getSize()));
    plugin->prepareToPlay (rate, kBlock);
    findParameter (*plugin, "Per-hit MIDI")->setValueNotifyingHost (1.0f);
    const auto deadline = juce::Time::getMillisecondCounter() + 30000u;
    while ((plugin->getLatencySamples() == 0 || plugin->getLatencySamples() > 480) && juce::Time::getMillisecondCounter() < deadline)
        pumpMessages (10); // the kit loads on a background thread; the latency comes back through the VST3 interface
    const int latency = plugin->getLatencySamples();
    CHECK (latency > 0);
    CHECK (latency <= 480);     // 10 ms at 48 kHz
    plugin->releaseResources(); // a host re-prepares after a latency change
    plugin->prepareToPlay (rate, kBlock);

    // Loops of the kit's pieces (never taught), bounced in real time as fast as it goes: the notes
    // come from the audio thread, so nothing waits for a worker.
    int truthCount = 0, found = 0, rightNote = 0, notesTotal = 0;
    std::vector<double> errorsMs;
    const int gm[] = { 36, 38, 42 }; // kick, snare, closed hat: the General MIDI drums the names say
    for (const unsigned seed : { 21u, 22u, 23u })
    {
        const auto loop = kitLoop (rate, seed);
        std::vector<std::pair<int64_t, int>> notes; // onset sample (note less the latency), note
        juce::AudioBuffer<float> buffer (2, kBlock);
        juce::MidiBuffer midi;
        for (std::size_t position = 0; position + kBlock <= loop.samples.size(); position += kBlock)
        {
            processStereoBlock (*plugin, loop.samples, loop.samples, position, kBlock, buffer, midi);
            for (const auto metadata : midi)
                if (metadata.getMessage().isNoteOn())
                    notes.emplace_back (static_cast<int64_t> (position) + metadata.samplePosition - latency, metadata.getMessage().getNoteNumber());
        }
        notesTotal += static_cast<int> (notes.size());
        std::vector<bool> used (notes.size(), false);
        for (const auto& [onset, piece] : loop.hits)
        {
            ++truthCount;
            int best = -1;
            for (std::size_t n = 0; n < notes.size(); ++n)
                if (! used[n] && std::abs (notes[n].first - onset) <= static_cast<int64_t> (0.025 * rate)
                    && (best < 0 || std::abs (notes[n].first - onset) < std::abs (notes[static_cast<std::size_t> (best)].first - onset)))
                    best = static_cast<int> (n);
            if (best < 0)
                continue;
            used[static_cast<std::size_t> (best)] = true;
            ++found;
            errorsMs.push_back (1000.0 * static_cast<double> (std::abs (notes[static_cast<std::size_t> (best)].first - onset)) / rate);
            rightNote += notes[static_cast<std::size_t> (best)].second == gm[piece] ? 1 : 0;
        }
        plugin->reset();
    }
    plugin->releaseResources();
    kitFile.deleteFile();
    std::sort (errorsMs.begin(), errorsMs.end());
    const double precision = static_cast<double> (found) / std::max (notesTotal, 1), recall = static_cast<double> (found) / truthCount;
    const double f = 2.0 * precision * recall / std::max (precision + recall, 1e-9);
    const double median = errorsMs.empty() ? 1e9 : errorsMs[errorsMs.size() / 2];
    // The figures docs/TEACH.md reports.
    std::cout << "VST3 per-hit Live at 48 kHz, 128-sample blocks: latency " << latency << " samples (" << 1000.0 * latency / rate << " ms), "
              << notesTotal << " notes for " << truthCount << " hits, F = " << f << ", median timing error " << median << " ms, "
              << rightNote << " of " << found << " matched notes the hit's piece\n";
    CHECK (f >= 0.95);
    CHECK (median <= 2.0);
    CHECK (rightNote >= static_cast<int> (0.9 * found));
}
