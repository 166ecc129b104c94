#pragma once

#include "engine/file/Text.h"

#include <stdexcept>
#include <string>
#include <string_view>

namespace sonotype::engine
{

/** A model file or graph the engine refuses, with a message that says what and where. The
    message is made printable(): it may quote names read from the file. */
struct ModelError : std::runtime_error
{
    explicit ModelError (const std::string& message) : std::runtime_error (printable (message)) {}
    explicit ModelError (const char* message) : std::runtime_error (printable (message)) {}
};

} // namespace sonotype::engine
