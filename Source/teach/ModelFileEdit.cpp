#include "teach/ModelFileEdit.h"

#include <cstring>
#include <stdexcept>

namespace sonotype::teach::detail
{
namespace
{
    uint64_t readLE64 (const std::uint8_t* p)
    {
        uint64_t v = 0;
        for (int i = 7; i >= 0; --i)
            v = (v << 8) | p[i];
        return v;
    }
} // namespace

ModelFileEdit::ModelFileEdit (std::span<const std::uint8_t> file)
{
    if (file.size() < 8)
        throw std::invalid_argument ("the base model file is too short");
    const auto headerSize = readLE64 (file.data());
    if (headerSize > file.size() - 8)
        throw std::invalid_argument ("the base model file's header is cut short");
    header = nlohmann::json::parse (file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t> (headerSize));
    data.assign (file.begin() + 8 + static_cast<std::ptrdiff_t> (headerSize), file.end());
    graph = nlohmann::json::parse (metadata().at ("graph").get<std::string>());
}

int64_t ModelFileEdit::elements (int index) const
{
    int64_t n = 1;
    for (const auto& d : graph.at ("values").at (static_cast<std::size_t> (index)).at ("shape"))
        n *= d.get<int64_t>();
    return n;
}

int ModelFileEdit::value (const std::vector<int64_t>& shape)
{
    graph["values"].push_back ({ { "shape", shape }, { "kind", "node" } });
    return static_cast<int> (graph["values"].size()) - 1;
}

int ModelFileEdit::tensor (const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& values)
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

int ModelFileEdit::node (const std::string& op, const std::vector<int>& inputs, const std::vector<int64_t>& shape, nlohmann::json attrs,
                         const std::string& source)
{
    const int out = value (shape);
    nlohmann::json n = { { "op", op }, { "inputs", inputs }, { "outputs", { out } }, { "source", source } };
    if (! attrs.empty())
        n["attrs"] = std::move (attrs);
    graph["nodes"].push_back (std::move (n));
    return out;
}

std::vector<std::uint8_t> ModelFileEdit::bytes()
{
    metadata()["graph"] = graph.dump();
    std::string text = header.dump (-1, ' ', false, nlohmann::json::error_handler_t::strict);
    text.append ((8 - text.size() % 8) % 8, ' ');
    std::vector<std::uint8_t> file (8);
    for (int b = 0; b < 8; ++b)
        file[static_cast<std::size_t> (b)] = static_cast<std::uint8_t> (static_cast<uint64_t> (text.size()) >> (8 * b));
    file.insert (file.end(), text.begin(), text.end());
    file.insert (file.end(), data.begin(), data.end());
    return file;
}

} // namespace sonotype::teach::detail
