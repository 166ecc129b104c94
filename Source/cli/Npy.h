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
    std::vector<int64_t> shape; // empty for a 0-d array (one element)
    std::vector<float> data;    // row-major (C order)
};

struct NpyError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

/** Reads a .npy file: float32 ('<f4') or float64 ('<f8', converted), C order, format 1.0–3.0.
    Throws NpyError naming the file and the problem. */
NpyArray readNpy (const std::string& path);

/** As readNpy, from the bytes of a file; `name` starts the error messages. */
NpyArray parseNpy (const std::vector<std::uint8_t>& bytes, const std::string& name = "npy data");

/** Writes a version 1.0, '<f4', C-order file byte for byte as numpy.save does (header padded so
    the data starts at a multiple of 64). Throws NpyError if the shape does not match the data. */
void writeNpy (const std::string& path, const NpyArray& array);
std::vector<std::uint8_t> serialiseNpy (const NpyArray& array);

} // namespace sonotype::cli
