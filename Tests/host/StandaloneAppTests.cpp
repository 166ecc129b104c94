// The built standalone app, as a user starts it on a machine with no audio device (the test's Xvfb
// display, no sound card, no JACK server): `Sonotype song.wav` opens, analyses the file from the
// command line and shows its timeline; the window is captured from the X display (the screenshot
// README shows: build/screenshots/app-no-device.png). It must keep running: no device is no error.
#include "gui/Theme.h"
#include "support/ExampleClips.h"
#include "support/Screenshots.h"
#include "support/WindowCapture.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <thread>
#include <unistd.h>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** Pixels within `tolerance` of `colour` in each channel. */
int countPixels (const WindowPixels& pixels, juce::Colour colour, int tolerance)
{
    int count = 0;
    for (const auto argb : pixels.argb)
    {
        const juce::Colour pixel (argb);
        if (std::abs (pixel.getRed() - colour.getRed()) <= tolerance && std::abs (pixel.getGreen() - colour.getGreen()) <= tolerance
            && std::abs (pixel.getBlue() - colour.getBlue()) <= tolerance)
            ++count;
    }
    return count;
}
} // namespace

TEST_CASE ("the standalone app with no audio device analyzes the file named on its command line", "[gui][app]")
{
    const auto home = juce::File::getSpecialLocation (juce::File::tempDirectory).getChildFile ("sonotype-app-home-" + juce::String (::getpid()));
    home.createDirectory();
    const auto wav = home.getChildFile ("speech then drums.wav");
    {
        const auto samples = exampleSequence ({ "speech", "drums" }, 44100.0, 2);
        juce::WavAudioFormat format;
        std::unique_ptr<juce::AudioFormatWriter> writer (format.createWriterFor (wav.createOutputStream().release(), 44100.0, 1, 16, {}, 0));
        REQUIRE (writer != nullptr);
        const float* channels[] = { samples.data() };
        REQUIRE (writer->writeFromFloatArrays (channels, 1, static_cast<int> (samples.size())));
    }
    // A fresh home: no saved audio settings, as on a new machine.
    const juce::String oldHome = std::getenv ("HOME");
    ::setenv ("HOME", home.getFullPathName().toRawUTF8(), 1);
    juce::ChildProcess app;
    const bool started = app.start (juce::StringArray { SONOTYPE_STANDALONE_PATH, wav.getFullPathName() }, 0);
    ::setenv ("HOME", oldHome.toRawUTF8(), 1);
    REQUIRE (started);

    // The speech class's segment block (its colour, 85% over the panel) appears once the file is analysed.
    const auto speech = gui::Colours::panel.overlaidWith (gui::classColour (2).withAlpha (0.85f));
    WindowPixels pixels;
    for (int attempt = 0; attempt < 300 && app.isRunning(); ++attempt)
    {
        std::this_thread::sleep_for (std::chrono::milliseconds (100));
        pixels = captureWindow ("Sonotype");
        if (pixels.width > 0 && countPixels (pixels, speech, 3) > 400)
            break;
    }
    CHECK (app.isRunning()); // no device is no reason to quit
    REQUIRE (pixels.width >= 900);
    CHECK (countPixels (pixels, speech, 3) > 400);
    std::this_thread::sleep_for (std::chrono::milliseconds (300)); // the last frame drawn
    pixels = captureWindow ("Sonotype");

    juce::Image image (juce::Image::ARGB, pixels.width, pixels.height, false);
    for (int y = 0; y < pixels.height; ++y)
        for (int x = 0; x < pixels.width; ++x)
            image.setPixelAt (x, y, juce::Colour (pixels.argb[static_cast<std::size_t> (y * pixels.width + x)]));
    saveScreenshot (image, "app-no-device.png");
    app.kill();
    home.deleteRecursively();
}
