#include "teach/TaughtModel.h"

#include "engine/Model.h"
#include "engine/OpTable.h"
#include "engine/file/JsonWriter.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFileKeys.h"
#include "engine/file/ModelFileWriter.h"
#include "engine/file/ModelMetadata.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

namespace sonotype::teach
{
namespace
{
    using engine::JsonValue;
    namespace keys = engine::keys;

    /** The names of the head's stored tensors: "taught.scale" and so on, or "taught2.scale" and so
        on in a file taught before (whose head stays: an adapted rule reads its scores). */
    struct TensorNames
    {
        std::string prefix;
        std::string operator() (const char* name) const { return prefix + "." + name; }
    };

    TensorNames tensorNamesFor (const engine::ModelFileWriter& file)
    {
        static constexpr const char* kNames[] = { "epsilon", "prototypes", "cosine_weight", "scale", "unknown", "cosine_below", "gate_gain", "level_below", "level_gain", "live_signatures", "live_labels", "live_scales" };
        for (int k = 1;; ++k)
        {
            const std::string prefix (engine::keys::taughtTensorPrefix);
            const TensorNames names { k == 1 ? prefix : prefix + std::to_string (k) };
            if (std::none_of (std::begin (kNames), std::end (kNames), [&] (const char* name) { return file.hasTensor (names (name)); }))
                return names;
        }
    }

    /** A node of the head, its op named from the engine's op table. */
    int node (engine::ModelFileWriter& file, engine::OpKind op, const std::vector<int>& inputs, const std::vector<int64_t>& shape,
              JsonValue::Object attrs = {})
    {
        return file.node (engine::opName (op), inputs, shape, JsonValue::object (std::move (attrs)), "taught head");
    }

    JsonValue integers (const std::vector<int64_t>& items)
    {
        JsonValue::Array list;
        for (const auto item : items)
            list.push_back (JsonValue::integer (item));
        return JsonValue::array (std::move (list));
    }

    JsonValue numbers (const std::vector<float>& items)
    {
        JsonValue::Array list;
        for (const auto item : items)
            list.push_back (JsonValue::number (item));
        return JsonValue::array (std::move (list));
    }

    JsonValue strings (const std::vector<std::string>& items)
    {
        JsonValue::Array list;
        for (const auto& item : items)
            list.push_back (JsonValue::string (item));
        return JsonValue::array (std::move (list));
    }

    /** Unknown's score after the classes' (Prototypes.h): the best class's score less gateGain x how far
        the best class clears its threshold, plus the level gate's kLevelGain per dB under it. */
    int appendUnknown (engine::ModelFileWriter& file, const Head& head, const TensorNames& name, int cosines, int scores, int level, JsonValue& taught)
    {
        using K = engine::OpKind;
        const auto numTaught = static_cast<int64_t> (head.prototypes.size());
        const JsonValue::Object lastAxis { { "axes", integers ({ -1 }) }, { "keepdim", JsonValue::boolean (true) } };
        std::vector<float> below;
        for (std::size_t c = 0; c < head.prototypes.size(); ++c)
            below.push_back (head.threshold (c));
        const int thresholds = file.tensor (name ("cosine_below"), { 1, numTaught }, below);
        const int margins = node (file, K::sub, { cosines, thresholds }, { 1, numTaught });
        const int clears = node (file, K::reduceMax, { margins }, { 1, 1 }, lastAxis);
        const int best = node (file, K::reduceMax, { scores }, { 1, 1 }, lastAxis);
        const float gain[] = { head.gateGain() };
        const int penalty = node (file, K::mul, { clears, file.tensor (name ("gate_gain"), { 1 }, gain) }, { 1, 1 });
        int unknown = node (file, K::sub, { best, penalty }, { 1, 1 });
        auto gate = JsonValue::object ({ { keys::taughtGateThresholds, numbers (below) } });
        if (! std::isnan (head.levelBelowDb))
        {
            if (level < 0)
                throw std::invalid_argument ("the head has a level gate, and the model it extends no level output");
            const float gateLevel[] = { head.levelBelowDb }, levelGain[] = { Head::kLevelGain };
            const int under = node (file, K::sub, { file.tensor (name ("level_below"), { 1 }, gateLevel), level }, { 1, 1 });
            const int positive = node (file, K::relu, { under }, { 1, 1 });
            const int added = node (file, K::mul, { positive, file.tensor (name ("level_gain"), { 1 }, levelGain) }, { 1, 1 });
            unknown = node (file, K::add, { unknown, added }, { 1, 1 });
            gate.set (keys::taughtGateLevel, JsonValue::number (head.levelBelowDb));
        }
        taught.set (keys::taughtGate, std::move (gate));
        if (! std::isnan (head.unknownBelow))
            taught.set (keys::taughtUnknownBelow, JsonValue::number (head.unknownBelow));
        return node (file, K::concat, { scores, unknown }, { 1, numTaught + 1 }, { { "axis", JsonValue::integer (-1) } });
    }

