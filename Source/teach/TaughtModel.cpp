#include "teach/TaughtModel.h"

#include "engine/Model.h"
#include "teach/ModelFileEdit.h"

#include <stdexcept>

namespace sonotype::teach
{

std::vector<std::uint8_t> taughtModelFile (std::span<const std::uint8_t> baseFile, const std::string& baseName, const Head& head)
{
    return buildTaughtModel (baseFile, baseName, head).bytes;
}

TaughtModelFile buildTaughtModel (std::span<const std::uint8_t> baseFile, const std::string& baseName, const Head& head, const std::string& examplesJson)
{
    using Json = nlohmann::json;
    detail::ModelFileEdit edit (baseFile);
    auto& metadata = edit.metadata();
    const auto& graph = edit.graph;
    const int embeddingIndex = std::stoi (metadata.at ("embedding_output").get<std::string>());
    const int embedding = graph.at ("outputs").at (static_cast<std::size_t> (embeddingIndex)).get<int>();
    const int baseScores = graph["outputs"][0].get<int>();
    const int64_t dims = edit.elements (embedding);
    const auto numTaught = static_cast<int64_t> (head.prototypes.size());
    for (const auto& prototype : head.prototypes)
        if (static_cast<int64_t> (prototype.size()) != dims)
            throw std::invalid_argument ("the prototypes (" + std::to_string (prototype.size()) + " numbers) do not fit the base model's embedding ("
                                         + std::to_string (dims) + ")");

    // The embedding as one row, L2-normalised: e / sqrt(sum(e^2) + 1e-12).
    const int row = edit.node ("reshape", { embedding }, { 1, dims });
    const int squares = edit.node ("mul", { row, row }, { 1, dims });
    const int sum = edit.node ("reduce_sum", { squares }, { 1, 1 }, { { "axes", { -1 } }, { "keepdim", true } });
    const int padded = edit.node ("add", { sum, edit.tensor ("taught.epsilon", { 1 }, { 1e-12f }) }, { 1, 1 });
    const int norm = edit.node ("sqrt", { padded }, { 1, 1 });
    const int unit = edit.node ("div", { row, norm }, { 1, dims });
    // Cosines to the prototypes: unit @ P, P [dims, classes].
    std::vector<float> columns (static_cast<std::size_t> (dims * numTaught));
    for (int64_t c = 0; c < numTaught; ++c)
        for (int64_t i = 0; i < dims; ++i)
            columns[static_cast<std::size_t> (i * numTaught + c)] = head.prototypes[static_cast<std::size_t> (c)][static_cast<std::size_t> (i)];
    const int cosines = edit.node ("gemm", { unit, edit.tensor ("taught.prototypes", { dims, numTaught }, columns) }, { 1, numTaught },
                                   { { "trans_a", false }, { "trans_b", false }, { "alpha", 1.0 }, { "beta", 0.0 } });
    int scores = 0;
    Json taught = { { "base", baseName }, { "classes", head.labels } };
    if (head.adapted)
    {
        // 4 x (softmax of the base scores over the taught classes + 5 x cosine).
        std::vector<int64_t> indices (head.baseIndex.begin(), head.baseIndex.end());
        const int picked = edit.node ("index_select", { baseScores }, { 1, numTaught }, { { "axis", -1 }, { "indices", indices } });
        const int probabilities = edit.node ("softmax", { picked }, { 1, numTaught }, { { "axis", -1 } });
        const int weighted = edit.node ("mul", { cosines, edit.tensor ("taught.cosine_weight", { 1 }, { Head::kAdaptedCosineWeight }) }, { 1, numTaught });
        const int combined = edit.node ("add", { probabilities, weighted }, { 1, numTaught });
        scores = edit.node ("mul", { combined, edit.tensor ("taught.scale", { 1 }, { Head::kAdaptedScale }) }, { 1, numTaught });
        taught["rule"] = "adapted: the base head over these classes + 5 x cosine to the prototype";
    }
    else
    {
        scores = edit.node ("mul", { cosines, edit.tensor ("taught.scale", { 1 }, { Head::kNewScale }) }, { 1, numTaught });
        if (head.labels.size() > head.prototypes.size())
            scores = edit.node ("concat", { scores, edit.tensor ("taught.unknown", { 1, 1 }, { Head::kNewScale * static_cast<float> (head.unknownBelow) }) },
                                { 1, numTaught + 1 }, { { "axis", -1 } });
        taught["rule"] = "prototypes: cosine to each class's prototype";
        taught["unknown_below"] = head.unknownBelow;
    }
    if (head.hitClipSeconds > 0.0)
        taught["onset_window"] = head.hitClipSeconds; // classify --onsets classifies hits as they were taught
    if (const auto hitEmbedding = metadata.find ("hit_embedding"); hitEmbedding != metadata.end() && hitEmbedding->is_string())
        if (auto described = Json::parse (hitEmbedding->get<std::string>(), nullptr, false); ! described.is_discarded())
            taught["embedding"] = std::move (described); // what hits are embedded from (HitEmbedding.h)
    edit.graph["outputs"] = { scores, embedding };
    metadata["labels"] = Json (head.labels).dump();
    metadata["embedding_output"] = "1";
    metadata["taught"] = taught.dump();
    if (! examplesJson.empty())
        metadata["taught_examples"] = examplesJson;
    else
        metadata.erase ("taught_examples"); // a base that was itself taught: its examples are not these
    auto file = edit.bytes();
    // The engine reads it back as any file from a stranger: a head it would refuse is never written.
    auto model = engine::Model::fromMemory (file.data(), file.size(), "taught model");
    return { std::move (file), std::move (model) };
}

std::string taughtExamplesOf (const engine::Model& model)
{
    const auto& metadata = model.info().metadata;
    const auto found = metadata.find ("taught_examples");
    return found == metadata.end() ? std::string() : found->second;
}

} // namespace sonotype::teach
