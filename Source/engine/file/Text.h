// Text read from model files and shown to people (labels in CSV and the GUI, names quoted in error
// messages): which characters are never shown as they are, escaping and quoting for messages, and
// the checks labels and names must pass.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sonotype::engine
{

/** What `codePoint` is when a terminal, a spreadsheet or a GUI must never get it raw: a C0 control
    or DEL, a C1 control (U+0080-U+009F: U+009B is the one-byte CSI terminals obey), a
    bidirectional-text control (U+202E and the isolates reorder what follows), an invisible format
    character (zero-width spaces and joiners, soft hyphen, tags: they make two labels look alike), a
    variation selector, a line or paragraph separator, or another Unicode format character
    (category Cf); nullptr for every other character. */
const char* unsafeCharacterKind (char32_t codePoint) noexcept;

/** `text` safe to show: bytes that are not valid UTF-8 and C0 controls or DEL become \xNN, other
    unsafe characters \uXXXX (\UXXXXXXXX beyond U+FFFF); everything else is left as it is. */
std::string printable (std::string_view text);

/** printable (text) in single quotes, cut after about `maxBytes` bytes ("…", then its length):
    for quoting a name or value from a file in a message. */
std::string quote (std::string_view text, std::size_t maxBytes = 64);

/** Throws ModelError ("<what> <quoted text> ...") unless `text` is valid UTF-8 of 1 to maxBytes
    bytes without unsafe characters (an emoji's own presentation selector and joiners excepted:
    U+FE0F after a pictograph or keycap base, U+200D between pictographs). For labels and names a
    model file gives. */
void checkDisplayText (std::string_view text, std::size_t maxBytes, const std::string& what);

} // namespace sonotype::engine
