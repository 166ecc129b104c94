// Reading a Sonotype model file: the safetensors container (tensors + string metadata).
// Every size and offset in the file is checked before it is used; see docs/ENGINE.md for the format.
#pragma once

#include "engine/file/AlignedBuffer.h"
#include "engine/file/Json.h"
#include "engine/file/LoadBudget.h"
#include "engine/file/Shape.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace sonotype::engine
{

struct StoredTensor
{
    std::string name;
    Shape shape;
    std::size_t offset = 0; // in floats, into the weights buffer (64-byte aligned)
};

class ModelFile
{
public:
    static constexpr std::uint64_t kMaxHeaderBytes = 64u << 20;
    /** A tensor name is at most this long, valid UTF-8 without control or invisible characters. */
    static constexpr std::size_t kMaxNameBytes = 1024;

    /** Reads and validates a file; throws ModelError naming the file and the problem. The header
        and the weights are claimed from `budget` before they are allocated; the tensor data is
        read straight into place. */
    static ModelFile read (const std::string& path, LoadBudget& budget);

    /** Same, from bytes in memory (`name` is used in error messages). */
    static ModelFile parse (const std::uint8_t* bytes, std::size_t numBytes, const std::string& name, LoadBudget& budget);

    /** The header of a file in memory as parsed JSON, after every check parse() makes of it (its
        length, the JSON, the metadata's strings, each tensor's entry, the tensors tiling the data
        section), and in `dataStart` where the data section begins; the tensors are not read.
        What ModelFileWriter starts from. Throws ModelError as parse() does. */
    static JsonValue parseHeader (const std::uint8_t* bytes, std::size_t numBytes, const std::string& name, LoadBudget& budget,
                                  std::uint64_t& dataStart);

    const std::map<std::string, std::string>& metadata() const noexcept { return metadata_; }
    const std::vector<StoredTensor>& tensors() const noexcept { return tensors_; }
    const StoredTensor* find (const std::string& name) const noexcept;
    const float* data (const StoredTensor& tensor) const noexcept { return weights_.data() + tensor.offset; }
    std::size_t numWeightFloats() const noexcept;

    // Reading, in ModelFile.cpp: a header entry, and the source of the bytes (file or memory).
    struct Entry;
    class Reader;

private:
    struct Header; // the parsed header, its metadata and entries (ModelFile.cpp)
    static Header readHeader (Reader& reader, LoadBudget& budget);
    static ModelFile load (Reader& reader, LoadBudget& budget);

    std::map<std::string, std::string> metadata_;
    std::vector<StoredTensor> tensors_;
    std::unordered_map<std::string, std::size_t> index_;
    AlignedBuffer weights_;
};

} // namespace sonotype::engine
