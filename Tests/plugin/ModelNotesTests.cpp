// The notes the plugin's worker plays for a model's classes (plugin::ModelNotes): the note map over
// the generation's labels and the notes its file chose, at the Base note; and the window notes
// MidiScheduler writes with them.
#include "engine/Model.h"
#include "plugin/MidiScheduler.h"
#include "plugin/ModelNotes.h"
#include "support/SafetensorsWriter.h"

#include <catch2/catch.hpp>

using namespace sonotype;

namespace
{
/** A model of four classes ("kick", "snare", "zap", "unknown") whose file chose 40 for the snare. */
std::shared_ptr<const engine::Model> kitModel()
{
    const std::string graph = R"({"inputs":[0],"outputs":[4],"values":[
        {"shape":[2,3],"kind":"input"},{"shape":[4,3],"kind":"tensor","tensor":"w"},{"shape":[4],"kind":"tensor","tensor":"b"},
        {"shape":[2,4],"kind":"node"},{"shape":[2,4],"kind":"node"}],
      "nodes":[{"op":"gemm","inputs":[0,1,2],"outputs":[3],"attrs":{"trans_b":true}},
               {"op":"softmax","inputs":[3],"outputs":[4],"attrs":{"axis":1}}]})";
    auto metadata = testing::modelMetadata (graph);
    metadata["labels"] = R"(["kick","snare","zap","unknown"])";
    metadata["midi_notes"] = R"({"snare":40})";
    const auto bytes = testing::safetensorsBytes (
        { { "w", { 4, 3 }, { 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1 } }, { "b", { 4 }, { 0.5f, -0.5f, 0, 1 } } }, metadata);
    return engine::Model::fromMemory (bytes.data(), bytes.size(), "kit");
}

runtime::AnalysisInfo infoOf (std::shared_ptr<const engine::Model> model, std::vector<std::string> labels, uint64_t generation)
{
    runtime::AnalysisInfo info;
    info.model = std::move (model);
    info.labels = std::move (labels);
    info.generation = generation;
    return info;
}
} // namespace

TEST_CASE ("the worker's notes: the file's chosen notes, the names' drums, the Base note for the rest, per generation", "[plugin][notemap]")
{
    plugin::ModelNotes notes;
    const auto kit = infoOf (kitModel(), { "kick", "snare", "zap", "unknown" }, 1);
    CHECK (notes.noteOf (kit, 0, 36) == 36);                // General MIDI: Bass Drum 1
    CHECK (notes.noteOf (kit, 1, 36) == 40);                // chosen in the file
    CHECK (notes.noteOf (kit, 2, 36) == 38);                // 36 + 2
    CHECK (notes.noteOf (kit, 3, 36) == timeline::kNoNote); // unknown: no piece, no note
    CHECK (notes.noteOf (kit, -1, 36) == timeline::kNoNote);
    CHECK (notes.noteOf (kit, 600, 36) == timeline::kNoNote);
    // Another Base note moves only the classes without a note of their own.
    CHECK (notes.noteOf (kit, 0, 60) == 36);
    CHECK (notes.noteOf (kit, 2, 60) == 62);
    // Another generation (another model): its own notes, at once.
    const auto other = infoOf (nullptr, { "silence", "noise", "speech", "drums" }, 2);
    for (int c = 0; c < 4; ++c)
        CHECK (notes.noteOf (other, c, 36) == 36 + c);
}

TEST_CASE ("window notes play the running model's notes", "[plugin][notemap]")
{
    std::atomic<float> midiOut { 1.0f }, threshold { 50.0f }, baseNote { 36.0f };
    plugin::MidiScheduler scheduler (midiOut, threshold, baseNote);
    scheduler.reset();
    const auto kit = infoOf (kitModel(), { "kick", "snare", "zap", "unknown" }, 1);
    const std::vector<bool> enabled (4, true);
    std::vector<int> played;
    juce::MidiBuffer midi;
    midi.ensureSize (1024);
    int64_t sample = 0;
    for (const int top : { 0, 0, 1, 1, 2, 2, 3, 3 })
    {
        runtime::WindowResult result;
        result.probabilities.assign (4, 0.02f);
        result.probabilities[static_cast<std::size_t> (top)] = 0.94f;
        result.topClass = top;
        result.confidence = 0.94f;
        result.readySample = sample;
        scheduler.queueEvents (result, kit, enabled);
        midi.clear();
        scheduler.writeBlock (midi, 512, false, true);
        sample += 512;
        for (const auto metadata : midi)
            if (metadata.getMessage().isNoteOn())
                played.push_back (metadata.getMessage().getNoteNumber());
    }
    CHECK (played == std::vector<int> { 36, 40, 38 }); // (unknown plays nothing)
}
