// The plugin's per-hit mode (drum-to-MIDI) on a drum pattern rendered by fluidsynth (FluidR3; the
// fixture step writes it with sonotype.hits.kit): an offline bounce in any block sizes gives one
// note per hit on the onset sample `sonotype classify --onsets` (timeline::analyzeHits) finds,
// once the latency the plugin reports is taken off, with the same classes; the pass-through is
// delayed by exactly that latency; live, each note goes out once its result exists.
#include "formats/AudioFileReader.h"
#include "plugin/PluginParameters.h"
#include "plugin/ProcessorDriver.h"
#include "resources/BuiltinModel.h"
#include "runtime/LiveHits.h"
#include "support/EncodedAudio.h"
#include "support/Fixtures.h"
#include "support/KitPattern.h"
#include "teach/HitEmbedding.h"
#include "teach/TaughtModel.h"
#include "timeline/HitAnalysis.h"
#include "timeline/MidiNotes.h"

#include <catch2/catch.hpp>

#include <random>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
std::string kitFile (const std::string& name)
{
    return fixturePath ("kit/" + name);
}

/** The file's mono samples as the CLI reads them (formats::AudioFileReader::readMono). */
std::vector<float> readMono (const std::string& path, double& rate)
{
    formats::AudioFileReader reader (path);
    rate = reader.sampleRate();
    return readAll (reader);
}

/** kick, snare and hat taught from 5 hits each of the kit's pieces, as `sonotype learn --hits` does. */
juce::File teachKit()
{
    const auto base = resources::builtinModelFile();
    const auto tokens = teach::hitEmbeddingModelFile (base); // hits are embedded from the stem's tokens
    REQUIRE (tokens.has_value());
    const auto embedder = engine::Model::fromMemory (tokens->data(), tokens->size(), "built-in");
    std::vector<teach::TaughtClass> classes;
    teach::ExampleSettings settings;
    settings.hits = true;
    for (const auto* piece : { "kick", "snare", "hat" })
        classes.push_back ({ piece, teach::examplesOf (kitFile (std::string (piece) + "/" + piece + ".wav"), embedder, settings) });
    auto head = teach::learn (classes, embedder->info().labels, 0.5);
    head.hitClipSeconds = settings.clipSeconds;
    const auto bytes = teach::taughtModelFile (*tokens, "built-in", head);
    const auto file = juce::File::getSpecialLocation (juce::File::tempDirectory).getNonexistentChildFile ("taught_kit", ".safetensors");
    REQUIRE (file.replaceWithData (bytes.data(), bytes.size()));
    return file;
}

void setParameter (plugin::SonotypeProcessor& processor, const char* id, float value)
{
    auto* parameter = processor.parameters.getParameter (id);
    parameter->setValueNotifyingHost (parameter->convertTo0to1 (value));
}

struct Note
{
    int64_t sample = 0; // of the output stream
    int note = 0, velocity = 0;
    bool on = true;
    bool operator== (const Note& other) const { return sample == other.sample && note == other.note && velocity == other.velocity && on == other.on; }
};

struct Bounce
{
    std::vector<Note> notes;
    std::vector<float> output; // channel 0
    int latency = 0;
    runtime::RuntimeStats stats;
};

/** Renders `signal` (on both channels) and `tail` samples of silence after it offline, per-hit
    mode on, in blocks of `block` samples (1 to `block`, random, when not fixed). */
