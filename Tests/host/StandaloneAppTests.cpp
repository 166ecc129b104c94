// The built standalone app, as a user starts it on a machine with no audio device (the test's Xvfb
// display, no sound card, no JACK server): `Sonotype song.wav` opens, analyses the file from the
// command line and shows its timeline; the window is captured from the X display (the screenshot
// README shows: build/screenshots/app-no-device.png). It must keep running: no device is no error.
// Then the Audio/MIDI Settings window opened and closed again and again, with a window manager
// (openbox) started while it is open, as a user drives it (xdotool, wmctrl): the app keeps running,
// and closing its window through the window manager saves its state and quits cleanly.
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

namespace
{
/** The X display the settings test drives: its own, so that no window manager nor any atom of
    an earlier test is there before the app (env's arguments that put a command on it). */
juce::StringArray onDisplay;

/** Runs a tool (xdotool, wmctrl) on that display to its end; its standard output. */
juce::String runTool (const juce::StringArray& arguments)
{
    auto command = onDisplay;
    command.addArray (arguments);
    juce::ChildProcess tool;
    if (! tool.start (command, juce::ChildProcess::wantStdOut))
        return {};
    auto output = tool.readAllProcessOutput();
    tool.waitForProcessToFinish (10000);
    return output.trim();
}

/** The first window whose name matches `pattern` (xdotool's id), waiting up to `seconds`; empty if none. */
juce::String findWindow (const juce::String& pattern, double seconds)
{
    const auto deadline = juce::Time::getMillisecondCounterHiRes() + seconds * 1000.0;
    do
    {
        const auto found = juce::StringArray::fromLines (runTool ({ "xdotool", "search", "--name", pattern }))[0];
        if (found.isNotEmpty())
            return found;
        std::this_thread::sleep_for (std::chrono::milliseconds (100));
    } while (juce::Time::getMillisecondCounterHiRes() < deadline);
    return {};
}

/** A click at (x, y) in `window` (xdotool places the pointer from the window's own corner, inside a
    window manager's frame too). */
void clickIn (const juce::String& window, int x, int y)
{
    runTool ({ "xdotool", "mousemove", "--window", window, juce::String (x), juce::String (y), "click", "1" });
}

/** Options > Audio/MIDI Settings..., as a user clicks it in JUCE's title bar; the settings window's id.
    Tried again while the app is not yet answering clicks (it has just started, or a window manager
    is taking its windows). */
juce::String openAudioSettings (const juce::String& mainWindow)
{
    for (int attempt = 0; attempt < 10; ++attempt)
    {
        clickIn (mainWindow, 30, 14); // the "Options" button
        if (const auto menu = findWindow ("^menu$", 2.0); menu.isNotEmpty())
        {
            std::this_thread::sleep_for (std::chrono::milliseconds (600)); // (JUCE's menu takes no click at once)
            clickIn (menu, 60, 14);                                        // its first item
            return findWindow ("^Audio/MIDI Settings$", 5.0);
        }
    }
    return {};
}

bool waitUntilGone (const juce::String& pattern)
{
    for (int attempt = 0; attempt < 50; ++attempt)
    {
        if (runTool ({ "xdotool", "search", "--name", pattern }).isEmpty())
            return true;
        std::this_thread::sleep_for (std::chrono::milliseconds (100));
    }
    return false;
}

/** The window manager's close (_NET_CLOSE_WINDOW), as its title bar's close button sends it. */
void closeThroughWindowManager (const juce::String& window)
{
    runTool ({ "wmctrl", "-i", "-c", "0x" + juce::String::toHexString (window.getLargeIntValue()) });
}
} // namespace

/** The built app on an X display of its own, fresh (the app is its first client, as on a desktop
    whose window manager starts after it), in a fresh home; everything it started ends with it. */
