#include "engine/ModelFile.h"

#include "engine/Json.h"
#include "engine/ModelError.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>

namespace sonotype::engine
{
namespace
{
    std::uint64_t readLittleEndian64 (const std::uint8_t* p) noexcept
    {
        std::uint64_t value = 0;
        for (int i = 7; i >= 0; --i)
            value = (value << 8) | p[i];
        return value;
    }

    struct Entry
    {
        std::string name;
        Shape shape;
        std::uint64_t begin = 0, end = 0;
    };

    Entry parseEntry (const std::string& name, const JsonValue& info)
    {
        auto fail = [&] (const std::string& what) { return ModelError ("tensor '" + name + "': " + what); };
        if (! info.isObject())
            throw fail ("header entry is not an object");
        const auto* dtype = info.find ("dtype");
        if (dtype == nullptr || ! dtype->isString())
            throw fail ("missing dtype");
        if (dtype->asString() != "F32")
            throw fail ("dtype " + dtype->asString() + " is not supported (the engine stores float32, F32)");
        Entry entry;
        entry.name = name;
        const auto* shape = info.find ("shape");
        if (shape == nullptr || ! shape->isArray())
            throw fail ("missing shape");
        if (shape->asArray().size() > static_cast<std::size_t> (kMaxRank))
            throw fail ("rank " + std::to_string (shape->asArray().size()) + " exceeds " + std::to_string (kMaxRank));
        std::uint64_t numElements = 1;
        for (const auto& dim : shape->asArray())
        {
            if (! dim.isNumber())
                throw fail ("shape holds a non-number");
            const auto d = dim.asInt();
            if (d < 0 || d > (int64_t { 1 } << 40))
                throw fail ("dimension " + std::to_string (d) + " out of range");
            numElements *= static_cast<std::uint64_t> (d);
            if (numElements > (std::uint64_t { 1 } << 40))
                throw fail ("too many elements");
            entry.shape.push (d);
        }
        const auto* offsets = info.find ("data_offsets");
        if (offsets == nullptr || ! offsets->isArray() || offsets->asArray().size() != 2)
            throw fail ("data_offsets must be [begin, end]");
        const auto begin = offsets->asArray()[0].asInt();
        const auto end = offsets->asArray()[1].asInt();
        if (begin < 0 || end < begin)
            throw fail ("data_offsets [" + std::to_string (begin) + ", " + std::to_string (end) + "] are invalid");
        entry.begin = static_cast<std::uint64_t> (begin);
        entry.end = static_cast<std::uint64_t> (end);
        if (entry.end - entry.begin != numElements * sizeof (float))
            throw fail ("holds " + std::to_string (entry.end - entry.begin) + " bytes but shape " + entry.shape.toString()
                        + " needs " + std::to_string (numElements * sizeof (float)));
        return entry;
    }
} // namespace

ModelFile ModelFile::read (const std::string& path)
{
    std::ifstream stream (path, std::ios::binary);
    if (! stream)
        throw ModelError ("cannot open model file '" + path + "'");
    stream.seekg (0, std::ios::end);
    const auto size = stream.tellg();
    if (size < 0)
        throw ModelError ("cannot read model file '" + path + "'");
    stream.seekg (0, std::ios::beg);
    std::vector<std::uint8_t> bytes (static_cast<std::size_t> (size));
    if (! bytes.empty() && ! stream.read (reinterpret_cast<char*> (bytes.data()), static_cast<std::streamsize> (bytes.size())))
        throw ModelError ("cannot read model file '" + path + "'");
    return parse (bytes.data(), bytes.size(), path);
}

ModelFile ModelFile::parse (const std::uint8_t* bytes, std::size_t numBytes, const std::string& name)
{
    static_assert (std::endian::native == std::endian::little, "the engine reads little-endian float32 data");
    auto fail = [&] (const std::string& what) { return ModelError ("model file '" + name + "': " + what); };
    if (numBytes < 8)
        throw fail ("too short to be a safetensors file (" + std::to_string (numBytes) + " bytes)");
    const auto headerBytes = readLittleEndian64 (bytes);
    if (headerBytes > kMaxHeaderBytes || headerBytes > numBytes - 8)
        throw fail ("header length " + std::to_string (headerBytes) + " exceeds the file size (" + std::to_string (numBytes)
                    + " bytes): not a safetensors file, or truncated");
    const auto* dataStart = bytes + 8 + headerBytes;
    const auto dataBytes = numBytes - 8 - headerBytes;

    JsonValue header;
    try
    {
        header = parseJson (std::string_view (reinterpret_cast<const char*> (bytes + 8), static_cast<std::size_t> (headerBytes)));
    }
    catch (const JsonError& e)
    {
        throw fail (std::string ("header is not valid JSON: ") + e.what());
    }
    if (! header.isObject())
        throw fail ("header is not a JSON object");

    ModelFile file;
    std::vector<Entry> entries;
    try
    {
        for (const auto& [key, value] : header.asObject())
        {
            if (key == "__metadata__")
            {
                if (! value.isObject())
                    throw ModelError ("__metadata__ is not an object");
                for (const auto& [metaKey, metaValue] : value.asObject())
                {
                    if (! metaValue.isString())
                        throw ModelError ("metadata '" + metaKey + "' is not a string");
                    file.metadata_[metaKey] = metaValue.asString();
                }
                continue;
            }
            entries.push_back (parseEntry (key, value));
        }
    }
    catch (const JsonError& e)
    {
        throw fail (e.what());
    }
    catch (const ModelError& e)
    {
        throw fail (e.what());
    }

    // The tensors must tile the data section exactly: no overlap, no gap, nothing past the end.
    auto sorted = entries;
    std::sort (sorted.begin(), sorted.end(), [] (const Entry& a, const Entry& b) { return a.begin < b.begin; });
    std::uint64_t expected = 0;
    for (const auto& entry : sorted)
    {
        if (entry.begin != expected)
            throw fail ("tensor '" + entry.name + "' starts at byte " + std::to_string (entry.begin) + " of the data section, expected "
                        + std::to_string (expected) + (entry.begin < expected ? " (overlaps the previous tensor)" : " (gap)"));
        expected = entry.end;
    }
    if (expected != dataBytes)
        throw fail (expected > dataBytes ? "truncated: tensors need " + std::to_string (expected) + " data bytes but the file holds "
                                               + std::to_string (dataBytes)
                                         : std::to_string (dataBytes - expected) + " bytes of trailing data after the last tensor");

    std::size_t numFloats = 0;
    for (const auto& entry : entries)
        numFloats += AlignedBuffer::roundUp (static_cast<std::size_t> ((entry.end - entry.begin) / sizeof (float)));
    file.weights_ = AlignedBuffer (numFloats);
    std::size_t offset = 0;
    for (const auto& entry : entries)
    {
        const auto count = static_cast<std::size_t> ((entry.end - entry.begin) / sizeof (float));
        if (count > 0)
            std::memcpy (file.weights_.data() + offset, dataStart + entry.begin, count * sizeof (float));
        file.index_[entry.name] = file.tensors_.size();
        file.tensors_.push_back ({ entry.name, entry.shape, offset });
        offset += AlignedBuffer::roundUp (count);
    }
    return file;
}

const StoredTensor* ModelFile::find (const std::string& name) const noexcept
{
    const auto it = index_.find (name);
    return it == index_.end() ? nullptr : &tensors_[it->second];
}

std::size_t ModelFile::numWeightFloats() const noexcept
{
    std::size_t total = 0;
    for (const auto& tensor : tensors_)
        total += static_cast<std::size_t> (tensor.shape.numElements());
    return total;
}

} // namespace sonotype::engine