Bounce bounce (const std::vector<float>& signal, double rate, const juce::File& model, int block, bool fixed, int64_t tail, bool offline = true)
{
    TestProcessor processor;
    if (model != juce::File())
        REQUIRE (loadModel (processor, model));
    setParameter (processor, plugin::ParameterIds::hitMode, 1.0f);
    processor.setNonRealtime (offline);
    processor.setPlayConfigDetails (2, 2, rate, block);
    processor.prepareToPlay (rate, block);
    Bounce out;
    out.latency = processor.getLatencySamples();
    std::mt19937 random (static_cast<unsigned> (block));
    juce::AudioBuffer<float> buffer (2, block);
    juce::MidiBuffer midi;
    const auto total = static_cast<int64_t> (signal.size()) + tail;
    for (int64_t position = 0; position < total;)
    {
        const int n = static_cast<int> (std::min<int64_t> (fixed ? block : std::uniform_int_distribution<int> (1, block) (random), total - position));
        buffer.setSize (2, n, false, false, true);
        for (int c = 0; c < 2; ++c)
            for (int i = 0; i < n; ++i)
                buffer.setSample (c, i, position + i < static_cast<int64_t> (signal.size()) ? signal[static_cast<std::size_t> (position + i)] : 0.0f);
        midi.clear();
        processor.processBlock (buffer, midi);
        for (const auto metadata : midi)
        {
            const auto message = metadata.getMessage();
            if (message.isNoteOnOrOff())
                out.notes.push_back ({ position + metadata.samplePosition, message.getNoteNumber(), message.getVelocity(), message.isNoteOn() });
        }
        out.output.insert (out.output.end(), buffer.getReadPointer (0), buffer.getReadPointer (0) + n);
        position += n;
    }
    out.stats = processor.analysis().stats();
    processor.releaseResources();
    return out;
}

std::vector<Note> noteOns (const std::vector<Note>& notes)
{
    std::vector<Note> ons;
    std::copy_if (notes.begin(), notes.end(), std::back_inserter (ons), [] (const Note& n) { return n.on; });
    return ons;
}

/** The checks of one bounce against the CLI's hits: each note-on at onset + latency on the class's
    note with the hit's velocity; each note-off 100 ms later or at the next hit of its note; the
    pass-through the input `latency` samples later. */
void checkAgainstHits (const Bounce& bounce, const timeline::HitAnalysisResult& hits, const std::vector<float>& signal, int64_t latency)
{
    REQUIRE (bounce.latency == latency);
    const auto ons = noteOns (bounce.notes);
    std::vector<timeline::Hit> played; // an unknown hit plays no note
    std::copy_if (hits.hits.begin(), hits.hits.end(), std::back_inserter (played),
                  [&hits] (const timeline::Hit& hit) { return hits.labels[static_cast<std::size_t> (hit.classIndex)] != "unknown"; });
    REQUIRE (ons.size() == played.size());
    for (std::size_t i = 0; i < ons.size(); ++i)
    {
        const auto& hit = played[i];
        const auto onset = std::llround (hit.seconds * hits.sampleRate);
        INFO ("hit " << i << " at " << hit.seconds << " s");
        CHECK (ons[i].sample - latency == onset);
        // The General MIDI drums the taught names say (kick 36, snare 38, hat 42), not base + index.
        const int drums[] = { 36, 38, 42, 39 }; // kick, snare, hat; the built-in model's fourth class, drums: 36 + 3
        REQUIRE ((hit.classIndex >= 0 && hit.classIndex < 4));
        CHECK (ons[i].note == drums[hit.classIndex]);
        CHECK (ons[i].velocity == timeline::hitVelocity (hit.levelDb));
    }
    // Every note-on has its note-off: 100 ms on, or the next hit of the same note.
    const auto length = std::llround (0.1 * hits.sampleRate);
    for (std::size_t i = 0; i < bounce.notes.size(); ++i)
    {
        if (! bounce.notes[i].on)
            continue;
        const auto& on = bounce.notes[i];
        const auto off = std::find_if (bounce.notes.begin() + static_cast<std::ptrdiff_t> (i) + 1, bounce.notes.end(),
                                       [&] (const Note& n) { return ! n.on && n.note == on.note; });
        REQUIRE (off != bounce.notes.end());
        const auto again = std::find_if (bounce.notes.begin() + static_cast<std::ptrdiff_t> (i) + 1, bounce.notes.end(),
                                         [&] (const Note& n) { return n.on && n.note == on.note; });
        CHECK (off->sample == std::min (on.sample + length, again != bounce.notes.end() ? again->sample : on.sample + length));
    }
    // The audio: the input, `latency` samples later (silence before).
    REQUIRE (bounce.output.size() >= signal.size());
    bool delayed = true;
    for (std::size_t i = 0; i < signal.size() && delayed; ++i)
        delayed = bounce.output[i] == (static_cast<int64_t> (i) >= latency ? signal[i - static_cast<std::size_t> (latency)] : 0.0f);
    CHECK (delayed);
}
} // namespace

