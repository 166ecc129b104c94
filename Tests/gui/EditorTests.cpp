// The editor under a real (virtual) display: it shows what the processor publishes, renders at any
// size, loads models by drag-and-drop, reports bad files inline, and can be closed and reopened
// while audio runs. Writes the screenshot used in README (build/screenshots/editor.png).
#include "plugin/PluginParameters.h"
#include "plugin/ProcessorDriver.h"
#include "support/EncodedAudio.h"
#include "support/ExampleClips.h"
#include "support/Fixtures.h"
#include "support/MessageLoop.h"
#include "support/Screenshots.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
juce::String topLabel (const gui::DisplayState& state)
{
    return state.topClass >= 0 ? state.labels[static_cast<std::size_t> (state.topClass)] : juce::String();
}

/** The messages the editor's strip shows, one a line. */
juce::String shownMessages (const gui::SonotypeEditor& view)
{
    juce::StringArray lines;
    for (const auto& message : view.messageStrip().messages())
        lines.add (message.text);
    return lines.joinIntoString ("\n");
}
} // namespace

TEST_CASE ("the editor shows the processor's live prediction and saves a screenshot", "[gui]")
{
    TestProcessor processor;
    ProcessorDriver driver (processor, 48000.0, 2, 512);
    std::unique_ptr<juce::AudioProcessorEditor> editor (processor.createEditorIfNeeded());
    auto& view = dynamic_cast<gui::SonotypeEditor&> (*editor);
    view.addToDesktop (0);
    view.setVisible (true);

    for (const auto* clip : { "speech", "piano", "guitar", "noise", "drums" })
    {
        driver.play (exampleSequence ({ clip }, 48000.0, 2));
        pumpMessages (50); // the editor's timer runs
    }
    view.refresh();
    const auto snapshot = processor.snapshot();
    REQUIRE (snapshot.hasResult);
    CHECK (snapshot.info->labels[static_cast<std::size_t> (snapshot.topClass)] == "drums");
    CHECK (topLabel (view.displayState()) == "drums");
    CHECK (view.displayState().probabilities == snapshot.result.probabilities);
    CHECK (view.history().numColumns() >= 30); // 20 s of windows every 0.25 s
    CHECK (view.messageStrip().messages().empty());

    const auto image = view.createComponentSnapshot (view.getLocalBounds());
    CHECK (image.getWidth() == gui::SonotypeEditor::kBaseWidth);
    CHECK (saveScreenshot (image, "editor.png").getSize() > 10000);
}

TEST_CASE ("the editor keeps its proportions from 600x400 up to 4K and renders at any size", "[gui]")
{
    TestProcessor processor;
    std::unique_ptr<juce::AudioProcessorEditor> editor (processor.createEditor());
    auto* constrainer = editor->getConstrainer();
    REQUIRE (constrainer != nullptr);
    CHECK (constrainer->getMinimumWidth() == 600);
    CHECK (constrainer->getMinimumHeight() == 400);
    CHECK (constrainer->getMaximumWidth() == 3840);
    CHECK (constrainer->getFixedAspectRatio() == Approx (1.5));
    CHECK (editor->isResizable());
    for (const auto size : { juce::Point<int> (600, 400), juce::Point<int> (1800, 1200), juce::Point<int> (3840, 2560) })
    {
        editor->setSize (size.x, size.y);
        const auto image = editor->createComponentSnapshot (editor->getLocalBounds());
        CHECK (image.getWidth() == size.x);
    }
}

