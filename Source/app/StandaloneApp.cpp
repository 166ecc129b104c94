// The standalone app: JUCE's standalone window around the plugin, set up for an app that analyses
// files as much as it listens:
// - files named on the command line (or by a file manager's "Open with") are analysed at once;
// - with no audio device the app says so once, plainly, and file analysis still works (only
//   playing needs a device); the processor knows whether a device is open, and follows changes;
// - the input is not muted by JUCE (no yellow "Audio input is muted" bar): the processor never
//   sends the standalone's input to the speakers, and analyses it only when the user asks
//   (SonotypeProcessor::setListeningToInput), so there is no feedback loop to guard against.
// - it works with a window manager that starts after it (X11Connection.h), and saves its state on
//   every way out: quit, the window's close, a signal, a lost display;
// - it answers --help and --version on its command line as other programs do, before JUCE starts
//   and any window opens (help2man makes its man page from them, cmake/Install.cmake);
// - "About Sonotype" in the window's Options menu shows the version, license and website.
// Built into the Standalone target only (JUCE_USE_CUSTOM_PLUGIN_STANDALONE_APP and its own entry
// point, JUCE_USE_CUSTOM_PLUGIN_STANDALONE_ENTRYPOINT, cmake/Plugin.cmake).
#include "app/X11Connection.h"
#include "gui/AboutBox.h"
#include "gui/SonotypeEditor.h"
#include "plugin/SonotypeProcessor.h"

// JUCE's standalone window, included as its own standalone app includes it (in this order).
// clang-format off
#include <juce_core/system/juce_TargetPlatform.h>
#include <juce_audio_plugin_client/utility/juce_CheckSettingMacros.h>
#include <juce_audio_plugin_client/utility/juce_IncludeModuleHeaders.h>
#include <juce_audio_devices/juce_audio_devices.h>
#include <juce_audio_utils/juce_audio_utils.h>
#include <juce_gui_extra/juce_gui_extra.h>
#include <juce_audio_plugin_client/Standalone/juce_StandaloneFilterWindow.h>
// clang-format on
#undef Component // juce_IncludeModuleHeaders.h defines it as juce::Component

#include <cstring>
#include <iostream>
#include <optional>

namespace sonotype::app
{

/** JUCE's standalone window with "About Sonotype" added to its Options menu (JUCE's own items keep
    their numbers and their handling). */
class SonotypeWindow final : public juce::StandaloneFilterWindow
{
public:
    using juce::StandaloneFilterWindow::StandaloneFilterWindow;

    static constexpr int kAboutItem = 100; // past JUCE's own items (1 to 4)

private:
    void buttonClicked (juce::Button*) override
    {
        juce::PopupMenu menu;
        menu.addItem (1, "Audio/MIDI Settings...");
        menu.addSeparator();
        menu.addItem (2, "Save current state...");
        menu.addItem (3, "Load a saved state...");
        menu.addSeparator();
        menu.addItem (4, "Reset to default state");
        menu.addSeparator();
        menu.addItem (kAboutItem, "About Sonotype");
        juce::Component::SafePointer<SonotypeWindow> window (this);
        menu.showMenuAsync (juce::PopupMenu::Options(), [window] (int result) {
            if (window == nullptr || result == 0)
                return;
            if (result != kAboutItem)
                window->handleMenuResult (result);
            else if (auto* processor = window->getAudioProcessor())
                if (auto* editor = dynamic_cast<gui::SonotypeEditor*> (processor->getActiveEditor()))
                    editor->showAbout (true);
        });
    }
};

class SonotypeApp final : public juce::JUCEApplication, private juce::ChangeListener
{
public:
    SonotypeApp()
    {
        juce::PropertiesFile::Options options; // where JUCE's standalone app keeps them
        options.applicationName = getApplicationName();
        options.filenameSuffix = ".settings";
        options.osxLibrarySubFolder = "Application Support";
#if JUCE_LINUX || JUCE_BSD
        options.folderName = "~/.config";
#endif
        properties_.setStorageParameters (options);
    }

    const juce::String getApplicationName() override { return JucePlugin_Name; }
    const juce::String getApplicationVersion() override { return JucePlugin_VersionString; }
    bool moreThanOneInstanceAllowed() override { return true; }
    void anotherInstanceStarted (const juce::String& commandLine) override { openFiles (juce::StringArray::fromTokens (commandLine, true)); }

    void initialise (const juce::String&) override
    {
        auto* settings = properties_.getUserSettings();
        settings->setValue ("shouldMuteInput", false); // see the top of this file
        window_ = std::make_unique<SonotypeWindow> (
            getApplicationName(), juce::LookAndFeel::getDefaultLookAndFeel().findColour (juce::ResizableWindow::backgroundColourId), settings, false);
        window_->setIcon (gui::appIcon (256));
        window_->setVisible (true);
        atoms_.release(); // JUCE's connection is open now (the window is on it)
        onConnectionLost ([this] { saveState(); });
        window_->getDeviceManager().addChangeListener (this);
        deviceChanged();
        openFiles (getCommandLineParameterArray());
    }

    void shutdown() override
    {
        saveState(); // (a quit from a signal comes here without the window's close)
        if (window_ != nullptr)
            window_->getDeviceManager().removeChangeListener (this);
        window_ = nullptr;
        properties_.saveIfNeeded();
    }