class AppOnOwnDisplay
{
public:
    AppOnOwnDisplay()
    {
        for (const auto* tool : { "xdotool", "wmctrl", "openbox", "Xvfb" })
            REQUIRE (runTool ({ "sh", "-c", juce::String ("command -v ") + tool }).isNotEmpty()); // scripts/install-deps.sh installs them
        int number = 90 + ::getpid() % 100;
        while (juce::File ("/tmp/.X11-unix/X" + juce::String (number)).exists())
            ++number;
        REQUIRE (display_.start (juce::StringArray { "Xvfb", ":" + juce::String (number), "-screen", "0", "1600x1000x24", "-nolisten", "tcp" }, 0));
        for (int attempt = 0; attempt < 100 && ! juce::File ("/tmp/.X11-unix/X" + juce::String (number)).exists(); ++attempt)
            std::this_thread::sleep_for (std::chrono::milliseconds (50));
        home.deleteRecursively();
        home.createDirectory();
        onDisplay = { "env", "DISPLAY=:" + juce::String (number), "HOME=" + home.getFullPathName() };
        auto command = onDisplay;
        command.add (SONOTYPE_STANDALONE_PATH);
        REQUIRE (app.start (command, 0));
        mainWindow = findWindow ("^Sonotype$", 30.0);
        REQUIRE (mainWindow.isNotEmpty());
        std::this_thread::sleep_for (std::chrono::seconds (1));
    }

    ~AppOnOwnDisplay()
    {
        for (auto* process : { &app, &windowManager, &display_ })
            if (process->isRunning())
                process->kill();
        onDisplay.clear();
        home.deleteRecursively();
    }

    void startWindowManager()
    {
        auto openbox = onDisplay;
        openbox.add ("openbox");
        REQUIRE (windowManager.start (openbox, 0));
        std::this_thread::sleep_for (std::chrono::seconds (2));
    }

    const juce::File home = juce::File::getSpecialLocation (juce::File::tempDirectory).getChildFile ("sonotype-settings-home-" + juce::String (::getpid()));
    const juce::File settingsFile = home.getChildFile (".config/Sonotype.settings");
    juce::ChildProcess app, windowManager;
    juce::String mainWindow;

private:
    juce::ChildProcess display_;
};

TEST_CASE ("the standalone app survives its Audio/MIDI Settings window closed again and again, a window manager started while it is open",
           "[gui][app]")
{
    AppOnOwnDisplay session;
    for (int round = 0; round < 4; ++round)
    {
        INFO ("round " << round);
        const auto settings = openAudioSettings (session.mainWindow);
        REQUIRE (settings.isNotEmpty());
        if (round == 0)
            session.startWindowManager(); // started while the settings are open
        if (round % 2 == 0)
            closeThroughWindowManager (settings); // its close button: the window manager asks the app to close it
        else
            runTool ({ "xdotool", "windowactivate", "--sync", settings, "key", "--clearmodifiers", "Escape" });
        CHECK (waitUntilGone ("^Audio/MIDI Settings$"));
        std::this_thread::sleep_for (std::chrono::milliseconds (500));
        REQUIRE (session.app.isRunning()); // (it used to be killed by the window manager: exit code 1, the state lost)
    }

    // Closed through the window manager, the app quits as its close button says, saving its state.
    session.settingsFile.deleteFile();
    closeThroughWindowManager (session.mainWindow);
    CHECK (session.app.waitForProcessToFinish (20000));
    CHECK (session.app.getExitCode() == 0);
    CHECK (session.settingsFile.loadFileAsString().contains ("filterState"));
}

TEST_CASE ("the standalone app whose X connection is cut saves its state before Xlib ends it", "[gui][app]")
{
    AppOnOwnDisplay session;
    session.settingsFile.deleteFile();
    runTool ({ "xdotool", "windowkill", session.mainWindow }); // XKillClient: what a window manager's kill does
    CHECK (session.app.waitForProcessToFinish (20000));
    CHECK (session.app.getExitCode() == 1); // Xlib's own exit: nothing can go on without the display
    CHECK (session.settingsFile.loadFileAsString().contains ("filterState"));
}