TEST_CASE ("dropping a model file loads it, a bad one shows an inline error and keeps the model", "[gui]")
{
    TestProcessor processor;
    std::unique_ptr<juce::AudioProcessorEditor> editor (processor.createEditor());
    auto& view = dynamic_cast<gui::SonotypeEditor&> (*editor);
    const auto tiny = juce::String (fixturePath ("tiny_classifier.safetensors"));
    CHECK (view.isInterestedInFileDrag ({ tiny }));
    CHECK (view.isInterestedInFileDrag ({ "/tmp/song.wav", "/tmp/take 2.mp3" })); // audio files: analyzed, in a DAW too
    CHECK_FALSE (view.isInterestedInFileDrag ({ "/tmp/notes.txt" }));
    CHECK_FALSE (view.isInterestedInFileDrag ({ tiny, tiny }));
    view.filesDropped ({ tiny }, 10, 10);
    REQUIRE (waitForModelLoad (processor)); // it loads on a background thread
    view.refresh();
    CHECK (processor.modelDescription().name == "tiny_classifier.safetensors");
    CHECK (view.displayState().labels.size() == 4);

    const auto bad = juce::File::createTempFile ("safetensors");
    bad.replaceWithData ("\x10\x00\x00\x00\x00\x00\x00\x00{\"a\": 1}", 16);
    view.filesDropped ({ bad.getFullPathName() }, 10, 10);
    REQUIRE (waitForModelLoad (processor));
    view.refresh();
    CHECK (shownMessages (view).contains (bad.getFileName()));
    CHECK (processor.modelDescription().name == "tiny_classifier.safetensors");
    bad.deleteFile();
}

TEST_CASE ("a model file that takes long to read: the editor shows it loading, stays responsive, then shows the error", "[gui]")
{
    SlowModelFile slow; // outlives the processor that reads it
    REQUIRE (slow.created());
    TestProcessor processor;
    std::unique_ptr<juce::AudioProcessorEditor> editor (processor.createEditor());
    auto& view = dynamic_cast<gui::SonotypeEditor&> (*editor);
    view.filesDropped ({ slow.file().getFullPathName() }, 10, 10); // returns at once: the message thread is free
    CHECK_FALSE (slow.isReleased());
    CHECK (shownMessages (view).contains ("Loading"));
    CHECK (shownMessages (view).contains (slow.file().getFileName()));
    pumpMessages (50); // the editor's timer keeps running while the file loads
    CHECK (processor.isLoadingModel());
    slow.release();
    REQUIRE (waitForModelLoad (processor));
    pumpMessages (50);
    CHECK (shownMessages (view).contains (slow.file().getFullPathName()));
    CHECK (shownMessages (view).contains ("keeps running"));
    CHECK_FALSE (shownMessages (view).contains ("Loading")); // the load's outcome replaced its notice
    CHECK (processor.modelDescription().builtin);
}

