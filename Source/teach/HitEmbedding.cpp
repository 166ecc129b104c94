#include "teach/HitEmbedding.h"

#include "engine/Model.h"
#include "engine/OpTable.h"
#include "engine/file/FrontendSettings.h"
#include "engine/file/JsonWriter.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFileKeys.h"
#include "engine/file/ModelFileWriter.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sonotype::teach
{
namespace
{
    using engine::JsonValue;
    namespace keys = engine::keys;

    /** A number written as an integer within int64 (as the exporter writes indices and sizes), or nullopt. */
    std::optional<int64_t> integerOf (const JsonValue* value)
    {
        if (value == nullptr || ! value->isNumber() || ! value->integerDigits().has_value())
            return std::nullopt;
        try
        {
            return value->asInt();
        }
        catch (const engine::JsonError&) // digits beyond int64
        {
            return std::nullopt;
        }
    }

    /** A value's shape of `rank` integers, or empty. */
    std::vector<int64_t> shapeOf (const JsonValue& value, std::size_t rank)
    {
        const auto* shape = value.find (keys::shape);
        if (shape == nullptr || ! shape->isArray() || shape->asArray().size() != rank)
            return {};
        std::vector<int64_t> dims;
        for (const auto& d : shape->asArray())
            if (const auto dim = integerOf (&d))
                dims.push_back (*dim);
            else
                return {};
        return dims;
    }

    bool isKind (const JsonValue& value, const char* kind)
    {
        const auto* found = value.find (keys::kind);
        return found != nullptr && found->isString() && found->asString() == kind;
    }

    /** The value joined after a stored [1, d, 1] tensor by the one concat over the last axis of a
        [1, d, T] sequence (T >= 2); -1 when there is none, or more than one. */
    int tokenSequence (const JsonValue& graph)
    {
        const auto& values = graph.at (keys::values).asArray();
        auto valueAt = [&] (const JsonValue& index) -> const JsonValue* {
            const auto i = integerOf (&index);
            return i.has_value() && *i >= 0 && static_cast<std::size_t> (*i) < values.size() ? &values[static_cast<std::size_t> (*i)] : nullptr;
        };
        const auto concat = engine::opName (engine::OpKind::concat);
        int found = -1, count = 0;
        for (const auto& node : graph.at (keys::nodes).asArray())
        {
            const auto* op = node.find (keys::op);
            const auto* inputs = node.find (keys::inputs);
            if (op == nullptr || ! op->isString() || op->asString() != concat || inputs == nullptr || ! inputs->isArray() || inputs->asArray().size() != 2)
                continue;
            const auto* attrs = node.find (keys::attrs);
            const auto* axis = attrs != nullptr ? attrs->find ("axis") : nullptr;
            if (axis == nullptr || ! axis->isNumber() || (axis->asNumber() != 2.0 && axis->asNumber() != -1.0))
                continue;
            const auto* first = valueAt (inputs->asArray()[0]);
            const auto* second = valueAt (inputs->asArray()[1]);
            if (first == nullptr || second == nullptr)
                continue;
            const auto token = shapeOf (*first, 3), sequence = shapeOf (*second, 3);
            if (token.empty() || sequence.empty())
                continue;
            if (isKind (*first, keys::kindTensor) && isKind (*second, keys::kindNode) && token[0] == 1 && sequence[0] == 1 && token[1] == sequence[1]
                && token[2] == 1 && sequence[2] >= 2)
            {
                found = static_cast<int> (*integerOf (&inputs->asArray()[1]));
                ++count;
            }
        }
        return count == 1 ? found : -1;
    }

    /** The seconds of the model's window, from its front end; 0 when it has none that says. */
    double windowSecondsOf (const std::string* frontend)
    {
        if (frontend == nullptr)
            return 0.0;
        try
        {
            const auto settings = engine::FrontendSettings::fromJson (*frontend);
            return static_cast<double> (settings.windowSamples) / settings.sampleRate;
        }
        catch (const engine::ModelError&) // not a front end the engine runs: no window to time tokens by
        {
            return 0.0;
        }
    }

    /** The model file with the mean of tokens [from, to) of value `tokens` as its embedding output. */
    std::vector<std::uint8_t> withHitEmbedding (engine::ModelFileWriter& file, int tokens, int64_t from, int64_t to, double perSecond)
    {
        const auto shape = file.shapeOf (tokens);
        const auto dims = shape[1], count = shape[2];
        // The mean of tokens [from, to): a slice of the sequence's last axis, then its mean.
        const int slice = file.node (engine::opName (engine::OpKind::slice), { tokens }, { 1, dims, to - from },
                                     JsonValue::object ({ { "axis", JsonValue::integer (2) },
                                                          { "start", JsonValue::integer (from) },
                                                          { "step", JsonValue::integer (1) } }),
                                     "hit embedding");
        const int mean = file.node (engine::opName (engine::OpKind::reduceMean), { slice }, { 1, dims },
                                    JsonValue::object ({ { "axes", JsonValue::array ({ JsonValue::integer (-1) }) },
                                                         { "keepdim", JsonValue::boolean (false) } }),
                                    "hit embedding");
        auto outputs = file.outputs();
        std::size_t embedding = outputs.size();
        if (const auto* text = file.metadata (keys::embeddingOutput))
        {
            // The output it names, when that is one of the outputs (but 0, the scores); else the hit embedding is a new output.
            for (std::size_t k = 1; k < outputs.size(); ++k)
                if (*text == std::to_string (k))
                    embedding = k;
        }
        if (embedding == outputs.size())
            outputs.push_back (mean);
        else
            outputs[embedding] = mean;
        file.setOutputs (outputs);
        file.setMetadata (keys::embeddingOutput, std::to_string (embedding));
        auto seconds = [&] (int64_t token) { return JsonValue::number (std::round (1000.0 * static_cast<double> (token) / perSecond) / 1000.0); };
        const auto record = JsonValue::object ({ { keys::hitFrom, JsonValue::string ("the token sequence (graph value " + std::to_string (tokens) + ")") },
                                                 { keys::hitTokens, JsonValue::array ({ JsonValue::integer (from), JsonValue::integer (to) }) },
                                                 { keys::hitOf, JsonValue::integer (count) },
                                                 { keys::hitSeconds, JsonValue::array ({ seconds (from), seconds (to) }) } });
        file.setMetadata (keys::hitEmbedding, engine::writeJson (record));
        return file.bytes();
    }
} // namespace

std::optional<std::vector<std::uint8_t>> hitEmbeddingModelFile (std::span<const std::uint8_t> baseFile, const HitEmbeddingSpan& span)
{
    if (! (span.fromSeconds >= 0.0 && span.toSeconds > span.fromSeconds && span.toSeconds <= 60.0))
        throw std::invalid_argument ("the span of a hit's tokens must lie within 0-60 seconds, and not be empty");
    try
    {
        engine::ModelFileWriter file (baseFile, "base model");
        if (file.metadata (keys::hitEmbedding) != nullptr)
            return std::vector<std::uint8_t> (baseFile.begin(), baseFile.end());
        const int tokens = tokenSequence (file.graph());
        const double windowSeconds = windowSecondsOf (file.metadata (keys::frontend));
        if (tokens < 0 || ! (windowSeconds > 0.0 && std::isfinite (windowSeconds)))
            return std::nullopt;
        const auto count = file.shapeOf (tokens)[2];
        const double perSecond = static_cast<double> (count) / windowSeconds;
        const auto from = std::min<int64_t> (std::llround (span.fromSeconds * perSecond), count - 1);
        const auto to = std::clamp<int64_t> (std::llround (span.toSeconds * perSecond), from + 1, count);
        return withHitEmbedding (file, tokens, from, to, perSecond);
    }
    catch (const engine::ModelError& e) // not a model file the reader takes
    {
        throw std::invalid_argument (e.what());
    }
    catch (const engine::JsonError& e)
    {
        throw std::invalid_argument (e.what());
    }
}

std::optional<HitEmbeddingSpanInfo> hitEmbeddingOf (const engine::Model& model)
{
    const auto& metadata = model.info().metadata;
    const auto entry = metadata.find (keys::hitEmbedding);
    if (entry == metadata.end())
        return std::nullopt;
    try
    {
        const auto record = engine::parseJson (entry->second);
        const auto& tokens = record.at (keys::hitTokens).asArray();
        const auto& seconds = record.at (keys::hitSeconds).asArray();
        if (tokens.size() < 2 || seconds.size() < 2)
            return std::nullopt;
        return HitEmbeddingSpanInfo { tokens[0].asInt(), tokens[1].asInt(), record.at (keys::hitOf).asInt(), seconds[0].asNumber(),
                                      seconds[1].asNumber() };
    }
    catch (const engine::JsonError&) // written by another program, or by hand: it may say anything
    {
        return std::nullopt;
    }
}

} // namespace sonotype::teach