    /** The head's nodes after the embedding; its scores' value, and what the "taught" record says of the rule. */
    int appendHead (engine::ModelFileWriter& file, const Head& head, const TensorNames& name, int embedding, int baseScores, int level,
                    JsonValue& taught)
    {
        using K = engine::OpKind;
        const int64_t dims = file.elements (embedding);
        const auto numTaught = static_cast<int64_t> (head.prototypes.size());
        for (const auto& prototype : head.prototypes)
            if (static_cast<int64_t> (prototype.size()) != dims)
                throw std::invalid_argument ("the prototypes (" + std::to_string (prototype.size()) + " numbers) do not fit the base model's embedding ("
                                             + std::to_string (dims) + ")");

        // The embedding as one row, L2-normalised: e / sqrt(sum(e^2) + 1e-12).
        const int row = node (file, K::reshape, { embedding }, { 1, dims });
        const int squares = node (file, K::mul, { row, row }, { 1, dims });
        const int sum = node (file, K::reduceSum, { squares }, { 1, 1 }, { { "axes", integers ({ -1 }) }, { "keepdim", JsonValue::boolean (true) } });
        const float epsilon[] = { 1e-12f };
        const int padded = node (file, K::add, { sum, file.tensor (name ("epsilon"), { 1 }, epsilon) }, { 1, 1 });
        const int norm = node (file, K::sqrt, { padded }, { 1, 1 });
        const int unit = node (file, K::div, { row, norm }, { 1, dims });
        // Cosines to the prototypes: unit @ P, P [dims, classes].
        std::vector<float> columns (static_cast<std::size_t> (dims * numTaught));
        for (int64_t c = 0; c < numTaught; ++c)
            for (int64_t i = 0; i < dims; ++i)
                columns[static_cast<std::size_t> (i * numTaught + c)] = head.prototypes[static_cast<std::size_t> (c)][static_cast<std::size_t> (i)];
        const int prototypes = file.tensor (name ("prototypes"), { dims, numTaught }, columns);
        const int cosines = node (file, K::gemm, { unit, prototypes }, { 1, numTaught },
                                  { { "trans_a", JsonValue::boolean (false) },
                                    { "trans_b", JsonValue::boolean (false) },
                                    { "alpha", JsonValue::number (1.0) },
                                    { "beta", JsonValue::number (0.0) } });
        int scores = -1;
        if (head.adapted)
        {
            // 4 x (softmax of the base scores over the taught classes + 5 x cosine).
            const std::vector<int64_t> indices (head.baseIndex.begin(), head.baseIndex.end());
            const int picked = node (file, K::indexSelect, { baseScores }, { 1, numTaught },
                                     { { "axis", JsonValue::integer (-1) }, { "indices", integers (indices) } });
            const int probabilities = node (file, K::softmax, { picked }, { 1, numTaught }, { { "axis", JsonValue::integer (-1) } });
            const float weight[] = { Head::kAdaptedCosineWeight }, scale[] = { Head::kAdaptedScale };
            const int weighted = node (file, K::mul, { cosines, file.tensor (name ("cosine_weight"), { 1 }, weight) }, { 1, numTaught });
            const int combined = node (file, K::add, { probabilities, weighted }, { 1, numTaught });
            taught.set (keys::taughtRule, JsonValue::string ("adapted: the base head over these classes + 5 x cosine to the prototype"));
            scores = node (file, K::mul, { combined, file.tensor (name ("scale"), { 1 }, scale) }, { 1, numTaught });
        }
        else
        {
            const float scale[] = { Head::kNewScale };
            scores = node (file, K::mul, { cosines, file.tensor (name ("scale"), { 1 }, scale) }, { 1, numTaught });
            taught.set (keys::taughtRule, JsonValue::string ("prototypes: cosine to each class's prototype"));
        }
        if (! head.hasUnknown())
            return scores;
        return appendUnknown (file, head, name, cosines, scores, level, taught);
    }

    /** The live per-hit classifier's tensors, stored beside the head's, and its record naming them
        (runtime/LiveHitClassifier.h reads it back). */
    JsonValue liveHitsRecord (engine::ModelFileWriter& file, const runtime::LiveHitKit& kit, const TensorNames& name)
    {
        const auto n = static_cast<int64_t> (kit.numExamples());
        const std::vector<float> labels (kit.labels.begin(), kit.labels.end());
        file.tensor (name ("live_signatures"), { n, dsp::HitSignature::kSize }, kit.signatures);
        file.tensor (name ("live_labels"), { n }, labels);
        file.tensor (name ("live_scales"), { dsp::HitSignature::kSize }, kit.scales);
        return JsonValue::object ({ { keys::liveHitSignatures, JsonValue::string (name ("live_signatures")) },
                                    { keys::liveHitLabels, JsonValue::string (name ("live_labels")) },
                                    { keys::liveHitScales, JsonValue::string (name ("live_scales")) },
                                    { keys::liveHitGate, JsonValue::number (kit.gate) },
                                    { keys::liveHitAfter, JsonValue::number (kit.afterSeconds) } });
    }