TEST_CASE ("closing and reopening the editor while audio runs is safe", "[gui]")
{
    TestProcessor processor;
    processor.setPlayConfigDetails (2, 2, 48000.0, 256);
    processor.prepareToPlay (48000.0, 256);
    std::atomic<bool> done { false };
    std::atomic<int64_t> blocks { 0 };
    std::thread audio ([&] {
        const auto signal = exampleSequence ({ "speech", "drums" }, 48000.0, 1);
        juce::AudioBuffer<float> buffer (2, 256);
        juce::MidiBuffer midi;
        std::size_t position = 0;
        while (! done)
        {
            for (int c = 0; c < 2; ++c)
                for (int i = 0; i < 256; ++i)
                    buffer.setSample (c, i, signal[(position + static_cast<std::size_t> (i)) % signal.size()]);
            position += 256;
            midi.clear();
            processor.processBlock (buffer, midi);
            ++blocks;
            std::this_thread::sleep_for (std::chrono::microseconds (500)); // ~10x real time
        }
    });
    for (int i = 0; i < 20; ++i)
    {
        std::unique_ptr<juce::AudioProcessorEditor> editor (processor.createEditorIfNeeded());
        editor->addToDesktop (0);
        editor->setVisible (true);
        pumpMessages (40);
        dynamic_cast<gui::SonotypeEditor&> (*editor).refresh();
    }
    // The analysis ran meanwhile: wait for the windows themselves (a loaded machine is slower), not a time.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds (30);
    while (processor.analysis().stats().windowsRun <= 4 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for (std::chrono::milliseconds (1));
    done = true;
    audio.join();
    processor.releaseResources();
    CHECK (blocks > 100);
    CHECK (processor.analysis().stats().windowsRun > 4);
    CHECK (processor.analysis().stats().error.empty());
}

TEST_CASE ("legibility: five classes at 100%, an uncertain top class, a long model error (screenshots)", "[gui]")
{
    TestProcessor processor;
    std::unique_ptr<juce::AudioProcessorEditor> editor (processor.createEditor());
    auto& view = dynamic_cast<gui::SonotypeEditor&> (*editor);

    gui::DisplayState state;
    state.labels = { "speech", "drums", "piano", "guitar", "noise" };
    state.enabled = { true, true, true, true, true };
    state.probabilities = { 0.0f, 1.0f, 0.0f, 0.0f, 0.0f };
    state.topClass = 1;
    state.threshold = 0.5f;
    gui::ClassBars bars;
    bars.setSize (300, 330); // as in the editor at its base size
    bars.update (state);
    CHECK (bars.valueText (1) == "100%");
    CHECK (bars.valuesFit()); // "100%" in full, not "10..."
    saveScreenshot (bars.createComponentSnapshot (bars.getLocalBounds()), "bars-five-classes.png");

    state.probabilities = { 0.2f, 0.35f, 0.15f, 0.2f, 0.1f };
    gui::TopClassView top;
    top.setSize (480, 150);
    top.update (state);
    bars.update (state);
    CHECK (top.isUncertain()); // 35% is below the 50% threshold
    CHECK (top.displayedLabel() == "DRUMS?");
    CHECK (bars.valueText (1) == "35%?");
    CHECK (bars.valueText (0) == "20%");
    saveScreenshot (top.createComponentSnapshot (top.getLocalBounds()), "top-class-uncertain.png");
    saveScreenshot (bars.createComponentSnapshot (bars.getLocalBounds()), "bars-uncertain.png");

    const auto bad = juce::File::getSpecialLocation (juce::File::tempDirectory)
                         .getChildFile ("a-model-exported-last-week-with-a-long-descriptive-name-for-the-drum-kit-experiments.safetensors");
    bad.replaceWithData ("\x10\x00\x00\x00\x00\x00\x00\x00{\"a\": 1}", 16);
    const auto historyBounds = view.history().getBounds();
    view.filesDropped ({ bad.getFullPathName() }, 10, 10);
    REQUIRE (waitForModelLoad (processor));
    view.refresh();
    // One line of its own, ended in "..." where it is too long, the whole message in its tooltip;
    // the layout stays where it was (the strip's first line is kept when empty).
    const auto& strip = view.messageStrip();
    REQUIRE (strip.messages().size() == 1);
    CHECK (strip.rows() == 1);
    auto* row = dynamic_cast<juce::SettableTooltipClient*> (strip.row (0));
    REQUIRE (row != nullptr);
    CHECK (row->getTooltip() == strip.messages()[0].text);
    CHECK (row->getTooltip().contains (bad.getFileName()));
    CHECK (view.history().getBounds() == historyBounds);
    CHECK_FALSE (strip.getBounds().intersects (view.history().getBounds()));
    saveScreenshot (view.createComponentSnapshot (view.getLocalBounds()), "editor-error.png");
    bad.deleteFile();
}

TEST_CASE ("the editor shows the per-hit controls, the latency and how late the last note came (screenshot)", "[gui][hits]")
{
    TestProcessor processor;
    auto* hitMode = processor.parameters.getParameter (plugin::ParameterIds::hitMode);
    hitMode->setValueNotifyingHost (1.0f);
    std::unique_ptr<juce::AudioProcessorEditor> editor (processor.createEditorIfNeeded());
    auto& view = dynamic_cast<gui::SonotypeEditor&> (*editor);
    view.addToDesktop (0);
    view.setVisible (true);
    {
        ProcessorDriver driver (processor, 44100.0, 2, 512);
        formats::AudioFileReader reader (fixturePath ("kit/pattern.wav"));
        auto signal = readAll (reader);
        signal.resize (std::min<std::size_t> (signal.size(), 12 * 44100)); // (the pattern's last hit, not the silence after it)
        driver.play (signal);
        pumpMessages (50);
        view.refresh();
        const auto status = processor.snapshot().hits;
        CHECK (status.on);
        CHECK (status.notes >= 30);
        CHECK (status.lastDelaySeconds >= status.latencySeconds);
        const auto image = view.createComponentSnapshot (view.getLocalBounds());
        CHECK (saveScreenshot (image, "editor-hits.png").getSize() > 10000);
    }
}
