// The Teach view as a user drives it: three classes named in the field, each recorded from the
// input for a second, one more example taught from a segment of an analysed file (the timeline's
// right-click menu), the classes answering live in the bars, the taught model exported and run by
// the built CLI. With no audio device, Record is off and says why, files still teach, and a
// recording that no audio reaches ends with a click on Stop. Writes the screenshots README shows
// (build/screenshots/teach.png, teach-no-device.png).
#include "plugin/ProcessorDriver.h"
#include "support/AppFiles.h"
#include "support/ExampleClips.h"
#include "support/Fixtures.h"
#include "support/MessageLoop.h"
#include "support/Screenshots.h"

#include <catch2/catch.hpp>

#include <unistd.h>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
std::vector<float> firstSecond (const char* clip, double rate)
{
    auto samples = exampleClip (clip, rate);
    samples.resize (static_cast<std::size_t> (rate));
    return samples;
}

/** The action of the menu item named `text` (searched in submenus too), or nothing. */
std::function<void()> menuAction (const juce::PopupMenu& menu, const juce::String& text)
{
    for (juce::PopupMenu::MenuItemIterator it (menu, true); it.next();)
        if (it.getItem().text == text && it.getItem().action)
            return it.getItem().action;
    return {};
}
} // namespace

TEST_CASE ("teach three classes in the Teach view from the input and a file's segment, see them live, export them for the CLI", "[gui][teach]")
{
    TestProcessor processor;
    gui::SonotypeEditor view (processor, false);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    constexpr double rate = 48000.0;
    ProcessorDriver driver (processor, rate, 2, 512);
    view.showTeach (true);
    auto& panel = view.teachPanel();
    CHECK (panel.isShowing() == view.isShowing());
    CHECK (panel.statusText().startsWith ("Teach it your sounds"));

    const std::pair<const char*, const char*> taught[] = { { "talk", "speech" }, { "beat", "drums" }, { "strum", "guitar" } };
    for (int c = 0; c < 3; ++c)
    {
        panel.nameField().setText (taught[c].first);
        panel.addClassFromField();
        CHECK (panel.nameField().isEmpty());
        view.refresh();
        panel.startRecording (c, 1.0);
        CHECK (panel.statusText().startsWith ("Recording " + juce::String (taught[c].first)));
        driver.play (firstSecond (taught[c].second, rate));
        view.refresh(); // the panel takes the finished recording
    }
    REQUIRE (processor.teaching().waitUntilIdle (10000));

    // A segment of an analysed file, from the Files view's right-click menu.
    const auto folder = juce::File::getSpecialLocation (juce::File::tempDirectory).getChildFile ("sonotype-teach-test-" + juce::String (::getpid()));
    folder.createDirectory();
    const auto wav = writeMonoWav (folder.getChildFile ("my kit.wav"), exampleSequence ({ "speech", "drums", "guitar" }, 44100.0, 1));
    view.openAudioFiles ({ wav });
    const auto deadline = juce::Time::getMillisecondCounter() + 60000u;
    while (processor.fileTimelines().isBusy() && juce::Time::getMillisecondCounter() < deadline)
        pumpMessages (20);
    pumpMessages (150);
    view.refresh();
    REQUIRE (processor.fileTimelines().status (0).state == plugin::FileState::done);
    const auto menu = view.teachMenu (3.0); // inside the drums, 2-4 s
    const auto teachSegment = menuAction (menu, "beat");
    REQUIRE (teachSegment != nullptr);
    teachSegment();
    REQUIRE (processor.teaching().waitUntilIdle (10000));
    const auto state = processor.teaching().view();
    REQUIRE (state.classes.size() == 3);
    REQUIRE (state.classes[1].examples.size() == 2);
    CHECK (state.classes[1].examples[1].source.startsWith ("my kit.wav "));
    CHECK (state.classes[1].recognised == 2);

    // Live: what plays is named by the taught classes.
    view.showTeach (true);
    driver.play (exampleClip ("guitar", rate));
    view.refresh();
    const auto& shown = view.displayState();
    REQUIRE (shown.topClass >= 0);
    CHECK (shown.labels[static_cast<std::size_t> (shown.topClass)] == "strum");
    CHECK (panel.statusText().startsWith ("Learned 3 classes from 4 examples"));
    CHECK (panel.statusText().contains ("leave one out: 2 of 2 recognised"));
    saveScreenshot (view, "teach.png");

    // Exported, the CLI runs it: the file's drums are "beat".
    const auto model = folder.getChildFile ("taught.safetensors");
    REQUIRE (processor.teaching().exportModel (model).isEmpty());
    juce::ChildProcess cli;
    REQUIRE (cli.start (juce::StringArray { SONOTYPE_CLI_PATH, "classify", "--model", model.getFullPathName(), "--segments", wav.getFullPathName() }));
    const auto out = cli.readAllProcessOutput();
    INFO (out);
    CHECK (cli.getExitCode() == 0);
    CHECK (out.contains (",beat,"));
    CHECK (out.contains (",strum,"));
    folder.deleteRecursively();
}

