#include "teach/Lesson.h"

#include "runtime/WindowAnalyzer.h"
#include "teach/ExampleSet.h"
#include "teach/HitEmbedding.h"
#include "teach/WindowLevel.h"

#include <utility>

namespace sonotype::teach
{

Lesson::Lesson (std::vector<std::uint8_t> baseFile, std::shared_ptr<const engine::Model> base, std::string baseName,
                const LessonSettings& settings, const engine::LoadLimits& limits)
    : baseFile_ (std::make_shared<const std::vector<std::uint8_t>> (std::move (baseFile))), base_ (std::move (base)),
      baseName_ (std::move (baseName)), settings_ (settings), limits_ (limits)
{
}

void Lesson::setSettings (const LessonSettings& settings)
{
    if (settings.hopSeconds != settings_.hopSeconds || settings.hits != settings_.hits || settings.clipSeconds != settings_.clipSeconds)
        embedded_.clear(); // embedded another way
    settings_ = settings;
}

Lesson::Embedder& Lesson::makeEmbedder()
{
    // Hits are embedded from the model's token sequence where it has one (teach/HitEmbedding.h),
    // and both ways measure each window's level (teach/WindowLevel.h); the taught model extends
    // that file. Made once per lesson, not once per learning.
    auto& embedder = settings_.hits ? hits_ : whole_;
    if (embedder.model != nullptr)
        return embedder;
    std::optional<std::vector<std::uint8_t>> file;
    if (settings_.hits)
        file = hitEmbeddingModelFile (*baseFile_);
    embedder.tokens = file.has_value();
    if (auto measured = levelModelFile (file.has_value() ? std::span<const std::uint8_t> (*file) : std::span<const std::uint8_t> (*baseFile_)))
        file = std::move (measured);
    if (file.has_value())
    {
        auto bytes = std::make_shared<const std::vector<std::uint8_t>> (std::move (*file));
        embedder.model = engine::Model::fromMemory (bytes->data(), bytes->size(), base_->info().name, limits_);
        embedder.file = std::move (bytes);
    }
    else
    {
        embedder.file = baseFile_;
        embedder.model = base_;
    }
    return embedder;
}

const std::shared_ptr<const engine::Model>& Lesson::embedder()
{
    return makeEmbedder().model;
}

bool Lesson::embedsTokens()
{
    return makeEmbedder().tokens;
}

std::shared_ptr<const std::vector<std::uint8_t>> Lesson::extendedFile()
{
    return makeEmbedder().file;
}

std::vector<Example> Lesson::examplesOfFile (const std::string& path)
{
    ExampleSettings settings;
    settings.hopSeconds = settings_.hopSeconds;
    settings.hits = settings_.hits;
    settings.clipSeconds = settings_.clipSeconds;
    return examplesOf (path, embedder(), settings);
}

const std::vector<Example>& Lesson::examplesOfSound (std::uint64_t id, std::span<const float> samples, double sampleRate)
{
    if (const auto found = embedded_.find (id); found != embedded_.end())
        return found->second;
    const auto source = "example " + std::to_string (id);
    std::vector<Example> examples;
    if (settings_.hits)
    {
        ExampleSettings settings;
        settings.hits = true;
        settings.clipSeconds = settings_.clipSeconds;
        examples = hitExamplesOfSamples (samples, sampleRate, source, embedder(), settings);
    }
    else
        examples.push_back (exampleOfSamples (samples, sampleRate, source, embedder(), settings_.hopSeconds));
    return embedded_.emplace (id, std::move (examples)).first->second;
}

void Lesson::keepOnly (const std::set<std::uint64_t>& ids)
{
    std::erase_if (embedded_, [&ids] (const auto& entry) { return ids.count (entry.first) == 0; });
}

Lesson::Learned Lesson::learn (const std::vector<TaughtClass>& classes)
{
    const auto baseLabels = runtime::classLabels (*embedder()); // (a hit embedding keeps the base's labels)
    Learned learned;
    learned.head = teach::learn (classes, baseLabels, settings_.unknownBelow);
    learned.head.hitClipSeconds = settings_.hits ? settings_.clipSeconds : 0.0; // classified as they were taught
    if (settings_.hits)                                                         // the live per-hit mode's classifier, from the hits' signatures
    {
        learned.head.live = learnLiveHits (classes, dsp::HitSignature::kDefaultAfterSeconds);
        if (learned.head.live.has_value())
            learned.liveCheck = leaveOneOut (*learned.head.live, static_cast<int> (classes.size()));
    }
    // Leave one file out: what tells whether the classes are separable.
    learned.confusion = leaveOneFileOut (classes, baseLabels, settings_.unknownBelow);
    return learned;
}

TaughtModelFile Lesson::build (const Head& head, const std::string& examplesJson, const ChosenNotes& notes)
{
    return buildTaughtModel (*extendedFile(), baseName_, head, examplesJson, notes);
}

std::string Lesson::baseIdentity() const
{
    return modelIdentity (baseName_, baseFile_->data(), baseFile_->size());
}

} // namespace sonotype::teach
