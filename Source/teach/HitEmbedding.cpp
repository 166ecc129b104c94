#include "teach/HitEmbedding.h"

#include "teach/ModelFileEdit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sonotype::teach
{
namespace
{
    using Json = nlohmann::json;

    bool isShape (const Json& value, std::size_t rank)
    {
        if (! value.contains ("shape") || ! value["shape"].is_array() || value["shape"].size() != rank)
            return false;
        for (const auto& d : value["shape"])
            if (! d.is_number_integer())
                return false;
        return true;
    }

    /** The value joined after a stored [1, d, 1] tensor by the one concat over the last axis of a
        [1, d, T] sequence (T >= 2); -1 when there is none, or more than one. */
    int tokenSequence (const Json& graph)
    {
        const auto& values = graph.at ("values");
        auto valueAt = [&] (const Json& index) -> const Json* {
            if (! index.is_number_integer() || index.get<int64_t>() < 0 || index.get<std::size_t>() >= values.size())
                return nullptr;
            return &values[index.get<std::size_t>()];
        };
        int found = -1, count = 0;
        for (const auto& node : graph.at ("nodes"))
        {
            if (node.value ("op", "") != "concat" || ! node.contains ("inputs") || node["inputs"].size() != 2)
                continue;
            const auto axis = node.contains ("attrs") ? node["attrs"].value ("axis", 0) : 0;
            if (axis != 2 && axis != -1)
                continue;
            const auto* first = valueAt (node["inputs"][0]);
            const auto* second = valueAt (node["inputs"][1]);
            if (first == nullptr || second == nullptr || ! isShape (*first, 3) || ! isShape (*second, 3))
                continue;
            const auto& token = (*first)["shape"];
            const auto& sequence = (*second)["shape"];
            if (first->value ("kind", "") == "tensor" && second->value ("kind", "") == "node" && token[0] == 1 && sequence[0] == 1
                && token[1] == sequence[1] && token[2] == 1 && sequence[2].get<int64_t>() >= 2)
            {
                found = node["inputs"][1].get<int>();
                ++count;
            }
        }
        return count == 1 ? found : -1;
    }
} // namespace

std::optional<std::vector<std::uint8_t>> hitEmbeddingModelFile (std::span<const std::uint8_t> baseFile, const HitEmbeddingSpan& span)
{
    if (! (span.fromSeconds >= 0.0 && span.toSeconds > span.fromSeconds && span.toSeconds <= 60.0))
        throw std::invalid_argument ("the span of a hit's tokens must lie within 0-60 seconds, and not be empty");
    detail::ModelFileEdit edit (baseFile);
    auto& metadata = edit.metadata();
    if (metadata.contains ("hit_embedding"))
        return std::vector<std::uint8_t> (baseFile.begin(), baseFile.end());
    const int tokens = tokenSequence (edit.graph);
    if (tokens < 0 || ! metadata.contains ("frontend") || ! metadata["frontend"].is_string())
        return std::nullopt;
    const auto frontend = Json::parse (metadata["frontend"].get<std::string>(), nullptr, false);
    if (frontend.is_discarded() || ! frontend.is_object() || ! frontend.contains ("window_samples") || ! frontend.contains ("sample_rate")
        || ! frontend["window_samples"].is_number() || ! frontend["sample_rate"].is_number())
        return std::nullopt;
    const double windowSeconds = frontend["window_samples"].get<double>() / frontend["sample_rate"].get<double>();
    const auto& shape = edit.graph["values"][static_cast<std::size_t> (tokens)]["shape"];
    const auto dims = shape[1].get<int64_t>(), count = shape[2].get<int64_t>();
    if (! (windowSeconds > 0.0 && std::isfinite (windowSeconds)))
        return std::nullopt;
    const double perSecond = static_cast<double> (count) / windowSeconds;
    const auto from = std::min<int64_t> (std::llround (span.fromSeconds * perSecond), count - 1);
    const auto to = std::clamp<int64_t> (std::llround (span.toSeconds * perSecond), from + 1, count);

    // The mean of tokens [from, to): a slice of the sequence's last axis, then its mean.
    const int slice = edit.node ("slice", { tokens }, { 1, dims, to - from }, { { "axis", 2 }, { "start", from }, { "step", 1 } }, "hit embedding");
    const int mean = edit.node ("reduce_mean", { slice }, { 1, dims }, { { "axes", { -1 } }, { "keepdim", false } }, "hit embedding");
    auto& outputs = edit.graph["outputs"];
    std::size_t embedding = outputs.size();
    if (metadata.contains ("embedding_output") && metadata["embedding_output"].is_string())
    {
        // The output it names, when that is one of the outputs (but 0, the scores); else the hit embedding is a new output.
        const auto& text = metadata["embedding_output"].get_ref<const std::string&>();
        for (std::size_t k = 1; k < outputs.size(); ++k)
            if (text == std::to_string (k))
                embedding = k;
    }
    if (embedding == outputs.size())
        outputs.push_back (mean);
    else
        outputs[embedding] = mean;
    metadata["embedding_output"] = std::to_string (embedding);
    metadata["hit_embedding"] = Json { { "from", "the token sequence (graph value " + std::to_string (tokens) + ")" },
                                       { "tokens", { from, to } },
                                       { "of", count },
                                       { "seconds", { std::round (1000.0 * static_cast<double> (from) / perSecond) / 1000.0,
                                                      std::round (1000.0 * static_cast<double> (to) / perSecond) / 1000.0 } } }
                                    .dump();
    return edit.bytes();
}

} // namespace sonotype::teach
