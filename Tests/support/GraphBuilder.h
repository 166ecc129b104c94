// Builds small model graphs in tests: inputs, stored tensors and nodes, then the model file's bytes
// (safetensors with the graph as metadata) or the loaded model.
#pragma once

#include "engine/Model.h"
#include "support/SafetensorsWriter.h"

#include <string>
#include <vector>

namespace sonotype::testing
{

class GraphBuilder
{
public:
    using Dims = std::vector<int64_t>;

    /** A graph input of this shape; returns its value id. */
    int input (const Dims& shape)
    {
        inputs_.push_back (addValue (shape, "\"input\""));
        return inputs_.back();
    }

    /** A tensor stored in the file; returns its value id. */
    int tensor (const std::string& name, const Dims& shape, std::vector<float> data)
    {
        tensors_.push_back ({ name, shape, std::move (data) });
        return addValue (shape, "\"tensor\",\"tensor\":" + jsonString (name));
    }

    /** A node with the given inputs (-1: an absent optional input), output shapes and attributes
        (a JSON object's members, without braces); returns its first output's value id. */
    int node (const std::string& op, const std::vector<int>& inputs, const std::vector<Dims>& outputs, const std::string& attrs = "")
    {
        std::string text = "{\"op\":" + jsonString (op) + ",\"inputs\":[";
        for (std::size_t i = 0; i < inputs.size(); ++i)
            text += (i ? "," : "") + (inputs[i] < 0 ? std::string ("null") : std::to_string (inputs[i]));
        text += "],\"outputs\":[";
        int first = -1;
        for (std::size_t i = 0; i < outputs.size(); ++i)
        {
            const int id = addValue (outputs[i], "\"node\"");
            first = i == 0 ? id : first;
            text += (i ? "," : "") + std::to_string (id);
        }
        nodes_.push_back (text + "],\"attrs\":{" + attrs + "}}");
        return first;
    }

    /** The graph JSON with these outputs. */
    std::string graph (const std::vector<int>& outputs) const
    {
        std::string text = "{\"inputs\":" + list (inputs_) + ",\"outputs\":" + list (outputs) + ",\"values\":[";
        for (std::size_t i = 0; i < values_.size(); ++i)
            text += (i ? "," : "") + values_[i];
        text += "],\"nodes\":[";
        for (std::size_t i = 0; i < nodes_.size(); ++i)
            text += (i ? "," : "") + nodes_[i];
        return text + "]}";
    }

    /** The model file's bytes, with extra metadata (labels, frontend) where given. */
    std::vector<std::uint8_t> bytes (const std::vector<int>& outputs, std::map<std::string, std::string> extraMetadata = {}) const
    {
        auto metadata = modelMetadata (graph (outputs));
        metadata.insert (extraMetadata.begin(), extraMetadata.end());
        return safetensorsBytes (tensors_, metadata);
    }

    std::shared_ptr<const engine::Model> load (const std::vector<int>& outputs, const engine::LoadLimits& limits = {},
                                               std::map<std::string, std::string> extraMetadata = {}) const
    {
        const auto file = bytes (outputs, std::move (extraMetadata));
        return engine::Model::fromMemory (file.data(), file.size(), "test graph", limits);
    }

private:
    int addValue (const Dims& shape, const std::string& kind)
    {
        std::string text = "{\"shape\":[";
        for (std::size_t i = 0; i < shape.size(); ++i)
            text += (i ? "," : "") + std::to_string (shape[i]);
        values_.push_back (text + "],\"kind\":" + kind + "}");
        return static_cast<int> (values_.size() - 1);
    }

    static std::string list (const std::vector<int>& ids)
    {
        std::string text = "[";
        for (std::size_t i = 0; i < ids.size(); ++i)
            text += (i ? "," : "") + std::to_string (ids[i]);
        return text + "]";
    }

    std::vector<std::string> values_, nodes_;
    std::vector<int> inputs_;
    std::vector<TestTensor> tensors_;
};

} // namespace sonotype::testing