TEST_CASE ("per-hit offline bounce: a note per hit on the CLI's onset sample after the reported latency, in any block sizes", "[plugin][offline][hits]")
{
    // The kit's pieces taught as kick, snare and hat; its pattern played through the plugin.
    const auto model = teachKit();
    const auto loaded = engine::Model::load (model.getFullPathName().toStdString());
    double rate = 0.0;
    const auto path = kitFile ("pattern.wav");
    const auto signal = readMono (path, rate);
    REQUIRE (rate == 44100.0);

    // What classify --onsets --model finds: the clip the model was taught with (0.12 s).
    timeline::HitAnalysisSettings settings;
    settings.clipSeconds = runtime::hitClipSeconds (*loaded);
    CHECK (settings.clipSeconds == Approx (0.12));
    const auto hits = timeline::analyzeHits (path, loaded, settings);
    REQUIRE (hits.hits.size() >= 30);
    const auto latency = runtime::HitClassifier::latencySamples (*loaded, rate, runtime::hitSettingsFor (*loaded, {}));
    CHECK (latency == std::llround (0.11 * rate)); // the clip (less its 10 ms before the onset)

    // The taught classes name the kit's own pattern (the rendered hits' pieces).
    const int named = hitsNamedAsRendered (hits, kitPattern());
    INFO (named << " of " << hits.hits.size() << " hits named as rendered");
    CHECK (named >= static_cast<int> (0.9 * static_cast<double> (hits.hits.size())));

    const auto tail = latency + static_cast<int64_t> (0.2 * rate); // the last notes come after the audio
    const auto reference = bounce (signal, rate, model, 441, true, tail);
    checkAgainstHits (reference, hits, signal, latency);
    CHECK (reference.stats.hits == static_cast<int64_t> (hits.hits.size()));
    for (const auto& [block, fixed] : { std::pair { 32, true }, std::pair { 128, true }, std::pair { 4096, true }, std::pair { 1000, false } })
    {
        INFO ("blocks of " << (fixed ? "" : "1 to ") << block);
        const auto other = bounce (signal, rate, model, block, fixed, tail);
        CHECK (other.notes == reference.notes);
        CHECK (other.output == reference.output);
    }
    model.deleteFile();
}

TEST_CASE ("per-hit offline bounce at 48 kHz with the built-in model: its default clip, the CLI's hits", "[plugin][offline][hits]")
{
    // The pattern at 48 kHz, written as a float WAV for the CLI's reader.
    double fileRate = 0.0;
    const auto original = readMono (kitFile ("pattern.wav"), fileRate);
    std::vector<float> signal;
    dsp::Resampler resampler (fileRate, 48000.0);
    resampler.process (original.data(), original.size(), signal);
    resampler.flush (signal);
    const auto file = juce::File::getSpecialLocation (juce::File::tempDirectory).getNonexistentChildFile ("pattern48k", ".wav");
    {
        juce::WavAudioFormat wav;
        std::unique_ptr<juce::AudioFormatWriter> writer (wav.createWriterFor (new juce::FileOutputStream (file), 48000.0, 1, 32, {}, 0));
        REQUIRE (writer != nullptr);
        const float* channels[] = { signal.data() };
        REQUIRE (writer->writeFromFloatArrays (channels, 1, static_cast<int> (signal.size())));
    }
    double rate = 0.0;
    const auto written = readMono (file.getFullPathName().toStdString(), rate);
    REQUIRE (written == signal);

    const auto model = resources::builtinModel();
    const auto hits = timeline::analyzeHits (file.getFullPathName().toStdString(), model, {});
    REQUIRE (hits.hits.size() >= 30);
    const auto latency = runtime::HitClassifier::latencySamples (*model, rate, runtime::hitSettingsFor (*model, {}));
    CHECK (latency == std::llround (0.24 * rate)); // 0.25 s, less the 10 ms before the onset
    const auto tail = latency + static_cast<int64_t> (0.2 * rate);
    const auto reference = bounce (signal, rate, {}, 512, false, tail);
    checkAgainstHits (reference, hits, signal, latency);
    for (const int block : { 64, 2048 })
        CHECK (bounce (signal, rate, {}, block, true, tail).notes == reference.notes);
    file.deleteFile();
}

