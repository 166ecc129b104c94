#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace sonotype::engine
{

/** `text` safe to show on a terminal or in a GUI: control bytes, DEL and bytes that are not valid
    UTF-8 become \xNN escapes (a file name or tensor name from a hostile file cannot send terminal
    escape sequences). Valid UTF-8 text is left as it is. */
std::string printable (std::string_view text);

/** A model file or graph the engine refuses, with a message that says what and where. The
    message is made printable(): it may quote names read from the file. */
struct ModelError : std::runtime_error
{
    explicit ModelError (const std::string& message) : std::runtime_error (printable (message)) {}
    explicit ModelError (const char* message) : std::runtime_error (printable (message)) {}
};

} // namespace sonotype::engine
