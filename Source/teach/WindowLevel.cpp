#include "teach/WindowLevel.h"

#include "engine/Model.h"
#include "engine/OpTable.h"
#include "engine/file/FrontendSettings.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFileKeys.h"
#include "engine/file/ModelFileWriter.h"

#include <stdexcept>
#include <string>

namespace sonotype::teach
{
namespace
{
    using engine::JsonValue;
    namespace keys = engine::keys;

    /** The front end's decibel scale (mean, std) when it has one the level can be read in. */
    std::optional<std::pair<float, float>> decibelScale (const std::string* frontend)
    {
        if (frontend == nullptr)
            return std::nullopt;
        try
        {
            const auto settings = engine::FrontendSettings::fromJson (*frontend);
            if (settings.isWaveform() || settings.logType != engine::FrontendSettings::LogType::db || settings.mean.size() != 1
                || settings.std.size() != 1)
                return std::nullopt;
            return std::pair { settings.mean[0], settings.std[0] };
        }
        catch (const engine::ModelError&) // not a front end the engine runs
        {
            return std::nullopt;
        }
    }

    std::vector<std::uint8_t> withLevel (engine::ModelFileWriter& file, int input, float mean, float std)
    {
        const auto source = std::string ("window level");
        const auto elements = file.elements (input);
        const int row = file.node (engine::opName (engine::OpKind::reshape), { input }, { 1, elements }, JsonValue::object ({}), source);
        const int loudest = file.node (engine::opName (engine::OpKind::reduceMax), { row }, { 1, 1 },
                                       JsonValue::object ({ { "axes", JsonValue::array ({ JsonValue::integer (-1) }) },
                                                            { "keepdim", JsonValue::boolean (true) } }),
                                       source);
        // The prefix "level." names these tensors whatever else the file holds (one level per file).
        const float scale[] = { std }, offset[] = { mean };
        const int scaled = file.node (engine::opName (engine::OpKind::mul), { loudest, file.tensor ("level.std", { 1 }, scale) }, { 1, 1 },
                                      JsonValue::object ({}), source);
        const int decibels = file.node (engine::opName (engine::OpKind::add), { scaled, file.tensor ("level.mean", { 1 }, offset) }, { 1, 1 },
                                        JsonValue::object ({}), source);
        auto outputs = file.outputs();
        outputs.push_back (decibels);
        file.setOutputs (outputs);
        file.setMetadata (keys::levelOutput, std::to_string (outputs.size() - 1));
        return file.bytes();
    }
} // namespace

std::optional<std::vector<std::uint8_t>> levelModelFile (std::span<const std::uint8_t> baseFile)
{
    try
    {
        engine::ModelFileWriter file (baseFile, "base model");
        if (file.metadata (keys::levelOutput) != nullptr)
            return std::vector<std::uint8_t> (baseFile.begin(), baseFile.end());
        const auto scale = decibelScale (file.metadata (keys::frontend));
        const auto* inputs = file.graph().find (keys::inputs);
        if (! scale.has_value() || inputs == nullptr || ! inputs->isArray() || inputs->asArray().size() != 1 || ! inputs->asArray()[0].isNumber())
            return std::nullopt;
        return withLevel (file, static_cast<int> (inputs->asArray()[0].asInt()), scale->first, scale->second);
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

std::optional<std::size_t> levelOutputOf (const engine::Model& model)
{
    const auto& info = model.info();
    const auto found = info.metadata.find (keys::levelOutput);
    if (found == info.metadata.end())
        return std::nullopt;
    for (std::size_t k = 1; k < info.outputShapes.size(); ++k)
        if (found->second == std::to_string (k))
            return info.outputShapes[k].numElements() == 1 ? std::optional<std::size_t> (k) : std::nullopt;
    return std::nullopt;
}

} // namespace sonotype::teach
