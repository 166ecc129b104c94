#include "engine/file/ModelFile.h"

#include "engine/file/Json.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFileKeys.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
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
} // namespace

struct ModelFile::Entry
{
    std::string name;
    Shape shape;
    std::uint64_t begin = 0, end = 0;
};

namespace
{
    ModelFile::Entry parseEntry (const std::string& name, const JsonValue& info)
    {
        auto fail = [&] (const std::string& what) { return ModelError ("tensor " + quote (name) + ": " + what); };
        // Names are quoted in messages and listed by `inspect`: visible text of sensible length.
        checkDisplayText (name, ModelFile::kMaxNameBytes, "tensor name");
        if (! info.isObject())
            throw fail ("header entry is not an object");
        const auto* dtype = info.find ("dtype");
        if (dtype == nullptr || ! dtype->isString())
            throw fail ("missing dtype");
        if (dtype->asString() != "F32")
            throw fail ("dtype " + dtype->asString().substr (0, 16) + " is not supported (the engine stores float32, F32)");
        ModelFile::Entry entry;
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

// Where the bytes come from: a file read piece by piece, or a buffer in memory.
class ModelFile::Reader
{
public:
    virtual ~Reader() = default;
    virtual std::uint64_t size() const noexcept = 0;
    /** Copies numBytes at offset into target; throws ModelError if the source cannot give them. */
    virtual void read (std::uint64_t offset, std::size_t numBytes, void* target) = 0;
    const std::string& name() const noexcept { return name_; }
    ModelError fail (const std::string& what) const { return ModelError ("model file '" + name_ + "': " + what); }

protected:
    explicit Reader (std::string name) : name_ (std::move (name)) {}

private:
    std::string name_;
};

namespace
{
    class FileReader final : public ModelFile::Reader
    {
    public:
        explicit FileReader (const std::string& path) : Reader (path)
        {
            // Folders, pipes and devices are refused before opening (a FIFO would block the open).
            std::error_code error;
            const auto status = std::filesystem::status (path, error);
            if (! error && std::filesystem::exists (status) && ! std::filesystem::is_regular_file (status))
                throw ModelError ("'" + path + "' is " + (std::filesystem::is_directory (status) ? "a folder" : "not a regular file")
                                  + ", not a model file");
            stream_.open (path, std::ios::binary);
            if (! stream_)
                throw ModelError ("cannot open model file '" + path + "'");
            stream_.seekg (0, std::ios::end);
            const auto end = stream_.tellg();
            if (end < 0)
                throw ModelError ("cannot read model file '" + path + "'");
            size_ = static_cast<std::uint64_t> (end);
        }
        std::uint64_t size() const noexcept override { return size_; }
        void read (std::uint64_t offset, std::size_t numBytes, void* target) override
        {
            stream_.clear();
            stream_.seekg (static_cast<std::streamoff> (offset));
            if (! stream_.read (static_cast<char*> (target), static_cast<std::streamsize> (numBytes)))
                throw ModelError ("cannot read model file '" + name() + "' (" + std::to_string (numBytes) + " bytes at offset " + std::to_string (offset) + ")");
        }

    private:
        std::ifstream stream_;
        std::uint64_t size_ = 0;
    };

    class MemoryReader final : public ModelFile::Reader
    {
    public:
        MemoryReader (const std::uint8_t* bytes, std::size_t numBytes, const std::string& name) : Reader (name), bytes_ (bytes), size_ (numBytes) {}
        std::uint64_t size() const noexcept override { return size_; }
        void read (std::uint64_t offset, std::size_t numBytes, void* target) override
        {
            if (offset > size_ || numBytes > size_ - offset)
                throw fail ("reading past the end");
            if (numBytes > 0)
                std::memcpy (target, bytes_ + offset, numBytes);
        }

    private:
        const std::uint8_t* bytes_;
        std::uint64_t size_;
    };
} // namespace

ModelFile ModelFile::read (const std::string& path, LoadBudget& budget)
{
    FileReader reader (path);
    return load (reader, budget);
}

ModelFile ModelFile::parse (const std::uint8_t* bytes, std::size_t numBytes, const std::string& name, LoadBudget& budget)
{
    MemoryReader reader (bytes, numBytes, name);
    return load (reader, budget);
}

struct ModelFile::Header
{
    JsonValue json;
    std::map<std::string, std::string> metadata;
    std::vector<Entry> entries;
    std::uint64_t dataStart = 0;
};

ModelFile::Header ModelFile::readHeader (Reader& reader, LoadBudget& budget)
{
    const auto numBytes = reader.size();
    if (numBytes < 8)
        throw reader.fail ("too short to be a safetensors file (" + std::to_string (numBytes) + " bytes)");
    std::uint8_t prefix[8];
    reader.read (0, 8, prefix);
    const auto headerBytes = readLittleEndian64 (prefix);
    if (headerBytes > kMaxHeaderBytes || headerBytes > numBytes - 8)
        throw reader.fail ("header length " + std::to_string (headerBytes) + " exceeds the file size (" + std::to_string (numBytes)
                           + " bytes) or the limit of " + std::to_string (kMaxHeaderBytes) + " bytes: not a safetensors file, or truncated");
    Header header;
    header.dataStart = 8 + headerBytes;
    const auto dataBytes = numBytes - header.dataStart;

    try
    {
        budget.claim (static_cast<std::size_t> (headerBytes), "the header");
        std::string text (static_cast<std::size_t> (headerBytes), '\0');
        reader.read (8, text.size(), text.data());
        std::size_t parsedBytes = 0;
        header.json = parseJson (text, budget.remainingBytes(), parsedBytes);
        budget.claim (parsedBytes, "the parsed header");
    }
    catch (const JsonError& e)
    {
        throw reader.fail (std::string ("header is not valid JSON: ") + e.what());
    }
    catch (const ModelError& e)
    {
        throw reader.fail (e.what());
    }
    if (! header.json.isObject())
        throw reader.fail ("header is not a JSON object");

    auto& entries = header.entries;
    try
    {
        for (const auto& [key, value] : header.json.asObject())
        {
            if (key == keys::metadata)
            {
                if (! value.isObject())
                    throw ModelError (std::string (keys::metadata) + " is not an object");
                for (const auto& [metaKey, metaValue] : value.asObject())
                {
                    if (! metaValue.isString())
                        throw ModelError ("metadata " + quote (metaKey) + " is not a string");
                    header.metadata[metaKey] = metaValue.asString();
                }
                continue;
            }
            entries.push_back (parseEntry (key, value));
        }
    }
    catch (const JsonError& e)
    {
        throw reader.fail (e.what());
    }
    catch (const ModelError& e)
    {
        throw reader.fail (e.what());
    }

    // The tensors must tile the data section exactly: no overlap, no gap, nothing past the end.
    std::vector<std::size_t> order (entries.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort (order.begin(), order.end(), [&] (std::size_t a, std::size_t b) { return entries[a].begin < entries[b].begin; });
    std::uint64_t expected = 0;
    for (const auto i : order)
    {
        const auto& entry = entries[i];
        if (entry.begin != expected)
            throw reader.fail ("tensor " + quote (entry.name) + " starts at byte " + std::to_string (entry.begin) + " of the data section, expected "
                               + std::to_string (expected) + (entry.begin < expected ? " (overlaps the previous tensor)" : " (gap)"));
        expected = entry.end;
    }
    if (expected != dataBytes)
        throw reader.fail (expected > dataBytes ? "truncated: tensors need " + std::to_string (expected) + " data bytes but the file holds "
                                                      + std::to_string (dataBytes)
                                                : std::to_string (dataBytes - expected) + " bytes of trailing data after the last tensor");
    return header;
}

JsonValue ModelFile::parseHeader (const std::uint8_t* bytes, std::size_t numBytes, const std::string& name, LoadBudget& budget, std::uint64_t& dataStart)
{
    MemoryReader reader (bytes, numBytes, name);
    auto header = readHeader (reader, budget);
    dataStart = header.dataStart;
    return std::move (header.json);
}

ModelFile ModelFile::load (Reader& reader, LoadBudget& budget)
{
    static_assert (std::endian::native == std::endian::little, "the engine reads little-endian float32 data");
    auto header = readHeader (reader, budget);
    const auto& entries = header.entries;
    const auto dataStart = header.dataStart;
    ModelFile file;
    file.metadata_ = std::move (header.metadata);

    // Each tensor starts 64-byte aligned; dataBytes bounds the sum, the padding adds 15 floats each.
    std::uint64_t numFloats = 0;
    for (const auto& entry : entries)
        numFloats += AlignedBuffer::roundUp (static_cast<std::size_t> ((entry.end - entry.begin) / sizeof (float)));
    try
    {
        budget.claim (numFloats, sizeof (float), "the weights (" + std::to_string (entries.size()) + " tensors)");
    }
    catch (const ModelError& e)
    {
        throw reader.fail (e.what());
    }
    file.weights_ = AlignedBuffer (static_cast<std::size_t> (numFloats));
    file.tensors_.reserve (entries.size());
    std::size_t offset = 0;
    for (const auto& entry : entries)
    {
        const auto count = static_cast<std::size_t> ((entry.end - entry.begin) / sizeof (float));
        if (count > 0)
            reader.read (dataStart + entry.begin, count * sizeof (float), file.weights_.data() + offset);
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
