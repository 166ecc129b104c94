// The file choosers as a producer meets them (gui/FileChoosers.h): each starts in the folder last
// used for its purpose (audio, examples, models, exports), in a new editor and processor too, and
// not in another purpose's; before any, in a default that exists; they offer home, Music and
// Desktop and the recent folders; exports go into folders that do not exist yet, and a refused
// export says why. Each test has a home folder of its own (HOME points at it) and its own settings
// folder, and drives JUCE's dialog as a user would (a file picked in the browser, Open pressed).
// Writes the screenshot README shows (build/screenshots/chooser-last-folder.png).
#include "gui/FileChoosers.h"
#include "plugin/ProcessorDriver.h"
#include "support/AppFiles.h"
#include "support/ExampleClips.h"
#include "support/MessageLoop.h"
#include "support/Screenshots.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** A home folder of the test's own, with the folders asked for (HOME points at it while it lives),
    the choosers' settings in a folder of its own, and JUCE's dialog in place of the platform's. */
class TestHome
{
public:
    explicit TestHome (std::initializer_list<const char*> folders)
    {
        REQUIRE (home.createDirectory().wasOk());
        for (const auto* folder : folders)
            REQUIRE (home.getChildFile (folder).createDirectory().wasOk());
        setVariable ("HOME", home.getFullPathName());
        setVariable ("SONOTYPE_SETTINGS_FOLDER", root.getChildFile ("settings").getFullPathName());
        gui::PurposeChooser::allowPlatformDialogs (false);
    }

    ~TestHome()
    {
        gui::PurposeChooser::allowPlatformDialogs (true);
        for (const auto& [name, value] : saved_)
            if (value.has_value())
                ::setenv (name.toRawUTF8(), value->toRawUTF8(), 1);
            else
                ::unsetenv (name.toRawUTF8());
        root.deleteRecursively();
    }

    const juce::File root = juce::File::getSpecialLocation (juce::File::tempDirectory).getNonexistentChildFile ("sonotype-chooser-test", {});
    const juce::File home = root.getChildFile ("producer");

private:
    void setVariable (const juce::String& name, const juce::String& value)
    {
        const char* old = std::getenv (name.toRawUTF8());
        saved_.emplace_back (name, old != nullptr ? std::optional<juce::String> (old) : std::nullopt);
        ::setenv (name.toRawUTF8(), value.toRawUTF8(), 1);
    }

    std::vector<std::pair<juce::String, std::optional<juce::String>>> saved_;
};

/** Runs the message loop until `done` (at most `milliseconds`); whether it came true. */
bool waitFor (const std::function<bool()>& done, int milliseconds = 10000)
{
    const auto deadline = juce::Time::getMillisecondCounter() + static_cast<juce::uint32> (milliseconds);
    while (! done() && juce::Time::getMillisecondCounter() < deadline)
        pumpMessages (10);
    return done();
}

/** Half a second of an example clip as a 16-bit WAV (an audio file to open or to teach). */
juce::File writeWav (const juce::File& file, const char* clip)
{
    auto samples = exampleClip (clip, 44100.0);
    samples.resize (22050);
    return writeMonoWav (file, samples);
}

/** The chooser open now, as the test expects it: JUCE's dialog, on screen. */
gui::PurposeChooser& openChooser()
{
    auto* chooser = gui::PurposeChooser::showing();
    REQUIRE (chooser != nullptr);
    REQUIRE (chooser->browser() != nullptr);
    REQUIRE (chooser->window() != nullptr);
    CHECK (chooser->window()->isShowing());
    return *chooser;
}

/** Picks `name` in `folder` in the open chooser, as a user would (the folder opened, the name
    typed or the file selected), and presses Open or Save; waits for the dialog to close. */
