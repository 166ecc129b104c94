// Screenshots the GUI tests write to build/screenshots/ (README's images come from there).
#pragma once

#include <catch2/catch.hpp>
#include <juce_gui_basics/juce_gui_basics.h>

#ifndef SONOTYPE_SCREENSHOT_DIR
#error "SONOTYPE_SCREENSHOT_DIR must be defined"
#endif

namespace sonotype::testing
{

/** Writes `image` as SONOTYPE_SCREENSHOT_DIR/name (PNG); returns the file. */
inline juce::File saveScreenshot (const juce::Image& image, const char* name)
{
    const auto directory = juce::File (SONOTYPE_SCREENSHOT_DIR);
    directory.createDirectory();
    const auto file = directory.getChildFile (name);
    file.deleteFile();
    juce::FileOutputStream stream (file);
    REQUIRE (stream.openedOk());
    juce::PNGImageFormat().writeImageToStream (image, stream);
    return file;
}

/** A component as it is drawn now, written as saveScreenshot does. */
inline juce::File saveScreenshot (juce::Component& component, const char* name)
{
    return saveScreenshot (component.createComponentSnapshot (component.getLocalBounds()), name);
}

} // namespace sonotype::testing
