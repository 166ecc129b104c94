#pragma once

#include <stdexcept>

namespace sonotype::engine
{

/** A model file or graph the engine refuses, with a message that says what and where. */
struct ModelError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

} // namespace sonotype::engine