TEST_CASE ("per-hit mode live: each note goes out once its hit is classified, never before its sample, and says how late", "[plugin][hits]")
{
    double rate = 0.0;
    const auto signal = readMono (kitFile ("pattern.wav"), rate);
    TestProcessor processor;
    setParameter (processor, plugin::ParameterIds::hitMode, 1.0f);
    ProcessorDriver driver (processor, rate, 2, 512);
    const auto latency = processor.getLatencySamples();
    CHECK (latency == std::llround (0.24 * rate)); // the built-in model's clip: the CLI's default
    driver.play (signal);
    std::vector<double> ons;
    for (const auto& event : driver.midi)
        if (event.message.isNoteOn())
            ons.push_back (event.seconds);
    const auto hits = timeline::analyzeHits (kitFile ("pattern.wav"), resources::builtinModel(), {});
    // (The worker keeps up: the driver lets it catch up every 50 ms of audio, so nothing is skipped.)
    // A hit is classified once the audio reaches its onset + the latency; its note goes out in the
    // block after that sample (the pattern's audio goes on 2 s after its last hit: all of them).
    const auto length = static_cast<int64_t> (signal.size());
    const auto classified = std::count_if (hits.hits.begin(), hits.hits.end(), [&] (const timeline::Hit& hit) { return std::llround (hit.seconds * rate) + latency <= length; });
    const auto due = std::count_if (hits.hits.begin(), hits.hits.end(), [&] (const timeline::Hit& hit) { return std::llround (hit.seconds * rate) + latency < length; });
    REQUIRE (static_cast<std::ptrdiff_t> (ons.size()) == due);
    for (std::size_t i = 0; i < ons.size(); ++i)
    {
        const double at = hits.hits[i].seconds + latency / rate;
        INFO ("hit " << i << " at " << hits.hits[i].seconds << " s, its note at " << ons[i] << " s");
        CHECK (ons[i] >= at - 512.0 / rate); // in the block its sample is in, or later
        CHECK (ons[i] <= at + 0.1);          // the next 50 ms of audio, and a block
    }
    const auto status = processor.snapshot().hits;
    CHECK (status.on);
    CHECK (status.latencySeconds == Approx (latency / rate));
    CHECK (status.lastDelaySeconds >= status.latencySeconds);
    CHECK (status.lastDelaySeconds <= status.latencySeconds + 0.1);
    CHECK (status.notes == static_cast<int64_t> (ons.size()));
    CHECK (status.hits == classified);

    // Off again: no latency, the pass-through untouched, the windows' notes back.
    setParameter (processor, plugin::ParameterIds::hitMode, 0.0f);
    processor.applyAnalysisParameters();
    CHECK (processor.getLatencySamples() == 0);
    juce::AudioBuffer<float> buffer (2, 256);
    for (int c = 0; c < 2; ++c)
        std::copy_n (signal.data() + 1000, 256, buffer.getWritePointer (c));
    juce::MidiBuffer midi;
    processor.processBlock (buffer, midi);
    CHECK (std::equal (signal.data() + 1000, signal.data() + 1256, buffer.getReadPointer (0)));
}

