// The editor's message strip with real files: a corrupt WAV's error is taken down by the next good
// file's analysis while the no-device notice stays; the notice is a line of the layout, never over
// the top class or the bars. Writes build/screenshots/error-cleared-by-next-file.png and
// no-device-line.png.
#include "gui/ClassBars.h"
#include "gui/TopClassView.h"
#include "plugin/ProcessorDriver.h"
#include "support/AppFiles.h"
#include "support/ExampleClips.h"
#include "support/MessageLoop.h"
#include "support/Screenshots.h"

#include <catch2/catch.hpp>

#include <unistd.h>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
const juce::String kNoDevice = "No audio device: files are analyzed, not played. To play them or hear the input, choose a device in "
                               "Options > Audio/MIDI Settings.";

/** The app as the standalone starts it with no device: its notice said (as StandaloneApp says it). */
void sayNoDevice (plugin::SonotypeProcessor& processor)
{
    processor.setAudioDeviceAvailable (false);
    processor.setStatus (plugin::StatusCause::device, kNoDevice, plugin::StatusKind::notice);
}

juce::File scratch (const juce::String& name)
{
    const auto folder = juce::File::getSpecialLocation (juce::File::tempDirectory).getChildFile ("sonotype-strip-test-" + juce::String (::getpid()));
    folder.createDirectory();
    return folder.getChildFile (name);
}

juce::File writeWav (const juce::String& name, const std::vector<std::string>& clips)
{
    return writeMonoWav (scratch (name), exampleSequence (clips, 44100.0, 1));
}

juce::StringArray shownMessages (const gui::SonotypeEditor& view)
{
    juce::StringArray lines;
    for (const auto& message : view.messageStrip().messages())
        lines.add (message.text);
    return lines;
}

template <typename View>
juce::Rectangle<int> boundsOf (gui::SonotypeEditor& editor)
{
    for (auto* child : editor.getChildren())
        if (dynamic_cast<View*> (child) != nullptr)
            return child->getBounds();
    FAIL ("no such view in the editor");
    return {};
}
} // namespace

TEST_CASE ("a corrupt file's error is taken down by the next good file's analysis, the no-device notice stays (screenshot)", "[gui][status]")
{
    TestProcessor processor;
    sayNoDevice (processor);
    gui::SonotypeEditor view (processor, true);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    view.refresh();
    CHECK (shownMessages (view) == juce::StringArray { kNoDevice });

    const auto corrupt = scratch ("bad.wav");
    corrupt.replaceWithText ("RIFF, but not a WAV file at all");
    view.openAudioFiles ({ corrupt });
    REQUIRE (waitForFiles (processor, 300));
    view.refresh();
    const auto error = "Cannot analyze bad.wav: " + processor.fileTimelines().status (0).error;
    CHECK (shownMessages (view) == juce::StringArray { error, kNoDevice }); // both, the error first
    CHECK (view.messageStrip().rows() == 2);
    for (int frame = 0; frame < 5; ++frame) // it stays while nothing else happens
        view.refresh();
    CHECK (shownMessages (view).contains (error));

    const auto good = writeWav ("speech then drums.wav", { "speech", "drums" });
    view.openAudioFiles ({ good });
    REQUIRE (waitForFiles (processor, 300));
    view.refresh();
    CHECK (processor.fileTimelines().status (0).state == plugin::FileState::done);
    CHECK (shownMessages (view) == juce::StringArray { kNoDevice }); // the next file analysed took the error down
    CHECK (view.messageStrip().rows() == 1);
    saveScreenshot (view, "error-cleared-by-next-file.png");

    // Files opened together keep a failure's message: the user has not moved on from them.
    view.openAudioFiles ({ corrupt, good });
    REQUIRE (waitForFiles (processor, 300));
    view.refresh();
    CHECK (shownMessages (view) == juce::StringArray { error, kNoDevice });
    corrupt.deleteFile();
    good.deleteFile();
}

TEST_CASE ("the no-device notice is a line of the layout, over neither the top class nor the bars (screenshot)", "[gui][status]")
{
    TestProcessor processor;
    ProcessorDriver driver (processor, 48000.0, 2, 512);
    sayNoDevice (processor);
    processor.setStatus (plugin::StatusCause::commandLine, "Cannot open take 3.wav: no such file", plugin::StatusKind::error);
    gui::SonotypeEditor view (processor, true);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    driver.play (exampleSequence ({ "drums" }, 48000.0, 2));
    view.refresh();
    // A command-line error and the notice, each a line: the error did not replace the notice.
    CHECK (shownMessages (view) == juce::StringArray { "Cannot open take 3.wav: no such file", kNoDevice });
    const auto strip = view.messageStrip().getBounds();
    const auto top = boundsOf<gui::TopClassView> (view), bars = boundsOf<gui::ClassBars> (view);
    CHECK (strip.getHeight() >= 2 * 20);
    CHECK_FALSE (strip.intersects (top));
    CHECK_FALSE (strip.intersects (bars));
    CHECK_FALSE (strip.intersects (view.history().getBounds()));
    CHECK (strip.getBottom() <= top.getY());
    saveScreenshot (view, "no-device-line.png");

    // The user dismisses the error (its x): the notice stays, and the strip is one line again.
    view.refresh();
    auto* errorRow = view.messageStrip().row (0);
    REQUIRE (errorRow != nullptr);
    auto* dismiss = dynamic_cast<juce::Button*> (errorRow->getChildComponent (0));
    REQUIRE (dismiss != nullptr);
    CHECK (dismiss->isVisible());
    dismiss->triggerClick();
    pumpMessages (100);
    view.refresh();
    CHECK (shownMessages (view) == juce::StringArray { kNoDevice });
    CHECK (view.messageStrip().rows() == 1);
    CHECK (view.messageStrip().getBottom() <= boundsOf<gui::TopClassView> (view).getY());

    // A device that opens takes the notice down (as the standalone app does on its device change).
    processor.setAudioDeviceAvailable (true);
    processor.clearStatus (plugin::StatusCause::device);
    view.refresh();
    CHECK (view.messageStrip().messages().empty());
    CHECK (view.messageStrip().rows() == 1); // its line is kept: the views do not jump at the next message
}