    void systemRequestedQuit() override
    {
        saveState();
        if (juce::ModalComponentManager::getInstance()->cancelAllModalComponents())
            juce::Timer::callAfterDelay (100, [] {
                if (auto* app = juce::JUCEApplicationBase::getInstance())
                    app->systemRequestedQuit();
            });
        else
            quit();
    }

private:
    /** The plugin's state into the settings, and the settings to their file. */
    void saveState()
    {
        if (window_ != nullptr)
            window_->pluginHolder->savePluginState();
        properties_.saveIfNeeded();
    }

    plugin::SonotypeProcessor* processor() const
    {
        return window_ != nullptr ? dynamic_cast<plugin::SonotypeProcessor*> (window_->getAudioProcessor()) : nullptr;
    }

    void changeListenerCallback (juce::ChangeBroadcaster*) override { deviceChanged(); }

    void deviceChanged()
    {
        auto* sonotype = processor();
        if (sonotype == nullptr)
            return;
        const bool available = window_->getDeviceManager().getCurrentAudioDevice() != nullptr;
        const bool wasAvailable = sonotype->isAudioDeviceAvailable();
        sonotype->setAudioDeviceAvailable (available);
        // A lasting notice, said once per loss of the device (a dismissed one stays dismissed
        // while nothing changes), and taken down when a device opens.
        if (available)
            sonotype->clearStatus (plugin::StatusCause::device);
        else if (wasAvailable) // (the processor starts out assuming a device)
            sonotype->setStatus (plugin::StatusCause::device,
                                 "No audio device: files are analyzed, not played. To play them or hear the input, choose a device "
                                 "in Options > Audio/MIDI Settings.",
                                 plugin::StatusKind::notice);
    }

    /** The files named on a command line, analysed; a name that is no file is said in the status. */
    void openFiles (const juce::StringArray& arguments)
    {
        auto* sonotype = processor();
        if (sonotype == nullptr)
            return;
        juce::Array<juce::File> files;
        juce::StringArray refused;
        for (const auto& argument : arguments)
        {
            if (argument.startsWith ("-")) // JUCE's and the system's own options (e.g. -NSDocumentRevisionsDebugMode)
                continue;
            const auto file = juce::File::getCurrentWorkingDirectory().getChildFile (argument.unquoted());
            if (file.existsAsFile())
                files.add (file);
            else
                refused.add ("Cannot open " + argument.unquoted() + ": " + (file.isDirectory() ? "a folder, not a file" : "no such file"));
        }
        // This command line's names replace what an earlier one said (nothing: all were opened).
        if (! refused.isEmpty() || ! files.isEmpty())
            sonotype->setStatus (plugin::StatusCause::commandLine, refused.joinIntoString ("; "), plugin::StatusKind::error);
        if (files.isEmpty())
            return;
        if (auto* editor = dynamic_cast<gui::SonotypeEditor*> (sonotype->getActiveEditor()))
            editor->openAudioFiles (files);
        else
            sonotype->analyzeFiles (files);
    }

    WindowManagerAtoms atoms_; // before JUCE connects: made with the app, released once its window is up
    juce::ApplicationProperties properties_;
    std::unique_ptr<SonotypeWindow> window_;
};

namespace
{
    /** The answer to --help or --version anywhere on the command line (before a "--"): printed, and
    the exit status; nothing when neither is there and the app should start. */
    std::optional<int> answerInformationOptions (int argc, char** argv)
    {
        for (int i = 1; i < argc && std::strcmp (argv[i], "--") != 0; ++i)
        {
            const std::string option = argv[i];
            if (option == "--version" || option == "-V")
            {
                std::cout << "sonotype-app " << SONOTYPE_VERSION << "\n"
                          << "License GPL-3.0-or-later: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n"
                          << "This is free software: you are free to change and redistribute it.\n"
                          << "There is NO WARRANTY, to the extent permitted by law.\n";
                return 0;
            }
            if (option == "--help" || option == "-h")
            {
                std::cout << "Usage: sonotype-app [OPTION]... [FILE]...\n"
                             "Sonotype's app: names what it hears, live from an audio input or in whole audio files;\n"
                             "learns your own classes from a few examples; turns hits into MIDI notes.\n"
                             "\n"
                             "Each FILE (WAV, AIFF, FLAC, Ogg Vorbis, Opus or MP3) is opened and analyzed at once, in the\n"
                             "Files view; a running app opens them too. With no audio device the app still analyzes\n"
                             "files (playing them needs a device: Options > Audio/MIDI Settings).\n"
                             "\n"
                             "Options:\n"
                             "  -h, --help     show this help and exit\n"
                             "  -V, --version  print the version and exit\n"
                             "\n"
                             "Its settings and last state are kept in ~/.config/Sonotype.settings. The same analysis runs\n"
                             "in a DAW as the Sonotype VST3 and LV2 plugin, and on the command line as sonotype(1).\n";
                return 0;
            }
        }
        return std::nullopt;
    }
} // namespace

} // namespace sonotype::app

juce::JUCEApplicationBase* juce_CreateApplication();
juce::JUCEApplicationBase* juce_CreateApplication()
{
    return new sonotype::app::SonotypeApp();
}

// The app's own entry point: --help and --version are answered before JUCE starts (no display
// needed), then JUCE runs the app as its own entry point would.
int main (int argc, char* argv[])
{
    if (const auto status = sonotype::app::answerInformationOptions (argc, argv))
        return *status;
    juce::JUCEApplicationBase::createInstance = &juce_CreateApplication;
    return juce::JUCEApplicationBase::main (argc, const_cast<const char**> (argv));
}
