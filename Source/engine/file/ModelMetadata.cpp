#include "engine/file/ModelMetadata.h"

#include "engine/file/Json.h"
#include "engine/file/JsonWriter.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFileKeys.h"
#include "engine/file/Text.h"

#include <algorithm>
#include <set>

namespace sonotype::engine
{

const std::string& graphOf (const Metadata& metadata)
{
    const auto format = metadata.find (keys::format);
    if (format == metadata.end() || format->second != keys::formatMarker)
        throw ModelError ("not a Sonotype model (its metadata has no \"format\": \"sonotype\"); export models with sonotype.export.export_model");
    const auto version = metadata.find (keys::formatVersion);
    if (version == metadata.end() || version->second != std::to_string (kModelFormatVersion))
        throw ModelError ("format_version " + (version == metadata.end() ? std::string ("(missing)") : version->second)
                          + " is not supported: this engine reads version " + std::to_string (kModelFormatVersion));
    const auto graph = metadata.find (keys::graph);
    if (graph == metadata.end())
        throw ModelError ("the metadata has no graph");
    return graph->second;
}

std::vector<std::string> readLabels (const Metadata& metadata, const Shape& output0, LoadBudget& budget)
{
    std::vector<std::string> labels;
    const auto entry = metadata.find (keys::labels);
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

std::optional<int> readEmbeddingOutput (const Metadata& metadata, std::size_t numOutputs)
{
    const auto entry = metadata.find (keys::embeddingOutput);
    if (entry == metadata.end())
        return std::nullopt;
    const auto& text = entry->second;
    const auto outputs = std::to_string (numOutputs) + " output" + (numOutputs == 1 ? "" : "s");
    // A plain decimal index: no sign, no leading zeros, no spaces, at most 9 digits.
    const bool decimal = ! text.empty() && text.size() <= 9 && (text == "0" || text[0] != '0')
                         && text.find_first_not_of ("0123456789") == std::string::npos;
    if (! decimal)
        throw ModelError ("embedding_output " + quote (text) + " is not an output index (the graph has " + outputs + ")");
    const auto index = std::stoi (text);
    if (static_cast<std::size_t> (index) >= numOutputs)
        throw ModelError ("embedding_output " + text + " is not an output: the graph has " + outputs + " (0 to "
                          + std::to_string (numOutputs - 1) + ")");
    if (index == 0)
        throw ModelError ("embedding_output 0 names output 0, which holds the class scores: the embedding is an output after it");
    return index;
}

std::vector<int> readClassNotes (const Metadata& metadata, const std::vector<std::string>& labels, LoadBudget& budget)
{
    const auto entry = metadata.find (keys::midiNotes);
    if (entry == metadata.end())
        return {};
    JsonValue notes;
    try
    {
        std::size_t parsedBytes = 0;
        notes = parseJson (entry->second, budget.remainingBytes(), parsedBytes);
        budget.claim (parsedBytes, "the MIDI notes");
    }
    catch (const JsonError& e)
    {
        throw ModelError (std::string ("midi_notes is not JSON: ") + e.what());
    }
    if (! notes.isObject())
        throw ModelError ("midi_notes is not an object of class labels and notes");
    std::vector<int> chosen (labels.size(), -1);
    for (const auto& [label, note] : notes.asObject())
    {
        const auto found = std::find (labels.begin(), labels.end(), label);
        if (found == labels.end())
            throw ModelError ("midi_notes names " + quote (label) + ", which is not a label of the model");
        auto& slot = chosen[static_cast<std::size_t> (found - labels.begin())];
        if (slot >= 0)
            throw ModelError ("midi_notes names " + quote (label) + " twice");
        if (! note.isNumber() || ! note.isExactInteger() || note.asInt() < 0 || note.asInt() > 127)
            throw ModelError ("midi_notes: the note of " + quote (label) + " is not a MIDI note (an integer from 0 to 127)");
        slot = static_cast<int> (note.asInt());
    }
    return chosen;
}

std::string classNotesEntry (const std::vector<std::string>& labels, const std::vector<int>& notes)
{
    JsonValue::Object chosen;
    for (std::size_t c = 0; c < labels.size() && c < notes.size(); ++c)
        if (notes[c] >= 0 && notes[c] <= 127)
            chosen.emplace_back (labels[c], JsonValue::integer (notes[c]));
    return chosen.empty() ? std::string() : writeJson (JsonValue::object (std::move (chosen)));
}

} // namespace sonotype::engine
