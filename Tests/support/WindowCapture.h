// Finds a top-level window of another process on the X display by its title and reads its pixels
// (Xlib; the test's Xvfb display). Kept apart from JUCE's headers: Xlib's macros clash with them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sonotype::testing
{

struct WindowPixels
{
    int width = 0, height = 0;
    std::vector<uint32_t> argb; // row by row, 0xAARRGGBB
};

/** The pixels of the first window titled `title` on $DISPLAY (empty when there is none). */
WindowPixels captureWindow (const std::string& title);

} // namespace sonotype::testing
