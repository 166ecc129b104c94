// Writing a file the user chose (a timeline export, the taught model): the missing folders above
// it are made, an old file is replaced only once the new one is whole, and a failure says the
// system's reason, as in "Could not write /x/y.mid: Permission denied".
//
// Threading contract
// - Any thread: writeFile() shares nothing but the file system (the editor calls it on the message
//   thread, Teaching::exportModel on whichever thread asks).
#pragma once

#include <juce_core/juce_core.h>

#include <cstddef>

namespace sonotype::plugin
{

/** Writes `size` bytes of `data` as `destination`, making the folders above it first. Returns the
    error, "Could not write <path>: <reason>" (the system's reason where it gives one), empty on
    success. The bytes go to a hidden file beside `destination` that then replaces it, so a failed
    write leaves an existing file as it was. */
juce::String writeFile (const juce::File& destination, const void* data, std::size_t size);

} // namespace sonotype::plugin