    /** The taught file, as the base file with the head appended (not loaded yet). */
    /** The "midi_notes" entry: the notes chosen for head's classes (a base taught before loses its own). */
    void setChosenNotes (engine::ModelFileWriter& file, const Head& head, const ChosenNotes& notes)
    {
        std::vector<int> chosen;
        for (const auto& label : head.labels)
        {
            const auto found = notes.find (label);
            chosen.push_back (found == notes.end() ? -1 : found->second);
        }
        if (const auto entry = engine::classNotesEntry (head.labels, chosen); ! entry.empty())
            file.setMetadata (keys::midiNotes, entry);
        else
            file.eraseMetadata (keys::midiNotes);
    }

    std::vector<std::uint8_t> taughtBytes (std::span<const std::uint8_t> baseFile, const std::string& baseName, const Head& head,
                                           const std::string& examplesJson, const ChosenNotes& notes)
    {
        engine::ModelFileWriter file (baseFile, "base model");
        const auto outputs = file.outputs();
        const auto* embeddingText = file.metadata (keys::embeddingOutput);
        if (embeddingText == nullptr || outputs.empty())
            throw std::invalid_argument ("the base model has no embedding output");
        const auto embeddingIndex = engine::readEmbeddingOutput ({ { keys::embeddingOutput, *embeddingText } }, outputs.size());
        const int embedding = outputs[static_cast<std::size_t> (*embeddingIndex)];

        auto taught = JsonValue::object ({ { keys::taughtBase, JsonValue::string (baseName) }, { keys::taughtClasses, strings (head.labels) } });
        // The window's level (teach/WindowLevel.h), where the extended file has one: the level gate's input, and kept as an output.
        std::optional<std::size_t> levelIndex;
        if (const auto* levelText = file.metadata (keys::levelOutput))
            for (std::size_t k = 1; k < outputs.size(); ++k)
                if (*levelText == std::to_string (k) && static_cast<int> (k) != embeddingIndex.value_or (-1))
                    levelIndex = k;
        const int level = levelIndex.has_value() ? outputs[*levelIndex] : -1;
        const auto names = tensorNamesFor (file); // the head's and the live classifier's
        const int scores = appendHead (file, head, names, embedding, outputs[0], level, taught);
        if (head.live.has_value())
            taught.set (keys::taughtLiveHits, liveHitsRecord (file, *head.live, names));
        if (head.hitClipSeconds > 0.0)
            taught.set (keys::taughtOnsetWindow, JsonValue::number (head.hitClipSeconds)); // classify --onsets classifies hits as they were taught
        if (const auto* hitEmbedding = file.metadata (keys::hitEmbedding))
            try
            {
                taught.set (keys::taughtEmbedding, engine::parseJson (*hitEmbedding)); // what hits are embedded from (HitEmbedding.h)
            }
            catch (const engine::JsonError&)
            {
            }
        file.setOutputs (level >= 0 ? std::vector<int> { scores, embedding, level } : std::vector<int> { scores, embedding });
        file.setMetadata (keys::labels, engine::writeJson (strings (head.labels)));
        file.setMetadata (keys::embeddingOutput, "1");
        if (level >= 0)
            file.setMetadata (keys::levelOutput, "2");
        file.setMetadata (keys::taught, engine::writeJson (taught));
        setChosenNotes (file, head, notes);
        if (! examplesJson.empty())
            file.setMetadata (keys::taughtExamples, examplesJson);
        else
            file.eraseMetadata (keys::taughtExamples); // a base that was itself taught: its examples are not these
        return file.bytes();
    }
} // namespace

std::vector<std::uint8_t> taughtModelFile (std::span<const std::uint8_t> baseFile, const std::string& baseName, const Head& head)
{
    return buildTaughtModel (baseFile, baseName, head).bytes;
}

TaughtModelFile buildTaughtModel (std::span<const std::uint8_t> baseFile, const std::string& baseName, const Head& head, const std::string& examplesJson,
                                  const ChosenNotes& notes)
{
    std::vector<std::uint8_t> file;
    try
    {
        file = taughtBytes (baseFile, baseName, head, examplesJson, notes);
    }
    catch (const engine::ModelError& e) // the base file is not a model the head can be added to
    {
        throw std::invalid_argument (e.what());
    }
    catch (const engine::JsonError& e) // a name or label that is not UTF-8 text
    {
        throw std::invalid_argument (e.what());
    }
    // The engine reads it back as any file from a stranger: a head it would refuse is never written.
    auto model = engine::Model::fromMemory (file.data(), file.size(), "taught model");
    return { std::move (file), std::move (model) };
}

std::string taughtExamplesOf (const engine::Model& model)
{
    const auto& metadata = model.info().metadata;
    const auto found = metadata.find (keys::taughtExamples);
    return found == metadata.end() ? std::string() : found->second;
}

} // namespace sonotype::teach