void pick (const juce::File& folder, const juce::String& name)
{
    auto& chooser = openChooser();
    auto& browser = *chooser.browser();
    browser.setRoot (folder);
    // The folder is listed on a thread of JUCE's, and the list forgets a file to select when the
    // folder's first listing arrives: the name is given again until the file is selected.
    REQUIRE (waitFor ([&browser, &folder, &name] {
        if (browser.getNumSelectedFiles() == 1 && browser.getSelectedFile (0) == folder.getChildFile (name))
            return true;
        browser.setFileName (name);
        return false;
    }));
    REQUIRE (waitFor ([&chooser] {
        chooser.pressAccept();
        pumpMessages (20);
        return gui::PurposeChooser::showing() == nullptr;
    }));
}

bool listed (const std::vector<gui::ChooserPlace>& places, const juce::File& folder, bool recent)
{
    return std::any_of (places.begin(), places.end(), [&] (const gui::ChooserPlace& p) { return p.folder == folder && p.recent == recent; });
}
} // namespace

TEST_CASE ("the places: a folder per purpose in a settings file of its own, defaults that exist, home, Music and Desktop", "[choosers]")
{
    TestHome test ({ "Music", "Desktop" });
    const auto& home = test.home;
    CHECK (gui::places::settingsFile() == test.root.getChildFile ("settings/Sonotype Places.settings"));

    // Nothing remembered: audio and examples start in Music; models and exports in the home folder,
    // as there is no Documents folder; once there is one, there.
    using gui::ChooserPurpose;
    CHECK (gui::places::startFolder (ChooserPurpose::audio) == home.getChildFile ("Music"));
    CHECK (gui::places::startFolder (ChooserPurpose::examples) == home.getChildFile ("Music"));
    CHECK (gui::places::startFolder (ChooserPurpose::exports) == home);
    CHECK (gui::places::startFolder (ChooserPurpose::models) == home);
    REQUIRE (home.getChildFile ("Documents").createDirectory().wasOk());
    CHECK (gui::places::startFolder (ChooserPurpose::exports) == home.getChildFile ("Documents"));
    const auto loops = home.getChildFile ("Music/loops");
    REQUIRE (loops.createDirectory().wasOk());
    CHECK (gui::places::startFolder (ChooserPurpose::exports, loops) == loops); // a file's export: its folder, before any
    REQUIRE (home.getChildFile ("Music").deleteRecursively());
    CHECK (gui::places::startFolder (ChooserPurpose::audio) == home);
    REQUIRE (home.getChildFile ("Music").createDirectory().wasOk());

    auto places = gui::places::all();
    REQUIRE (places.size() == 4);
    CHECK ((places[0].name == "Home" && places[0].folder == home));
    CHECK ((places[1].name == "Music" && places[1].folder == home.getChildFile ("Music")));
    CHECK ((places[2].name == "Desktop" && places[2].folder == home.getChildFile ("Desktop")));
    CHECK ((places[3].name == "Documents" && places[3].folder == home.getChildFile ("Documents")));

    // Remembered per purpose, in the file: another purpose keeps its own.
    const auto kicks = home.getChildFile ("Music/samples/kicks"), exports = home.getChildFile ("Desktop/for the DAW");
    REQUIRE (kicks.createDirectory().wasOk());
    REQUIRE (exports.createDirectory().wasOk());
    gui::places::remember (ChooserPurpose::examples, kicks);
    CHECK (gui::places::rememberedFolder (ChooserPurpose::examples) == kicks);
    CHECK (gui::places::startFolder (ChooserPurpose::examples) == kicks);
    CHECK (gui::places::rememberedFolder (ChooserPurpose::audio) == juce::File());
    CHECK (gui::places::startFolder (ChooserPurpose::audio) == home.getChildFile ("Music"));
    gui::places::remember (ChooserPurpose::exports, exports);
    CHECK (gui::places::startFolder (ChooserPurpose::exports, loops) == exports);
    CHECK (gui::places::settingsFile().existsAsFile());
    CHECK (gui::places::settingsFile().loadFileAsString().contains (kicks.getFullPathName()));

    // The recent folders, the latest first, after the user's own folders.
    CHECK (gui::places::recentFolders() == juce::Array<juce::File> { exports, kicks });
    places = gui::places::all();
    REQUIRE (places.size() == 6);
    CHECK ((places[4].name == "for the DAW" && places[4].recent));
    CHECK ((places[5].name == "kicks" && places[5].recent));
    gui::places::remember (ChooserPurpose::audio, home.getChildFile ("Music"));
    CHECK (gui::places::recentFolders().getFirst() == home.getChildFile ("Music"));
    CHECK_FALSE (listed (gui::places::all(), home.getChildFile ("Music"), true)); // already a place of its own

    // A remembered folder that is gone is not offered: the default is.
    REQUIRE (kicks.deleteRecursively());
    CHECK (gui::places::rememberedFolder (ChooserPurpose::examples) == juce::File());
    CHECK (gui::places::startFolder (ChooserPurpose::examples) == home.getChildFile ("Music"));
    CHECK_FALSE (gui::places::recentFolders().contains (kicks));
}

