// Reading and writing NumPy .npy files of float32 arrays (run-model's input and output format).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sonotype::cli
{

struct NpyArray
{
    std::vector<int64_t> shape;
    std::vector<float> data; // row-major
};

struct NpyError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

/** Reads a .npy file: float32 ('<f4') or float64 ('<f8', converted), C order, format 1.0–3.0. */
NpyArray readNpy (const std::string& path);
NpyArray parseNpy (const std::vector<std::uint8_t>& bytes, const std::string& name = "npy data");

/** Writes a version 1.0, '<f4', C-order file, header padded to 64 bytes as NumPy does. */
void writeNpy (const std::string& path, const NpyArray& array);
std::vector<std::uint8_t> serialiseNpy (const NpyArray& array);

} // namespace sonotype::cli
