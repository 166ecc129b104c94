// Builds safetensors bytes in memory, for tests of the model-file reader (including broken files).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace sonotype::testing
{

struct TestTensor
{
    std::string name;
    std::vector<int64_t> shape;
    std::vector<float> data;
};

inline std::string jsonString (const std::string& text)
{
    std::string out = "\"";
    for (char c : text)
    {
        if (c == '\n')
        {
            out += "\\n";
            continue;
        }
        if (static_cast<unsigned char> (c) < 0x20)
        {
            const char* hex = "0123456789abcdef";
            out += "\\u00";
            out += hex[(c >> 4) & 0xF];
            out += hex[c & 0xF];
            continue;
        }
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

/** The JSON header for tensors laid out back to back, plus string metadata. */
inline std::string safetensorsHeader (const std::vector<TestTensor>& tensors, const std::map<std::string, std::string>& metadata)
{
    std::string header = "{\"__metadata__\":{";
    bool first = true;
    for (const auto& [key, value] : metadata)
    {
        header += (first ? "" : ",") + jsonString (key) + ":" + jsonString (value);
        first = false;
    }
    header += "}";
    std::size_t offset = 0;
    for (const auto& tensor : tensors)
    {
        header += "," + jsonString (tensor.name) + ":{\"dtype\":\"F32\",\"shape\":[";
        for (std::size_t i = 0; i < tensor.shape.size(); ++i)
            header += (i ? "," : "") + std::to_string (tensor.shape[i]);
        const auto bytes = tensor.data.size() * sizeof (float);
        header += "],\"data_offsets\":[" + std::to_string (offset) + "," + std::to_string (offset + bytes) + "]}";
        offset += bytes;
    }
    return header + "}";
}

inline std::vector<std::uint8_t> safetensorsBytes (const std::string& header, const std::vector<TestTensor>& tensors)
{
    std::vector<std::uint8_t> bytes (8);
    const auto length = static_cast<std::uint64_t> (header.size());
    for (int i = 0; i < 8; ++i)
        bytes[static_cast<std::size_t> (i)] = static_cast<std::uint8_t> (length >> (8 * i));
    bytes.insert (bytes.end(), header.begin(), header.end());
    for (const auto& tensor : tensors)
    {
        const auto* raw = reinterpret_cast<const std::uint8_t*> (tensor.data.data());
        bytes.insert (bytes.end(), raw, raw + tensor.data.size() * sizeof (float));
    }
    return bytes;
}

inline std::vector<std::uint8_t> safetensorsBytes (const std::vector<TestTensor>& tensors, const std::map<std::string, std::string>& metadata)
{
    return safetensorsBytes (safetensorsHeader (tensors, metadata), tensors);
}

/** Metadata of a Sonotype model with the given graph JSON. */
inline std::map<std::string, std::string> modelMetadata (const std::string& graph)
{
    return { { "format", "sonotype" }, { "format_version", "1" }, { "graph", graph } };
}

} // namespace sonotype::testing