TEST_CASE ("each chooser starts in the folder last used for its purpose, in a new editor too, and offers the places", "[gui][choosers]")
{
    TestHome test ({ "Music", "Desktop" });
    const auto& home = test.home;
    const auto drums = home.getChildFile ("Music/Drum loops");
    for (const auto* name : { "break 92.wav", "break 120.wav", "fill.wav" })
        writeWav (drums.getChildFile (name), "drums");
    const auto kit = home.getChildFile ("Desktop/my kit");
    writeWav (kit.getChildFile ("kick.wav"), "drums");

    {
        TestProcessor processor;
        processor.setAudioDeviceAvailable (false);
        gui::SonotypeEditor editor (processor, true);
        REQUIRE (editor.transport() != nullptr);
        editor.transport()->chooseFiles();
        CHECK (openChooser().browser()->getRoot() == home.getChildFile ("Music")); // nothing remembered: Music
        pick (drums, "break 92.wav");
        CHECK (processor.fileTimelines().files().contains (drums.getChildFile ("break 92.wav")));
        CHECK (gui::places::rememberedFolder (gui::ChooserPurpose::audio) == drums);
    }

    // A new processor and editor, as after a restart: the Open chooser starts where the last one ended.
    TestProcessor processor;
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor editor (processor, true);
    editor.transport()->chooseFiles();
    auto& chooser = openChooser();
    CHECK (chooser.browser()->getRoot() == drums);
    const auto places = chooser.listedPlaces();
    CHECK (listed (places, home, false));
    CHECK (listed (places, home.getChildFile ("Music"), false));
    CHECK (listed (places, home.getChildFile ("Desktop"), false));
    CHECK (listed (places, drums, true));
    auto& window = *chooser.window();
    window.setSize (780, 520);
    auto* list = dynamic_cast<juce::ListBox*> (chooser.browser()->getDisplayComponent());
    REQUIRE (list != nullptr);
    REQUIRE (waitFor ([list] { return list->getModel()->getNumRows() == 3; })); // the folder's three files, listed
    pumpMessages (100);
    saveScreenshot (window, "chooser-last-folder.png");

    // Cancelled with a file selected, it opens nothing.
    REQUIRE (waitFor ([&chooser] {
        chooser.browser()->setFileName ("fill.wav");
        pumpMessages (20);
        return chooser.browser()->getSelectedFile (0).getFileName() == "fill.wav";
    }));
    window.setVisible (false); // what its Cancel button does
    REQUIRE (waitFor ([] { return gui::PurposeChooser::showing() == nullptr; }));
    CHECK (processor.fileTimelines().files().isEmpty());

    // Other purposes do not start there: examples start in their own default (Music), then in the
    // folder examples were last added from.
    REQUIRE (processor.teaching().addClass ("kick").isEmpty());
    editor.teachPanel().refresh();
    editor.teachPanel().chooseFiles (0);
    CHECK (openChooser().browser()->getRoot() == home.getChildFile ("Music"));
    pick (kit, "kick.wav");
    REQUIRE (processor.teaching().waitUntilIdle (10000));
    CHECK (processor.teaching().view().classes[0].examples.size() == 1);
    editor.teachPanel().chooseFiles (0);
    CHECK (openChooser().browser()->getRoot() == kit);
    editor.chooseModelFile();
    CHECK (openChooser().browser()->getRoot() == home); // models: no Documents folder here, so home
    editor.transport()->chooseFiles();
    CHECK (openChooser().browser()->getRoot() == drums); // audio kept its own
}

