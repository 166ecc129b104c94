#include "python/ArrayConversion.h"

#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace sonotype::python
{
namespace
{
    std::string shapeText (const py::array& array)
    {
        std::string text = "[";
        for (py::ssize_t axis = 0; axis < array.ndim(); ++axis)
            text += (axis ? ", " : "") + std::to_string (array.shape (axis));
        return text + "]";
    }

    bool hasShape (const py::array& array, const engine::Shape& shape)
    {
        if (array.ndim() != shape.rank())
            return false;
        for (int axis = 0; axis < shape.rank(); ++axis)
            if (array.shape (axis) != shape[axis])
                return false;
        return true;
    }

    std::string inputName (const engine::ModelInfo& info, std::size_t i)
    {
        return info.inputShapes.size() == 1 ? std::string ("the input") : "input " + std::to_string (i);
    }
} // namespace

std::vector<py::array> checkedInputs (const engine::ModelInfo& info, const py::args& inputs)
{
    if (inputs.size() != info.inputShapes.size())
        throw py::type_error ("run() takes one array per model input: the model has " + std::to_string (info.inputShapes.size()) + ", "
                              + std::to_string (inputs.size()) + " given");
    std::vector<py::array> arrays;
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        const auto& input = inputs[i];
        if (! py::isinstance<py::array> (input))
            throw py::type_error (inputName (info, i) + " must be a numpy.ndarray of float32, not " + std::string (py::str (input.get_type().attr ("__name__"))));
        const auto array = py::reinterpret_borrow<py::array> (input);
        if (! py::isinstance<py::array_t<float>> (array))
            throw py::type_error (inputName (info, i) + " is " + std::string (py::str (array.dtype())) + ", the model takes float32: convert it with "
                                  + "x.astype(numpy.float32)");
        if (! hasShape (array, info.inputShapes[i]))
            throw py::value_error (inputName (info, i) + " has shape " + shapeText (array) + ", the model expects " + info.inputShapes[i].toString());
        // C order, copied only if it is not already (a transposed or strided view).
        auto ordered = py::array_t<float, py::array::c_style>::ensure (array);
        if (! ordered)
            throw std::runtime_error (inputName (info, i) + ": numpy could not make a C-ordered copy of it");
        arrays.push_back (std::move (ordered));
    }
    return arrays;
}

py::array_t<float> arrayOfShape (const engine::Shape& shape)
{
    std::vector<py::ssize_t> dimensions;
    for (int axis = 0; axis < shape.rank(); ++axis)
        dimensions.push_back (static_cast<py::ssize_t> (shape[axis]));
    return py::array_t<float, py::array::c_style> (dimensions);
}

py::tuple shapeTuple (const engine::Shape& shape)
{
    py::tuple tuple (static_cast<std::size_t> (shape.rank()));
    for (int axis = 0; axis < shape.rank(); ++axis)
        tuple[static_cast<std::size_t> (axis)] = py::int_ (shape[axis]);
    return tuple;
}

} // namespace sonotype::python
