#include "engine/file/ModelMetadata.h"

#include "engine/file/Json.h"
#include "engine/file/ModelError.h"
#include "engine/file/Text.h"

#include <set>

namespace sonotype::engine
{

const std::string& graphOf (const Metadata& metadata)
{
    const auto format = metadata.find ("format");
    if (format == metadata.end() || format->second != "sonotype")
        throw ModelError ("not a Sonotype model (its metadata has no \"format\": \"sonotype\"); export models with sonotype.export.export_model");
    const auto version = metadata.find ("format_version");
    if (version == metadata.end() || version->second != std::to_string (kModelFormatVersion))
        throw ModelError ("format_version " + (version == metadata.end() ? std::string ("(missing)") : version->second)
                          + " is not supported: this engine reads version " + std::to_string (kModelFormatVersion));
    const auto graph = metadata.find ("graph");
    if (graph == metadata.end())
        throw ModelError ("the metadata has no graph");
    return graph->second;
}

std::vector<std::string> readLabels (const Metadata& metadata, const Shape& output0, LoadBudget& budget)
{
    std::vector<std::string> labels;
    const auto entry = metadata.find ("labels");
    if (entry == metadata.end())
        return labels;
    std::size_t parsedBytes = 0;
    const auto list = parseJson (entry->second, budget.remainingBytes(), parsedBytes);
    budget.claim (parsedBytes, "the labels");
    if (! list.isArray())
        throw ModelError ("labels metadata is not a list");
    // Labels are shown in terminals, CSV rows and GUIs: short, distinct, visible text only.
    std::size_t labelsBytes = 0;
    std::set<std::string> seen;
    for (const auto& label : list.asArray())
    {
        const auto what = "label " + std::to_string (labels.size());
        if (! label.isString())
            throw ModelError (what + " is not a string");
        const auto& text = label.asString();
        checkDisplayText (text, kMaxLabelBytes, what);
        labelsBytes += text.size();
        if (labelsBytes > kMaxLabelsBytes)
            throw ModelError ("the labels take more than " + describeBytes (kMaxLabelsBytes) + " (" + what + " is the first past it)");
        if (! seen.insert (text).second)
            throw ModelError (what + " " + quote (text) + " repeats an earlier label");
        labels.push_back (text);
    }
    if (! labels.empty() && (output0.rank() == 0 || output0[output0.rank() - 1] != static_cast<int64_t> (labels.size())))
        throw ModelError (std::to_string (labels.size()) + " labels do not match the output shape " + output0.toString());
    return labels;
}

} // namespace sonotype::engine