TEST_CASE ("per-hit settings are parameters: saved with the session, the onset detector's numbers as typed", "[plugin][hits][state]")
{
    TestProcessor processor;
    setParameter (processor, plugin::ParameterIds::hitMode, 1.0f);
    setParameter (processor, plugin::ParameterIds::onsetThreshold, 2.5f);
    setParameter (processor, plugin::ParameterIds::onsetGap, 0.08f);
    setParameter (processor, plugin::ParameterIds::onsetSilence, -60.0f);
    const auto onsets = processor.hitNotes().onsetSettings();
    CHECK (onsets.threshold == 2.5);
    CHECK (onsets.minGapSeconds == 0.08);
    CHECK (onsets.silenceDb == -60.0);
    const dsp::OnsetSettings defaults;
    TestProcessor fresh;
    CHECK (fresh.hitNotes().onsetSettings().threshold == defaults.threshold); // 1.2 exactly, as the CLI's default
    CHECK (fresh.hitNotes().onsetSettings().minGapSeconds == defaults.minGapSeconds);
    CHECK (fresh.hitNotes().onsetSettings().silenceDb == defaults.silenceDb);
    CHECK_FALSE (fresh.hitNotes().isOn());

    juce::MemoryBlock state;
    processor.getStateInformation (state);
    fresh.setStateInformation (state.getData(), static_cast<int> (state.getSize()));
    CHECK (fresh.hitNotes().isOn());
    CHECK (fresh.hitNotes().onsetSettings().threshold == 2.5);
    CHECK (fresh.hitNotes().onsetSettings().minGapSeconds == 0.08);
    CHECK (fresh.hitNotes().onsetSettings().silenceDb == -60.0);
}

TEST_CASE ("per-hit Live: a kit taught in the Teach view plays each hit within 10 ms of it, on the sample classify --onsets --response live finds, "
           "in any blocks, live as offline",
           "[plugin][offline][hits][live]")
{
    const auto model = juce::File::getSpecialLocation (juce::File::tempDirectory).getNonexistentChildFile ("live_kit", ".safetensors");
    {
        TestProcessor teacher;
        REQUIRE (teachFixtureKit (teacher));
        REQUIRE (teacher.teaching().exportModel (model).isEmpty());
    }
    const auto loaded = engine::Model::load (model.getFullPathName().toStdString());
    REQUIRE (runtime::liveHitClassifierFor (*loaded) != nullptr);
    double rate = 0.0;
    const auto path = kitFile ("pattern.wav");
    const auto signal = readMono (path, rate);
    timeline::HitAnalysisSettings settings;
    settings.live = true; // what classify --onsets --response live finds
    const auto hits = timeline::analyzeHits (path, loaded, settings);
    const auto rendered = kitPattern();
    const int named = hitsNamedAsRendered (hits, rendered);
    INFO (hits.hits.size() << " hits, " << named << " named as rendered, of " << rendered.size());
    CHECK (hits.hits.size() >= rendered.size() - 1);
    CHECK (named >= static_cast<int> (0.9 * static_cast<double> (rendered.size())));
    const auto latency = runtime::LiveHits::latencySamples (rate);
    CHECK (latency <= std::llround (0.01 * rate));

    const auto tail = latency + static_cast<int64_t> (0.2 * rate);
    const auto reference = bounce (signal, rate, model, 441, true, tail);
    checkAgainstHits (reference, hits, signal, latency);
    for (const bool offline : { true, false })
        for (const auto& [block, fixed] : { std::pair { 128, true }, std::pair { 32, true }, std::pair { 1000, false } })
        {
            INFO ((offline ? "offline" : "real time") << ", blocks of " << (fixed ? "" : "1 to ") << block);
            const auto other = bounce (signal, rate, model, block, fixed, tail, offline);
            CHECK (other.latency == latency);
            CHECK (other.notes == reference.notes); // on the audio thread: the same notes live as in a bounce
            CHECK (other.output == reference.output);
        }
    model.deleteFile();
}
