// A double as JSON text, character for character as nlohmann/json 3.11's dump() writes it: the
// files `sonotype learn` and the Teach panel wrote before ModelFileWriter were written by it, and
// their bytes stay the same. The digits are Grisu2's (Loitsch, "Printing Floating-Point Numbers
// Quickly and Accurately with Integers", PLDI 2010): digits that read back to the same double, the
// fewest in an interval narrowed by the method's error, so not always the shortest there are —
// std::to_chars (which finds those) differs on a few doubles in a thousand and cannot stand in.
// The digits are laid out as printf's %g would: fixed from 1e-4 to below 1e15 ("0.0001",
// "123.25"), else with an exponent of at least two digits ("1e-05", "1.5e+20"); a whole number
// keeps ".0" ("2.0") and zero is "0.0" or "-0.0". Standard library only.
#pragma once

#include <cstddef>

namespace sonotype::engine
{

/** The most characters formatJsonDouble writes ("-2.2250738585072014e-308" is 24). */
constexpr std::size_t kMaxJsonDoubleChars = 32;

/** Writes a finite `value` at `buffer` (room for kMaxJsonDoubleChars); returns the end of what
    it wrote. Not for NaN or infinities (writeJson writes those as null, as nlohmann/json does). */
char* formatJsonDouble (char* buffer, double value) noexcept;

} // namespace sonotype::engine
