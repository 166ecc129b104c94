// Test runner for the JUCE layers (plugin, GUI): JUCE's message manager lives on the main thread, as
// in a host. Like a host (and unlike a JUCEApplication, where JUCE does it itself), the runner
// installs an X error handler: under Xvfb there is no window manager, so atoms such as WM_STATE do
// not exist and JUCE's queries of them fail harmlessly instead of ending the process. The file
// choosers' settings (gui/FileChoosers.h) go to a folder of this run's, never the user's.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <juce_events/juce_events.h>

#include <cstdlib>

#if defined(__linux__)
#include <X11/Xlib.h>
#endif

int main (int argc, char* argv[])
{
#if defined(__linux__)
    XSetErrorHandler ([] (Display*, XErrorEvent*) { return 0; });
#endif
    const juce::ScopedJuceInitialiser_GUI juce;
    const auto settings = juce::File::getSpecialLocation (juce::File::tempDirectory).getNonexistentChildFile ("sonotype-test-settings", {});
    ::setenv ("SONOTYPE_SETTINGS_FOLDER", settings.getFullPathName().toRawUTF8(), 1);
    const int failed = Catch::Session().run (argc, argv);
    settings.deleteRecursively();
    return failed;
}
