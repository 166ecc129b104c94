#include "teach/TaughtModel.h"

#include "engine/Model.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <stdexcept>

namespace sonotype::teach
{
namespace
{
    using Json = nlohmann::json;

    uint64_t readLE64 (const std::uint8_t* p)
    {
        uint64_t v = 0;
        for (int i = 7; i >= 0; --i)
            v = (v << 8) | p[i];
        return v;
    }

    /** Builds the appended part of the graph and its tensors. */
    struct GraphEditor
    {
        Json& graph;
        Json& header;
        std::vector<std::uint8_t>& data;

        int value (const std::vector<int64_t>& shape)
        {
            graph["values"].push_back ({ { "shape", shape }, { "kind", "node" } });
            return static_cast<int> (graph["values"].size()) - 1;
        }

        int tensor (const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& values)
        {
            const auto begin = data.size();
            data.resize (begin + values.size() * sizeof (float));
            for (std::size_t i = 0; i < values.size(); ++i)
            {
                std::uint32_t bits;
                std::memcpy (&bits, &values[i], sizeof bits);
                for (int b = 0; b < 4; ++b)
                    data[begin + i * 4 + static_cast<std::size_t> (b)] = static_cast<std::uint8_t> (bits >> (8 * b)); // little-endian
            }
            header[name] = { { "dtype", "F32" }, { "shape", shape }, { "data_offsets", { begin, data.size() } } };
            graph["values"].push_back ({ { "shape", shape }, { "kind", "tensor" }, { "tensor", name } });
            return static_cast<int> (graph["values"].size()) - 1;
        }

        int node (const std::string& op, const std::vector<int>& inputs, const std::vector<int64_t>& shape, Json attrs = Json::object())
        {
            const int out = value (shape);
            Json n = { { "op", op }, { "inputs", inputs }, { "outputs", { out } }, { "source", "taught head" } };
            if (! attrs.empty())
                n["attrs"] = std::move (attrs);
            graph["nodes"].push_back (std::move (n));
            return out;
        }
    };
} // namespace

std::vector<std::uint8_t> taughtModelFile (std::span<const std::uint8_t> baseFile, const std::string& baseName, const Head& head)
{
    return buildTaughtModel (baseFile, baseName, head).bytes;
}

TaughtModelFile buildTaughtModel (std::span<const std::uint8_t> baseFile, const std::string& baseName, const Head& head, const std::string& examplesJson)
{
    if (baseFile.size() < 8)
        throw std::invalid_argument ("the base model file is too short");
    const auto headerSize = readLE64 (baseFile.data());
    if (headerSize > baseFile.size() - 8)
        throw std::invalid_argument ("the base model file's header is cut short");
    Json header = Json::parse (baseFile.begin() + 8, baseFile.begin() + 8 + static_cast<std::ptrdiff_t> (headerSize));
    std::vector<std::uint8_t> data (baseFile.begin() + 8 + static_cast<std::ptrdiff_t> (headerSize), baseFile.end());
    auto& metadata = header.at ("__metadata__");
    Json graph = Json::parse (metadata.at ("graph").get<std::string>());
    const int embeddingIndex = std::stoi (metadata.at ("embedding_output").get<std::string>());
    const int embedding = graph.at ("outputs").at (static_cast<std::size_t> (embeddingIndex)).get<int>();
    const int baseScores = graph["outputs"][0].get<int>();
    int64_t dims = 1;
    for (const auto& d : graph["values"][static_cast<std::size_t> (embedding)]["shape"])
        dims *= d.get<int64_t>();
    const auto numTaught = static_cast<int64_t> (head.prototypes.size());
    for (const auto& prototype : head.prototypes)
        if (static_cast<int64_t> (prototype.size()) != dims)
            throw std::invalid_argument ("the prototypes (" + std::to_string (prototype.size()) + " numbers) do not fit the base model's embedding ("
                                         + std::to_string (dims) + ")");

    GraphEditor edit { graph, header, data };
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
    graph["outputs"] = { scores, embedding };
    metadata["graph"] = graph.dump();
    metadata["labels"] = Json (head.labels).dump();
    metadata["embedding_output"] = "1";
    metadata["taught"] = taught.dump();
    if (! examplesJson.empty())
        metadata["taught_examples"] = examplesJson;
    else
        metadata.erase ("taught_examples"); // a base that was itself taught: its examples are not these

    std::string text = header.dump (-1, ' ', false, Json::error_handler_t::strict);
    text.append ((8 - text.size() % 8) % 8, ' ');
    std::vector<std::uint8_t> file (8);
    for (int b = 0; b < 8; ++b)
        file[static_cast<std::size_t> (b)] = static_cast<std::uint8_t> (static_cast<uint64_t> (text.size()) >> (8 * b));
    file.insert (file.end(), text.begin(), text.end());
    file.insert (file.end(), data.begin(), data.end());
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
