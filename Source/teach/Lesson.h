// One teaching, from a base model's file and examples to the taught model file: the pipeline both
// `sonotype learn` and the plugin run, so that what the CLI writes and what the plugin runs are
// taught the same way. A lesson is on one base model (its file's bytes and the model loaded from
// them) and holds the steps that depend on it:
// - which file a taught model extends and which model embeds the examples: the base, or with
//   `hits` its hit embedding (teach/HitEmbedding.h) where the base has a token sequence, each with
//   the window's level as an output (teach/WindowLevel.h) where its front end has one, made once;
// - the examples: of files (examplesOf) or of sounds in memory, whose embeddings are kept by the
//   sound's id, so that a caller that teaches again after one example changed (the plugin, on
//   every edit) embeds only the new ones;
// - learning (teach::learn) and the leave-one-file-out check (teach::leaveOneFileOut);
// - the taught model file (teach::buildTaughtModel).
// No JUCE, no threads: one thread uses a lesson at a time (the CLI's, or the plugin's model
// service).
#pragma once

#include "engine/Model.h"
#include "engine/file/LoadLimits.h"
#include "teach/LiveHitLearning.h"
#include "teach/Prototypes.h"
#include "teach/TaughtModel.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace sonotype::teach
{

struct LessonSettings
{
    double hopSeconds = 0.25;                 // the time between the windows of an example (not hits)
    bool hits = false;                        // each hit of an example is one example (drum pieces, for per-hit MIDI)
    double clipSeconds = 0.12;                // hits: the clip after each onset a hit is embedded from
    double unknownBelow = kCalibratedUnknown; // unknown: calibrated gates (Prototypes.h), or one cosine for all (-1: never)
};

class Lesson
{
public:
    /** A lesson on the model file `baseFile` (its bytes), `base` being that file as loaded and
        `baseName` what the taught model names as its base (a file name, or "built-in"). `limits`
        bound the hit-embedding model made from it. */
    Lesson (std::vector<std::uint8_t> baseFile, std::shared_ptr<const engine::Model> base, std::string baseName,
            const LessonSettings& settings = {}, const engine::LoadLimits& limits = {});

    const LessonSettings& settings() const noexcept { return settings_; }
    /** New settings; the embeddings kept are dropped when the hop, the hits or the clip changed
        (not for another unknownBelow, which only the learning uses). */
    void setSettings (const LessonSettings& settings);

    /** The model the examples are embedded with, whose file the taught model extends: the base,
        or with hits its hit embedding where the base has a token sequence, with the window's level
        as an output where the front end has one (made at the first call; throws as
        teach::hitEmbeddingModelFile, teach::levelModelFile and engine::Model::fromMemory). */
    const std::shared_ptr<const engine::Model>& embedder();
    /** Whether the embedder is the base's hit embedding (its token sequence), not the base's own embedding. */
    bool embedsTokens();

    /** The examples the audio file at `path` gives (teach::examplesOf, with the embedder). */
    std::vector<Example> examplesOfFile (const std::string& path);
    /** The examples a sound in memory gives (mono samples at `sampleRate`): one, or with hits one
        per hit found in it (none when it has none); their source is "example <id>". Kept by `id`:
        a sound of an id asked for before is not embedded again (its samples must be the same). */
    const std::vector<Example>& examplesOfSound (std::uint64_t id, std::span<const float> samples, double sampleRate);
    /** Forgets the embeddings kept of the sounds whose ids are not in `ids` (removed examples). */
    void keepOnly (const std::set<std::uint64_t>& ids);

    /** What one learning gives: the head (its hitClipSeconds set with hits) and how each example
        came out when learned without its file (the leave-one-out table). */
    struct Learned
    {
        Head head;
        Confusion confusion;
        std::optional<LiveHitCheck> liveCheck; // taught from hits: the live classifier's leave-one-out check
    };
    /** Learns from `classes` (each with at least one example) over the base's labels. Throws
        std::invalid_argument as teach::learn does. */
    Learned learn (const std::vector<TaughtClass>& classes);

    /** The taught model: the embedder's file extended by `head`, with `examplesJson` and the
        notes chosen for its classes in its metadata (teach::buildTaughtModel). */
    TaughtModelFile build (const Head& head, const std::string& examplesJson = {}, const ChosenNotes& notes = {});
    /** The file `build` extends (kept, so that a head can be built again later: an export). */
    std::shared_ptr<const std::vector<std::uint8_t>> extendedFile();
    const std::string& baseName() const noexcept { return baseName_; }
    /** The base's identity (teach::modelIdentity of its name and bytes). */
    std::string baseIdentity() const;

private:
    /** The file and model examples are embedded with, one for each way (whole sounds, hits). */
    struct Embedder
    {
        std::shared_ptr<const std::vector<std::uint8_t>> file;
        std::shared_ptr<const engine::Model> model;
        bool tokens = false;
    };
    Embedder& makeEmbedder();

    std::shared_ptr<const std::vector<std::uint8_t>> baseFile_;
    std::shared_ptr<const engine::Model> base_;
    std::string baseName_;
    LessonSettings settings_;
    engine::LoadLimits limits_;
    // Made once each: for whole sounds, the base with its level; for hits, the hit-embedding file
    // with its level (the base's own embedding where it has no token sequence).
    Embedder whole_, hits_;
    std::map<std::uint64_t, std::vector<Example>> embedded_; // by sound id, with the settings above
};

} // namespace sonotype::teach