TEST_CASE ("teach drum pieces from their hits in the Teach view of a larger editor: every size follows the editor's", "[gui][teach][hits]")
{
    TestProcessor processor;
    gui::SonotypeEditor view (processor, false);
    view.setSize (gui::SonotypeEditor::kBaseWidth * 3 / 2, gui::SonotypeEditor::kBaseHeight * 3 / 2);
    view.showTeach (true);
    auto& panel = view.teachPanel();
    CHECK (panel.nameField().getHeight() == 39); // 26 px at the design size
    panel.hitsToggle().triggerClick();
    pumpMessages (50);
    CHECK (processor.teaching().view().hits);
    for (const auto* piece : { "kick", "snare", "hat" })
    {
        panel.nameField().setText (piece);
        panel.addClassFromField();
        view.refresh();
    }
    for (int c = 0; c < 3; ++c)
    {
        const auto piece = processor.teaching().view().classes[static_cast<std::size_t> (c)].name;
        REQUIRE (processor.teaching().addFiles (c, { juce::File (fixturePath ("kit/" + piece.toStdString())) }).isEmpty()); // a folder
    }
    REQUIRE (processor.teaching().waitUntilIdle (20000));
    view.refresh();
    const auto status = panel.statusText();
    INFO (status);
    CHECK (status.startsWith ("Learned 3 classes from "));
    CHECK (status.contains (" hits in 3 examples"));
    CHECK (status.contains (" hits recognised"));
    CHECK (processor.modelDescription().name == "built-in + taught");

    // Each class's note: the General MIDI drum its name says, until one is chosen in its menu.
    const auto menuText = [&panel] (int c) {
        const auto* menu = panel.noteMenu (c);
        return menu != nullptr ? menu->getText() : juce::String ("(no menu)");
    };
    CHECK (menuText (0) == "36 C1 auto");
    CHECK (menuText (1) == "38 D1 auto");
    CHECK (menuText (2) == "42 F#1 auto");
    CHECK (panel.noteMenu (3) == nullptr);
    REQUIRE (panel.noteMenu (1)->getNumItems() == 129);
    CHECK (panel.noteMenu (1)->getItemText (41) == "40 E1 Electric Snare");
    panel.noteMenu (1)->setSelectedId (40 + 2, juce::sendNotificationSync); // the snare on 40, as a click on its item
    REQUIRE (processor.teaching().waitUntilIdle (20000));
    view.refresh();
    CHECK (processor.teaching().view().classes[1].note == 40);
    CHECK (menuText (1) == "40 E1");
    CHECK (menuText (0) == "36 C1 auto");
    saveScreenshot (view, "teach-hits.png");
    panel.noteMenu (1)->setSelectedId (1, juce::sendNotificationSync); // "By name (auto)"
    REQUIRE (processor.teaching().waitUntilIdle (20000));
    view.refresh();
    CHECK (processor.teaching().view().classes[1].note == -1);
    CHECK (menuText (1) == "38 D1 auto");
}