TEST_CASE ("exports start in the file's folder, then the last export's; they make missing folders and say why they cannot write", "[gui][choosers][export]")
{
    TestHome test ({ "Music" });
    const auto& home = test.home;
    const auto loops = home.getChildFile ("Music/loops");
    const auto beat = writeWav (loops.getChildFile ("beat.wav"), "drums");
    TestProcessor processor;
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor editor (processor, true);

    // The taught model's default: Documents when it exists, else the home folder (never a folder
    // that is not there).
    editor.teachPanel().chooseExport();
    CHECK (openChooser().startingFile() == home.getChildFile ("taught.safetensors"));
    REQUIRE (home.getChildFile ("Documents").createDirectory().wasOk());
    editor.teachPanel().chooseExport();
    CHECK (openChooser().startingFile() == home.getChildFile ("Documents/taught.safetensors"));

    editor.openAudioFiles ({ beat });
    REQUIRE (waitFor ([&processor] { return processor.fileTimelines().status (0).state == plugin::FileState::done; }, 120000));
    editor.refresh();
    editor.chooseExportFile (timeline::ExportFormat::csv);
    CHECK (openChooser().startingFile() == loops.getChildFile ("beat.segments.csv")); // no export yet: beside the file
    pick (loops, "for the DAW/session 1/beat.segments.csv");                          // folders typed that do not exist
    const auto exported = loops.getChildFile ("for the DAW/session 1/beat.segments.csv");
    CHECK (exported.existsAsFile());
    CHECK (exported.loadFileAsString().startsWith ("file,start_s,end_s,label,confidence,error\n"));
    CHECK (processor.statusMessage().startsWith ("Exported"));
    CHECK_FALSE (processor.statusIsError());

    // The next exports start in that folder: the timeline's, and the taught model's.
    editor.chooseExportFile (timeline::ExportFormat::midi);
    CHECK (openChooser().startingFile() == exported.getParentDirectory().getChildFile ("beat.mid"));
    editor.teachPanel().chooseExport();
    CHECK (openChooser().startingFile() == exported.getParentDirectory().getChildFile ("taught.safetensors"));

    // Refused: a file stands where the folder should be. The message strip says so.
    const auto notes = loops.getChildFile ("notes.txt");
    REQUIRE (notes.replaceWithText ("not a folder"));
    editor.chooseExportFile (timeline::ExportFormat::audacity);
    pick (loops, "notes.txt/beat.labels.txt");
    CHECK (processor.statusMessage()
           == "Could not write " + notes.getChildFile ("beat.labels.txt").getFullPathName() + ": " + notes.getFullPathName() + " is a file, not a folder");
    CHECK (processor.statusIsError());
    editor.refresh();
    const auto& shown = editor.messageStrip().messages();
    CHECK (std::any_of (shown.begin(), shown.end(), [&] (const plugin::StatusMessage& m) { return m.text == processor.statusMessage(); }));
#if defined(__linux__)
    // Refused by the system in a folder that exists (/sys refuses new files to root too): the
    // system's reason, and the next export does not start there.
    if (juce::File ("/sys").isDirectory())
    {
        editor.chooseExportFile (timeline::ExportFormat::audacity);
        pick (juce::File ("/sys"), "beat.labels.txt");
        CHECK (processor.statusMessage().startsWith ("Could not write /sys/beat.labels.txt: "));
        CHECK (processor.statusMessage().length() > juce::String ("Could not write /sys/beat.labels.txt: ").length());
        CHECK (gui::places::rememberedFolder (gui::ChooserPurpose::exports) == exported.getParentDirectory());
    }
#endif
}
