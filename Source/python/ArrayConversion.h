// NumPy arrays in and out of the engine for Model.run(): the inputs checked against the model's
// input shapes (float32 only, any memory layout: a copy in C order where needed), the outputs as
// new float32 arrays of the model's output shapes. Called with the GIL held.
#pragma once

#include "engine/Model.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

namespace sonotype::python
{

/** The inputs, one per model input, each float32 (TypeError if not) of exactly the input's shape
    (ValueError naming both shapes if not), as C-ordered float32 arrays (copies of the others). */
std::vector<pybind11::array> checkedInputs (const engine::ModelInfo& info, const pybind11::args& inputs);

/** A new, uninitialised C-ordered float32 array of the shape. */
pybind11::array_t<float> arrayOfShape (const engine::Shape& shape);

/** A shape as a tuple of ints. */
pybind11::tuple shapeTuple (const engine::Shape& shape);

} // namespace sonotype::python
