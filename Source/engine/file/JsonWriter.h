// JSON text from a JsonValue, byte for byte as nlohmann/json 3.11's dump() writes the same
// document: the model files `sonotype learn` and the Teach panel wrote, and the taught examples
// (the plugin's saved state), were written by it before ModelFileWriter, and their bytes stay the
// same. So: compact (no spaces); an object's keys sorted by their bytes (nlohmann keeps an object
// in a std::map), whatever order they were parsed or set in; integers as their digits, other
// numbers as JsonNumber.h lays them out, NaN and infinities as null; strings as UTF-8, with only
// '"', '\' and the controls U+0000-U+001F escaped (\b \t \n \f \r, the others \u00xx), "/", DEL
// and everything beyond ASCII as they are. Standard library only.
#pragma once

#include "engine/file/Json.h"

#include <string>

namespace sonotype::engine
{

/** What writeJson does with a string (or key) that is not valid UTF-8. */
enum class InvalidUtf8
{
    refuse, // throws JsonError naming the byte (nlohmann's error_handler_t::strict)
    replace // each maximal invalid run of bytes becomes U+FFFD (nlohmann's error_handler_t::replace)
};

/** Deeper nesting than this is refused by writeJson: twice what parseJson reads, so that a parsed
    document put inside another is written, and the stack stays bounded for any value. */
constexpr int kMaxJsonWriteDepth = 2 * kMaxJsonDepth;

/** The document as text. Throws JsonError for an object holding one key twice (JsonValue::object
    does not check), nesting deeper than kMaxJsonWriteDepth, and as `invalid` says. */
std::string writeJson (const JsonValue& value, InvalidUtf8 invalid = InvalidUtf8::refuse);

/** The same, appended to `out` (which is left as it was when it throws). */
void appendJson (std::string& out, const JsonValue& value, InvalidUtf8 invalid = InvalidUtf8::refuse);

} // namespace sonotype::engine