TEST_CASE ("with no audio device Record is off and says why, files still teach, and a recording no audio reaches never sticks", "[gui][teach][record]")
{
    TestProcessor processor; // never prepared: the app with no audio device
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor view (processor, true);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    view.showTeach (true);
    auto& panel = view.teachPanel();
    for (const auto* piece : { "kick", "snare" })
    {
        panel.nameField().setText (piece);
        panel.addClassFromField();
        view.refresh();
    }
    auto* record = panel.recordButton (0);
    REQUIRE (record != nullptr);
    REQUIRE (panel.recordButton (1) != nullptr);
    CHECK (panel.recordButton (2) == nullptr);

    // Record is off, and says why, on the button and in the status line.
    CHECK_FALSE (panel.canRecord());
    CHECK_FALSE (record->isEnabled());
    CHECK_FALSE (panel.recordButton (1)->isEnabled());
    CHECK (record->getTooltip() == gui::TeachPanel::kNoInputReason);
    CHECK (panel.statusText().endsWith (juce::String ("\n") + gui::TeachPanel::kNoInputReason));
    record->triggerClick();
    pumpMessages (50);
    CHECK_FALSE (panel.isRecording());
    panel.startRecording (0, 1.0); // a caller that did not look: refused, with the reason
    CHECK_FALSE (panel.isRecording());
    CHECK_FALSE (processor.recorder().isRecording());
    CHECK (processor.statusMessage() == gui::TeachPanel::kNoInputReason);

    // Files, a dropped file and a file's region still teach.
    REQUIRE (processor.teaching().addFiles (0, { juce::File (fixturePath ("kit/kick/kick.wav")) }).isEmpty());
    const auto snare = juce::File (fixturePath ("kit/snare/snare.wav"));
    const auto onSnare = panel.getLocalPoint (panel.recordButton (1), juce::Point<int> (2, 2)); // on the last class's rows
    panel.filesDropped ({ snare.getFullPathName() }, onSnare.x, onSnare.y);
    REQUIRE (processor.teaching().addFiles (0, { juce::File (fixturePath ("kit/pattern.wav")) }, 0.0, 1.0).isEmpty()); // a region
    REQUIRE (processor.teaching().waitUntilIdle (20000));
    view.refresh();
    auto state = processor.teaching().view();
    REQUIRE (state.classes.size() == 2);
    CHECK (state.classes[0].examples.size() == 2);
    CHECK (state.classes[1].examples.size() == 1);
    CHECK (panel.statusText().startsWith ("Learned 2 classes from 3 examples"));
    CHECK (panel.statusText().endsWith (gui::TeachPanel::kNoInputReason));
    processor.clearStatus(); // (the message from the refused call above)
    view.refresh();
    saveScreenshot (view, "teach-no-device.png");

    // A device opens: Record is on again, and the reason goes.
    processor.setAudioDeviceAvailable (true);
    view.refresh();
    record = panel.recordButton (0);
    REQUIRE (record != nullptr);
    CHECK (record->isEnabled());
    CHECK (record->getButtonText() == "Record");
    CHECK_FALSE (panel.statusText().contains (gui::TeachPanel::kNoInputReason));

    // A recording that no audio reaches (the device gives none): the button becomes Stop, and a
    // click on it ends the recording with nothing taught.
    record->triggerClick();
    pumpMessages (50);
    for (int frame = 0; frame < 5; ++frame)
        view.refresh();
    CHECK (panel.isRecording());
    CHECK (record->getButtonText() == "Stop");
    CHECK (record->isEnabled());
    CHECK (panel.statusText().startsWith ("Recording kick: 0%"));
    CHECK (panel.statusText().contains ("Stop ends it"));
    processor.setAudioDeviceAvailable (false); // the device goes while recording: Stop still works
    view.refresh();
    CHECK (record->isEnabled());
    CHECK_FALSE (panel.recordButton (1)->isEnabled());
    record->triggerClick();
    pumpMessages (50);
    view.refresh();
    CHECK_FALSE (panel.isRecording());
    CHECK_FALSE (processor.recorder().isRecording());
    CHECK (record->getButtonText() == "Record");
    CHECK_FALSE (record->isEnabled());
    CHECK (processor.statusMessage().contains ("no audio arrived"));
    REQUIRE (processor.teaching().waitUntilIdle (20000));
    CHECK (processor.teaching().view().classes[0].examples.size() == 2);

    // Stopped early with some audio: what arrived is the example.
    processor.setAudioDeviceAvailable (true);
    view.refresh();
    constexpr double rate = 48000.0;
    ProcessorDriver driver (processor, rate, 2, 512);
    panel.startRecording (1, 3.0);
    REQUIRE (panel.isRecording());
    driver.play (firstSecond ("drums", rate));
    view.refresh();
    CHECK (panel.isRecording()); // 1 s of 3
    CHECK (panel.recordButton (1)->getButtonText() == "Stop");
    panel.recordButton (1)->triggerClick();
    pumpMessages (50);
    CHECK_FALSE (panel.isRecording());
    REQUIRE (processor.teaching().waitUntilIdle (20000));
    state = processor.teaching().view();
    REQUIRE (state.classes[1].examples.size() == 2);
    CHECK (state.classes[1].examples[1].source == "input 1");
    CHECK (state.classes[1].examples[1].seconds == Approx (1.0).margin (0.05));
}

TEST_CASE ("one class taught from one example: the Teach view says 1 class, and that all else is unknown", "[gui][teach]")
{
    TestProcessor processor;
    gui::SonotypeEditor view (processor, true);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    view.showTeach (true);
    auto& panel = view.teachPanel();
    REQUIRE (processor.teaching().addClass ("kick").isEmpty());
    REQUIRE (processor.teaching().addFiles (0, { juce::File (fixturePath ("kit/kick/kick.wav")) }).isEmpty());
    REQUIRE (processor.teaching().waitUntilIdle (20000));
    view.refresh();
    INFO (panel.statusText());
    CHECK (panel.statusText().startsWith ("Learned 1 class from 1 example"));
    CHECK (panel.statusText().contains ("one class: all else is unknown"));
    // A second class: a choice between them, and the plural.
    REQUIRE (processor.teaching().addClass ("snare").isEmpty());
    REQUIRE (processor.teaching().addFiles (1, { juce::File (fixturePath ("kit/snare/snare.wav")) }).isEmpty());
    REQUIRE (processor.teaching().waitUntilIdle (20000));
    view.refresh();
    CHECK (panel.statusText().startsWith ("Learned 2 classes from 2 examples"));
    CHECK_FALSE (panel.statusText().contains ("one class"));
}
