// Files in the app with no audio device: the editor analyses a WAV and an MP3 in the background,
// shows their timelines, and exports them; the exports are what `sonotype classify --segments`
// writes for the same files, byte for byte (the built CLI is run). With per-hit MIDI on and a kit
// taught, a drum loop's hits, and their exports byte for byte what `classify --onsets` writes. A
// corrupt file is an error in the message strip and on the timeline. The live session exports too. The
// Files view reads: the top panel and bars show the file at the playhead or the pointer, a read-out
// beside the pointer; the timeline zooms about the pointer, scrolls and fits; its ruler never
// overlaps; Add files keeps the files analysed. Writes the screenshots README shows
// (build/screenshots/file-analysis.png, file-hits.png, file-error.png, files-zoomed-readout.png).
#include "formats/AudioFormats.h"
#include "plugin/PluginParameters.h"
#include "plugin/ProcessorDriver.h"
#include "support/AppFiles.h"
#include "support/ExampleClips.h"
#include "support/Fixtures.h"
#include "support/KitPattern.h"
#include "support/MessageLoop.h"
#include "support/Screenshots.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <unistd.h>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** `name` in this test process's own folder under /tmp (names as a user's: the screenshots show them). */
juce::File scratch (const juce::String& name)
{
    const auto folder = juce::File::getSpecialLocation (juce::File::tempDirectory).getChildFile ("sonotype-timeline-test-" + juce::String (::getpid()));
    folder.createDirectory();
    return folder.getChildFile (name);
}

/** Example clips end to end, as a 16-bit 44.1 kHz WAV: speech, drums, piano, guitar. */
juce::File writeExampleWav (const juce::String& name)
{
    return writeMonoWav (scratch (name), exampleSequence ({ "speech", "drums", "piano", "guitar" }, 44100.0, 1));
}

/** Runs the built `sonotype` with these arguments; its stdout (the test fails if it fails). */
juce::MemoryBlock runCli (const juce::StringArray& arguments)
{
    juce::StringArray command { SONOTYPE_CLI_PATH };
    command.addArray (arguments);
    juce::ChildProcess process;
    REQUIRE (process.start (command, juce::ChildProcess::wantStdOut));
    juce::MemoryBlock out;
    juce::MemoryOutputStream stream (out, false);
    char buffer[4096];
    while (const int n = process.readProcessOutput (buffer, sizeof buffer))
        stream.write (buffer, static_cast<std::size_t> (n));
    process.waitForProcessToFinish (60000);
    INFO (command.joinIntoString (" "));
    REQUIRE (process.getExitCode() == 0);
    stream.flush();
    return out;
}

} // namespace

TEST_CASE ("with no audio device the app analyzes a WAV and an MP3: timeline and exports equal classify --segments", "[gui][timeline]")
{
    const auto wav = writeExampleWav ("four clips.wav");
    const auto mp3 = scratch ("four clips.mp3");
    const auto encode = "lame --quiet -b 192 '" + wav.getFullPathName() + "' '" + mp3.getFullPathName() + "'";
    REQUIRE (std::system (encode.toRawUTF8()) == 0);

    TestProcessor processor; // never prepared, never given audio: no device
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor view (processor, true);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    view.openAudioFiles ({ wav, mp3 });
    CHECK (view.isShowingFiles());
    REQUIRE (waitForFiles (processor));
    REQUIRE (processor.fileTimelines().numFiles() == 2);

    // The app's file timelines and the CLI share one set of defaults: no options give the same timeline.
    const juce::StringArray settings;
    for (std::size_t i = 0; i < 2; ++i)
    {
        const auto& file = i == 0 ? wav : mp3;
        INFO (file.getFileName());
        view.selectFile (i);
        view.refresh();
        const auto& status = view.timeline().status();
        REQUIRE (status.state == plugin::FileState::done);
        CHECK (status.file == file);
        CHECK (status.durationSeconds == Approx (view.timeline().spanSeconds()).margin (0.01));
        CHECK (view.timeline().numWindows() == status.numWindows);
        CHECK (status.numWindows > 20);      // 4 clips, about 8 s
        CHECK (status.segments.size() >= 3); // speech, drums, piano, guitar: a timeline, not one row

        // The exports, written as the app's Export menu writes them, against the CLI's.
        const auto csv = scratch ("export.segments.csv"), labels = scratch ("export.labels.txt"), midi = scratch ("export.mid");
        CHECK (view.exportTimeline (timeline::ExportFormat::csv, csv).isEmpty());
        CHECK (view.exportTimeline (timeline::ExportFormat::audacity, labels).isEmpty());
        CHECK (view.exportTimeline (timeline::ExportFormat::midi, midi).isEmpty());
        auto arguments = settings;
        arguments.insert (0, "classify");
        arguments.add ("--segments");
        arguments.add (file.getFullPathName());
        const auto cliCsv = runCli (arguments);
        CHECK (csv.loadFileAsString() == cliCsv.toString());
        CHECK (cliCsv.toString().startsWith ("file,start_s,end_s,label,confidence,error\n"));
        arguments.insert (arguments.size() - 1, "--format");
        arguments.insert (arguments.size() - 1, "audacity");
        CHECK (labels.loadFileAsString() == runCli (arguments).toString());
        arguments.set (arguments.size() - 2, "midi");
        juce::MemoryBlock appMidi;
        REQUIRE (midi.loadFileAsData (appMidi));
        CHECK (appMidi == runCli (arguments));
        CHECK (processor.statusMessage().startsWith ("Exported"));
        for (const auto& f : { csv, labels, midi })
            f.deleteFile();
    }

    // The live detection threshold, hop and smoothing are the live analysis's: a file's timeline stays the CLI's.
    processor.parameters.getParameter (plugin::ParameterIds::threshold)->setValueNotifyingHost (0.8f);
    auto* smoothing = processor.parameters.getParameter (plugin::ParameterIds::smoothing);
    const auto liveSmoothing = smoothing->getValue();
    smoothing->setValueNotifyingHost (0.9f);
    pumpMessages (300);
    REQUIRE (waitForFiles (processor));
    view.refresh();
    CHECK (processor.fileTimelines().settings().analysis.segments == timeline::SegmentSettings {});
    CHECK (processor.fileTimelines().settings().analysis.smoothingSeconds == timeline::FileAnalysisSettings {}.smoothingSeconds);
    const auto csv = scratch ("threshold.segments.csv");
    CHECK (view.exportTimeline (timeline::ExportFormat::csv, csv).isEmpty());
    auto arguments = settings;
    arguments.insert (0, "classify");
    arguments.add ("--segments");
    arguments.add (mp3.getFullPathName());
    CHECK (csv.loadFileAsString() == runCli (arguments).toString());

    // Classes out of play (a click on their bars): the files are analyzed again over the others,
    // as classify --classes analyzes them.
    for (const auto* label : { "bass", "organ", "synth", "strings" })
        processor.setClassEnabled (label, false);
    pumpMessages (300);
    REQUIRE (waitForFiles (processor));
    view.refresh();
    const auto inPlay = processor.fileTimelines().settings().analysis.classes;
    CHECK (inPlay.size() == 8);
    juce::StringArray inPlayText;
    for (const auto& label : inPlay)
        inPlayText.add (label);
    CHECK (view.exportTimeline (timeline::ExportFormat::csv, csv).isEmpty());
    arguments.insert (1, "--classes");
    arguments.insert (2, inPlayText.joinIntoString (","));
    CHECK (csv.loadFileAsString() == runCli (arguments).toString());
    csv.deleteFile();
    for (const auto* label : { "bass", "organ", "synth", "strings" })
        processor.setClassEnabled (label, true);

    // The app says why nothing plays, and the screenshot README shows.
    processor.parameters.getParameter (plugin::ParameterIds::threshold)->setValueNotifyingHost (0.5f);
    smoothing->setValueNotifyingHost (liveSmoothing);
    pumpMessages (300);
    processor.setStatus (plugin::StatusCause::device,
                         "No audio device: files are analyzed, not played. To play them or hear the input, choose a device in Options > Audio/MIDI "
                         "Settings.",
                         plugin::StatusKind::notice);
    view.selectFile (0);
    view.refresh();
    REQUIRE (view.transport() != nullptr);
    saveScreenshot (view, "file-analysis.png");
    wav.deleteFile();
    mp3.deleteFile();
}

namespace
{
/** The fixture kit taught as hits, as the Teach view does (teachFixtureKit), and seen by the processor's timer. */
void teachKit (plugin::SonotypeProcessor& processor)
{
    REQUIRE (teachFixtureKit (processor));
    pumpMessages (300); // the processor's timer sees the taught model
}

void setParameter (plugin::SonotypeProcessor& processor, const char* id, float value)
{
    auto* parameter = processor.parameters.getParameter (id);
    parameter->setValueNotifyingHost (parameter->convertTo0to1 (value));
}

/** Each export of the hits on show, as the Export menu writes it, against the CLI's bytes for the
    same file with these arguments: one row, point label, marker or note per hit. */
void checkHitExports (gui::SonotypeEditor& view, plugin::SonotypeProcessor& processor, const juce::File& file, const juce::StringArray& cli)
{
    const auto numHits = static_cast<int> (view.timeline().status().hits.size());
    const std::pair<timeline::ExportFormat, const char*> formats[] = { { timeline::ExportFormat::csv, nullptr },
                                                                       { timeline::ExportFormat::audacity, "audacity" },
                                                                       { timeline::ExportFormat::reaper, "reaper" },
                                                                       { timeline::ExportFormat::midi, "midi" } };
    for (const auto& [format, name] : formats)
    {
        INFO ((name != nullptr ? name : "csv") << ", " << cli.joinIntoString (" "));
        const auto exported = scratch ("kit pattern.export");
        CHECK (view.exportTimeline (format, exported).isEmpty());
        CHECK (processor.statusMessage() == "Exported " + juce::String (numHits) + " hits to " + exported.getFileName());
        auto arguments = cli;
        if (name != nullptr)
            arguments.addArray ({ "--format", name });
        arguments.add (file.getFullPathName());
        juce::MemoryBlock app;
        REQUIRE (exported.loadFileAsData (app));
        const auto expected = runCli (arguments);
        CHECK (app == expected);
        const auto lines = juce::StringArray::fromLines (expected.toString().trimEnd());
        if (format == timeline::ExportFormat::csv || format == timeline::ExportFormat::reaper)
            CHECK (lines.size() == numHits + 1); // a header, then one row or marker per hit
        else if (format == timeline::ExportFormat::audacity)
            CHECK (lines.size() == numHits);
        else
        {
            juce::MidiFile midi;
            juce::MemoryInputStream stream (expected, false);
            REQUIRE (midi.readFrom (stream));
            int notes = 0;
            for (int t = 0; t < midi.getNumTracks(); ++t)
                for (const auto* event : *midi.getTrack (t))
                    notes += event->message.isNoteOn() ? 1 : 0;
            CHECK (notes == numHits);
        }
        exported.deleteFile();
    }
}
} // namespace

TEST_CASE ("with per-hit MIDI on the Files view shows a drum loop's hits and exports what classify --onsets writes, byte for byte", "[gui][timeline][hits]")
{
    TestProcessor processor; // never prepared: the app with no audio device
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor view (processor, true);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    teachKit (processor);
    REQUIRE (processor.modelDescription().name == "built-in + taught");
    const auto model = scratch ("taught kit.safetensors");
    REQUIRE (processor.teaching().exportModel (model).isEmpty());
    const auto loop = scratch ("kit pattern.wav");
    REQUIRE (juce::File (fixturePath ("kit/pattern.wav")).copyFileTo (loop));

    // Segments first; per-hit MIDI on analyses the file again, hit by hit, with the onset settings on screen.
    view.openAudioFiles ({ loop });
    REQUIRE (waitForFiles (processor));
    view.refresh();
    CHECK_FALSE (view.timeline().status().perHit);
    CHECK (view.timeline().laneName() == "segments");
    setParameter (processor, plugin::ParameterIds::hitMode, 1.0f);
    pumpMessages (300);
    REQUIRE (waitForFiles (processor));
    view.refresh();
    const auto status = view.timeline().status();
    REQUIRE (status.state == plugin::FileState::done);
    REQUIRE (status.perHit);
    CHECK (status.segments.empty());
    CHECK (view.timeline().numWindows() == 0);
    const auto rendered = kitPattern();
    INFO (status.hits.size() << " hits found, " << rendered.size() << " rendered");
    CHECK (std::abs (static_cast<int> (status.hits.size()) - static_cast<int> (rendered.size())) <= 2);
    CHECK (view.timeline().laneName() == juce::String (static_cast<int> (status.hits.size())) + " hits");
    for (const auto& hit : status.hits)
        REQUIRE ((hit.classIndex >= 0 && hit.classIndex < static_cast<int> (status.labels.size())));
    timeline::HitAnalysisResult found;
    found.labels = status.labels;
    found.hits = status.hits;
    CHECK (hitsNamedAsRendered (found, rendered) >= static_cast<int> (rendered.size()) * 8 / 10);

    // The tooltip names the hit under the mouse.
    REQUIRE_FALSE (status.hits.empty());
    const auto& first = status.hits.front();
    const auto* under = view.timeline().hitNear (view.timeline().xOf (first.seconds) + 1.0f);
    REQUIRE (under != nullptr);
    CHECK (under->seconds == first.seconds);
    CHECK (view.timeline().describe (first).startsWith (juce::String::fromUTF8 (status.labels[static_cast<std::size_t> (first.classIndex)].c_str()) + " at "));

    // The top panel and the bars show the hit at or just before the playhead, and say which (none before the first).
    REQUIRE (status.hits.size() > 3);
    if (first.seconds > 0.01)
    {
        processor.filePlayer().seek (0.0);
        view.refresh();
        CHECK (view.topClass().displayedLabel() == "NO HIT");
        CHECK (view.displayState().probabilities.empty());
    }
    const auto& third = status.hits[2];
    processor.filePlayer().seek (third.seconds + 0.001);
    view.refresh();
    CHECK (view.displayState().topClass == third.classIndex);
    CHECK (view.displayState().probabilities == third.probabilities);
    CHECK (view.topClass().sourceText() == "kit pattern.wav: the hit at " + gui::timeText (third.seconds, 2));
    CHECK (view.topClass().displayedLabel().startsWith (juce::String::fromUTF8 (status.labels[static_cast<std::size_t> (third.classIndex)].c_str()).toUpperCase()));

    // Each export, as the Export menu writes it, against the CLI's bytes for the same file and
    // settings: the Live response (the default, with a kit taught from hits) is --response live.
    CHECK (processor.fileTimelines().settings().hits->live);
    checkHitExports (view, processor, loop, { "classify", "--onsets", "--response", "live", "--model", model.getFullPathName() });
    saveScreenshot (view, "file-hits.png");

    // Exact: the model on each hit's clip, classify's default.
    setParameter (processor, plugin::ParameterIds::hitResponse, static_cast<float> (plugin::HitResponse::exact));
    pumpMessages (300);
    REQUIRE (waitForFiles (processor));
    view.refresh();
    REQUIRE (view.timeline().status().perHit);
    CHECK_FALSE (processor.fileTimelines().settings().hits->live);
    juce::StringArray cli { "classify", "--onsets", "--model", model.getFullPathName() };
    checkHitExports (view, processor, loop, cli);

    // Other onset settings on screen (a longer gap and a higher silence gate, which drop hits from
    // this loop): the file is analysed again with them, as classify with the same options.
    setParameter (processor, plugin::ParameterIds::onsetThreshold, 1.5f);
    setParameter (processor, plugin::ParameterIds::onsetGap, 0.15f);
    setParameter (processor, plugin::ParameterIds::onsetSilence, -30.0f);
    pumpMessages (300);
    REQUIRE (waitForFiles (processor));
    view.refresh();
    REQUIRE (view.timeline().status().perHit);
    CHECK (view.timeline().status().hits.size() < status.hits.size() - 5);
    cli.addArray ({ "--onset-threshold", "1.5", "--onset-gap", "0.15", "--onset-silence=-30" });
    checkHitExports (view, processor, loop, cli);

    // Per-hit MIDI off: segments again.
    setParameter (processor, plugin::ParameterIds::hitMode, 0.0f);
    pumpMessages (300);
    REQUIRE (waitForFiles (processor));
    view.refresh();
    CHECK_FALSE (view.timeline().status().perHit);
    CHECK (view.timeline().status().hits.empty());
    CHECK_FALSE (view.timeline().status().segments.empty());
    CHECK (view.timeline().laneName() == "segments");
    loop.deleteFile();
    model.deleteFile();
}

TEST_CASE ("the app takes the audio files the CLI's folder scan takes, .wave too, dropped or chosen", "[gui][timeline][files]")
{
    TestProcessor processor;
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor view (processor, true);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    for (const auto& extension : formats::readableExtensions())
        CHECK (view.isInterestedInFileDrag ({ juce::String ("/music/take." + extension) }));
    CHECK (view.isInterestedInFileDrag ({ "/music/TAKE.WAVE", "/music/other.flac" }));
    CHECK_FALSE (view.isInterestedInFileDrag ({ "/music/take.wave", "/music/notes.txt" }));
    CHECK_FALSE (view.isInterestedInFileDrag ({ "/music/notes.txt" }));
    CHECK (view.isInterestedInFileDrag ({ "/models/model.safetensors" }));
    view.fileDragExit ({});

    // A .wave file dropped is analysed as the WAV it is.
    const auto wave = writeExampleWav ("dropped take.wave");
    view.filesDropped ({ wave.getFullPathName() }, 0, 0);
    REQUIRE (waitForFiles (processor));
    view.refresh();
    CHECK (view.isShowingFiles());
    CHECK (view.timeline().status().file == wave);
    CHECK (view.timeline().status().state == plugin::FileState::done);
    CHECK (view.timeline().status().segments.size() >= 3);
    wave.deleteFile();
}

TEST_CASE ("a corrupt audio file: the message strip and the timeline say why, and nothing else changes", "[gui][timeline]")
{
    TestProcessor processor;
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor view (processor, true);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    const auto corrupt = scratch ("damaged take.wav");
    corrupt.replaceWithText ("RIFF, but not a WAV file at all");
    view.openAudioFiles ({ corrupt });
    REQUIRE (waitForFiles (processor));
    for (int frame = 0; frame < 10; ++frame) // the message stays, frame after frame
        view.refresh();
    CHECK (view.timeline().status().state == plugin::FileState::failed);
    CHECK (view.timeline().status().error.contains ("not a readable audio file"));
    REQUIRE (view.messageStrip().messages().size() == 1);
    CHECK (view.messageStrip().messages()[0].text == "Cannot analyze " + corrupt.getFileName() + ": " + view.timeline().status().error);
    CHECK (view.exportTimeline (timeline::ExportFormat::csv, scratch ("none.csv")).contains ("not analyzed"));
    CHECK_FALSE (scratch ("none.csv").exists());
    saveScreenshot (view, "file-error.png");
    corrupt.deleteFile();
}

TEST_CASE ("the live session's detections export as segments in seconds of audio analyzed", "[gui][timeline]")
{
    TestProcessor processor;
    ProcessorDriver driver (processor, 48000.0, 2, 512);
    driver.play (exampleSequence ({ "speech", "drums" }, 48000.0, 3));
    gui::SonotypeEditor view (processor);
    CHECK_FALSE (view.isShowingFiles());
    const auto history = processor.liveHistory();
    REQUIRE (history.segments.size() >= 2);
    CHECK (history.analyzedSeconds > 10.0); // two clips of about 2 s, three times each
    const auto labels = scratch ("session.labels.txt");
    CHECK (view.exportTimeline (timeline::ExportFormat::audacity, labels).isEmpty());
    const auto lines = juce::StringArray::fromLines (labels.loadFileAsString().trim());
    CHECK (lines.size() == static_cast<int> (history.segments.size()));
    CHECK (lines[0].upToFirstOccurrenceOf ("\t", false, false).getDoubleValue() < 1.0); // the session's first seconds
    CHECK (lines[0].endsWith ("\tspeech"));
    CHECK (lines.joinIntoString ("\n").contains ("\tdrums"));
    labels.deleteFile();
}

TEST_CASE ("a new model analyzes the open files again, with its classes", "[gui][timeline]")
{
    TestProcessor processor;
    gui::SonotypeEditor view (processor);
    const auto wav = writeExampleWav ("model-swap.wav");
    view.openAudioFiles ({ wav });
    REQUIRE (waitForFiles (processor));
    CHECK (processor.fileTimelines().status (0).labels.size() == 12);
    REQUIRE (loadModel (processor, juce::File (fixturePath ("tiny_classifier.safetensors"))));
    pumpMessages (300); // the processor's timer sees the new generation
    REQUIRE (waitForFiles (processor));
    view.refresh();
    const auto status = processor.fileTimelines().status (0);
    CHECK (status.state == plugin::FileState::done);
    CHECK (status.labels.size() == 4);
    CHECK (view.timeline().status().labels.size() == 4);
    CHECK (view.timeline().numWindows() == status.numWindows);

    // A new live hop is the live analysis's: the file's timeline keeps the file analysis's defaults.
    const auto analyses = processor.fileTimelines().version();
    processor.parameters.getParameter (plugin::ParameterIds::hop)->setValueNotifyingHost (processor.parameters.getParameterRange (plugin::ParameterIds::hop).convertTo0to1 (0.5f));
    pumpMessages (300);
    REQUIRE (waitForFiles (processor));
    view.refresh();
    const auto same = processor.fileTimelines().status (0);
    CHECK (same.hopSeconds == timeline::FileAnalysisSettings {}.hopSeconds);
    CHECK (same.numWindows == status.numWindows);
    CHECK (processor.fileTimelines().version() == analyses);
    CHECK (view.timeline().numWindows() == same.numWindows);
    wav.deleteFile();
}

// ----- the Files view you can read: the file at a time, the read-out, zoom and scroll, Add -----------

namespace
{
/** A mouse event on `component` at `position` (its coordinates), as JUCE would deliver it. */
juce::MouseEvent mouseAt (juce::Component& component, juce::Point<float> position, juce::ModifierKeys mods = {}, int clicks = 1)
{
    const auto now = juce::Time::getCurrentTime();
    return juce::MouseEvent (juce::Desktop::getInstance().getMainMouseSource(), position, mods, juce::MouseInputSource::defaultPressure,
                             juce::MouseInputSource::defaultOrientation, juce::MouseInputSource::defaultRotation, juce::MouseInputSource::defaultTiltX,
                             juce::MouseInputSource::defaultTiltY, &component, &component, now, position, now, clicks, false);
}

juce::MouseWheelDetails wheel (float deltaX, float deltaY)
{
    juce::MouseWheelDetails details;
    details.deltaX = deltaX;
    details.deltaY = deltaY;
    details.isReversed = false;
    details.isSmooth = false;
    details.isInertial = false;
    return details;
}

/** A point over the heat map at `seconds` (the timeline's coordinates). */
juce::Point<float> over (const gui::TimelineView& timeline, double seconds)
{
    const auto plot = timeline.plotArea();
    return { timeline.xOf (seconds), plot.getY() + plot.getHeight() * 0.7f };
}

/** The file at `seconds` as its segments' first step has it: the mean of the windows that cover it. */
plugin::TimelineWindow windowAt (const plugin::FileTimelines& files, std::size_t index, double seconds)
{
    std::vector<plugin::TimelineWindow> windows;
    files.copyWindows (index, 0, windows);
    REQUIRE_FALSE (windows.empty());
    plugin::TimelineWindow mean { seconds, seconds, {} };
    std::vector<double> sum (windows[0].probabilities.size(), 0.0);
    int count = 0;
    for (const auto& window : windows)
        if (window.startSeconds <= seconds && seconds < window.endSeconds)
        {
            for (std::size_t c = 0; c < sum.size(); ++c)
                sum[c] += static_cast<double> (window.probabilities[c]);
            ++count;
        }
    REQUIRE (count >= 1);
    for (const double total : sum)
        mean.probabilities.push_back (static_cast<float> (total / count));
    return mean;
}

/** The middle of the file's first segment of `label`. */
double middleOf (const plugin::FileStatus& status, const std::string& label)
{
    for (const auto& segment : status.segments)
        if (segment.classIndex >= 0 && status.labels[static_cast<std::size_t> (segment.classIndex)] == label)
            return 0.5 * (segment.startSeconds + segment.endSeconds);
    FAIL ("no " << label << " segment");
    return 0.0;
}

/** The top panel and the bars show `window`'s values, as the file's at `seconds`. */
void checkShows (gui::SonotypeEditor& view, const plugin::TimelineWindow& window, const juce::String& fileName, double seconds)
{
    const auto& state = view.displayState();
    REQUIRE (state.probabilities.size() == window.probabilities.size());
    for (std::size_t c = 0; c < window.probabilities.size(); ++c)
        CHECK (state.probabilities[c] == Approx (window.probabilities[c]).margin (1e-6)); // (summed in another order)
    const auto top = std::max_element (window.probabilities.begin(), window.probabilities.end()) - window.probabilities.begin();
    CHECK (state.topClass == static_cast<int> (top));
    CHECK (view.topClass().displayedLabel().startsWith (state.labels[static_cast<std::size_t> (top)].toUpperCase()));
    CHECK (view.topClass().sourceText() == fileName + " at " + gui::timeText (seconds, 1));
    CHECK (view.topClass().detailText().startsWith (juce::String (juce::roundToInt (window.probabilities[static_cast<std::size_t> (top)] * 100.0f)) + "%"));
    for (std::size_t c = 0; c < window.probabilities.size(); ++c)
        CHECK (view.bars().valueText (static_cast<int> (c)).startsWith (juce::String (juce::roundToInt (window.probabilities[c] * 100.0f)) + "%"));
}

/** Every label of the ruler has its own room, at its tick, inside the plot, and they go up in time. */
void checkRuler (const gui::TimelineView& timeline)
{
    const auto marks = timeline.rulerMarks();
    const auto font = timeline.rulerFont();
    INFO ("width " << timeline.getWidth() << ", shown " << timeline.visibleRange().getStart() << " to " << timeline.visibleRange().getEnd() << " s, step "
                   << marks.stepSeconds);
    REQUIRE (marks.labels.size() >= 2);
    for (std::size_t i = 0; i < marks.labels.size(); ++i)
    {
        const auto& label = marks.labels[i];
        CHECK (label.text == gui::timeText (label.seconds, marks.decimals));
        CHECK (label.x.getLength() == Approx (font.getStringWidthFloat (label.text)));
        CHECK (label.x.getStart() == Approx (timeline.xOf (label.seconds) + 3.0f).margin (0.01));
        CHECK (label.x.getEnd() <= timeline.plotArea().getRight());
        if (i > 0)
        {
            CHECK (label.seconds > marks.labels[i - 1].seconds);
            CHECK (marks.labels[i - 1].x.getEnd() + font.getHeight() <= label.x.getStart()); // a gap of one font height at least
        }
    }
}
} // namespace

TEST_CASE ("the Files view's top class and bars show the file at the playhead after a seek and at the pointer while it hovers", "[gui][timeline][files-view]")
{
    const auto wav = writeExampleWav ("four clips.wav");
    TestProcessor processor; // the app with no audio device
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor view (processor, true);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    view.openAudioFiles ({ wav });
    REQUIRE (waitForFiles (processor));
    view.refresh();
    auto& timeline = view.timeline();
    const auto status = timeline.status();
    REQUIRE (status.state == plugin::FileState::done);

    // Opened, not played: the file at its start, never the live input's "listening...".
    CHECK (view.topClass().sourceText() == "four clips.wav at 0:00.0");
    CHECK (view.topClass().displayedLabel() != "LISTENING...");
    checkShows (view, windowAt (processor.fileTimelines(), 0, 0.0), "four clips.wav", 0.0);

    // A click in the middle of the drums: the player goes there, and the top class is drums.
    const double drums = middleOf (status, "drums");
    timeline.mouseDown (mouseAt (timeline, over (timeline, drums)));
    timeline.mouseExit (mouseAt (timeline, { -10.0f, -10.0f }));
    view.refresh();
    const double clicked = processor.filePlayer().positionSeconds();
    CHECK (clicked == Approx (drums).margin (status.durationSeconds / timeline.plotArea().getWidth())); // to the pixel
    CHECK (timeline.focusSeconds() == clicked);
    checkShows (view, windowAt (processor.fileTimelines(), 0, clicked), "four clips.wav", clicked);
    CHECK (view.topClass().displayedLabel().startsWith ("DRUMS"));

    // The pointer over the piano: the top panel, the bars and the read-out follow it.
    const double piano = middleOf (status, "piano");
    const auto pointer = over (timeline, piano);
    timeline.mouseMove (mouseAt (timeline, pointer));
    view.refresh();
    const double hovered = timeline.secondsAt (pointer.x);
    CHECK (timeline.isHovering());
    CHECK (timeline.focusSeconds() == hovered);
    checkShows (view, windowAt (processor.fileTimelines(), 0, hovered), "four clips.wav", hovered);
    CHECK (view.topClass().displayedLabel().startsWith ("PIANO"));
    const auto readout = timeline.readoutLines();
    REQUIRE (readout.size() == 2);
    CHECK (readout[0] == gui::timeText (hovered, 1));
    CHECK (readout[1] == "PIANO " + juce::String (juce::roundToInt (view.displayState().probabilities[static_cast<std::size_t> (view.displayState().topClass)] * 100.0f)) + "%");

    // The pointer leaves: the playhead's time again.
    timeline.mouseExit (mouseAt (timeline, { -10.0f, -10.0f }));
    view.refresh();
    CHECK_FALSE (timeline.isHovering());
    CHECK (timeline.readoutLines().isEmpty());
    CHECK (view.topClass().displayedLabel().startsWith ("DRUMS"));

    // The Live view shows the live input (none here).
    view.showFiles (false);
    view.refresh();
    CHECK (view.topClass().sourceText().isEmpty());
    CHECK (view.topClass().displayedLabel() == "LISTENING...");
    CHECK (view.displayState().probabilities.empty());
    wav.deleteFile();
}

TEST_CASE ("the read-out at the pointer stays inside the timeline at its edges, at 600x400 and 900x600", "[gui][timeline][files-view]")
{
    const auto wav = writeExampleWav ("a take with a rather long file name.wav");
    TestProcessor processor;
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor view (processor, true);
    view.openAudioFiles ({ wav });
    REQUIRE (waitForFiles (processor));
    for (const auto size : { juce::Point<int> (600, 400), juce::Point<int> (900, 600) })
    {
        view.setSize (size.x, size.y);
        view.refresh();
        auto& timeline = view.timeline();
        const auto plot = timeline.plotArea();
        const auto bounds = timeline.getLocalBounds().toFloat();
        for (const auto corner : { plot.getTopLeft(), plot.getTopRight(), plot.getBottomLeft(), plot.getBottomRight(), plot.getCentre() })
        {
            const auto at = corner + juce::Point<float> (corner.x > plot.getCentreX() ? -1.0f : 1.0f, corner.y > plot.getCentreY() ? -1.0f : 1.0f);
            INFO (size.x << "x" << size.y << " at " << at.x << "," << at.y);
            timeline.mouseMove (mouseAt (timeline, at));
            const auto box = timeline.readoutBounds();
            REQUIRE_FALSE (box.isEmpty());
            CHECK (bounds.contains (box));
            CHECK (timeline.readoutFont().getHeight() >= 12.0f); // legible at the smallest size
            for (const auto& line : timeline.readoutLines())
                CHECK (juce::Font (timeline.readoutFont()).boldened().getStringWidthFloat (line) <= box.getWidth());
        }
        // The top panel names the file and the time in full at this size, or shortens the name, never the time.
        view.refresh();
        const auto text = view.topClass().sourceText();
        CHECK (text.endsWith (" at " + gui::timeText (timeline.focusSeconds(), 1)));
        saveScreenshot (view, size.x == 600 ? "files-readout-600x400.png" : "files-readout-900x600.png");
        timeline.mouseExit (mouseAt (timeline, { -10.0f, -10.0f }));
    }
    wav.deleteFile();
}

namespace
{
/** The example clips one after another, over and over, for `seconds` (16 kHz, 16-bit, mono). */
juce::File writeLongWav (const juce::String& name, double seconds)
{
    const double rate = 16000.0;
    std::vector<std::vector<float>> clips;
    for (const auto* clip : { "speech", "drums", "piano", "guitar", "noise" })
        clips.push_back (exampleClip (clip, rate));
    const auto file = scratch (name);
    file.deleteFile();
    juce::WavAudioFormat wav;
    std::unique_ptr<juce::AudioFormatWriter> writer (wav.createWriterFor (file.createOutputStream().release(), rate, 1, 16, {}, 0));
    REQUIRE (writer != nullptr);
    auto left = static_cast<int64_t> (seconds * rate);
    for (std::size_t i = 0; left > 0; ++i)
    {
        const auto& clip = clips[i % clips.size()];
        const int n = static_cast<int> (std::min<int64_t> (left, static_cast<int64_t> (clip.size())));
        const float* channels[] = { clip.data() };
        REQUIRE (writer->writeFromFloatArrays (channels, 1, n));
        left -= n;
    }
    return file;
}

/** Runs the message loop until file 0's length is known (its analysis has opened it). */
void waitForLength (gui::SonotypeEditor& view, const plugin::SonotypeProcessor& processor)
{
    const auto deadline = juce::Time::getMillisecondCounter() + 30000u;
    while (processor.fileTimelines().status (0).durationSeconds <= 0.0 && juce::Time::getMillisecondCounter() < deadline)
        pumpMessages (20);
    view.refresh();
}

juce::TextButton* buttonNamed (juce::Component& parent, const juce::String& text)
{
    for (auto* child : parent.getChildren())
        if (auto* button = dynamic_cast<juce::TextButton*> (child); button != nullptr && button->getButtonText() == text)
            return button;
    return nullptr;
}
} // namespace

TEST_CASE ("a 10-minute file's timeline zooms about the pointer down to the second, scrolls, fits again, and its ruler never overlaps", "[gui][timeline][files-view]")
{
    const auto file = writeLongWav ("ten minutes.wav", 600.0);
    TestProcessor processor;
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor view (processor, true);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    view.openAudioFiles ({ file });
    waitForLength (view, processor);
    auto& timeline = view.timeline();
    REQUIRE (timeline.spanSeconds() == Approx (600.0).margin (0.01));
    CHECK (timeline.isFitted());
    checkRuler (timeline);
    CHECK (timeline.rulerMarks().stepSeconds >= 30.0); // whole minutes or halves across ~450 px

    // Ctrl+wheel (Cmd+wheel on a Mac) zooms in about the pointer: the time under it stays under it.
    const auto plot = timeline.plotArea();
    const juce::Point<float> pointer (plot.getX() + plot.getWidth() * 0.37f, plot.getCentreY());
    const double under = timeline.secondsAt (pointer.x);
    int notches = 0;
    while (timeline.visibleRange().getLength() > gui::TimelineZoom::kMinSpanSeconds + 1e-9 && notches < 60)
    {
        const double before = timeline.visibleRange().getLength();
        timeline.mouseWheelMove (mouseAt (timeline, pointer, juce::ModifierKeys::commandModifier), wheel (0.0f, 0.2f));
        ++notches;
        CHECK (timeline.visibleRange().getLength() < before);
        CHECK (timeline.secondsAt (pointer.x) == Approx (under).margin (1e-6));
        CHECK (timeline.xOf (under) == Approx (pointer.x).margin (0.01));
        checkRuler (timeline);
    }
    INFO (notches << " notches");
    CHECK (notches < 30);
    CHECK (timeline.visibleRange().getLength() == Approx (gui::TimelineZoom::kMinSpanSeconds));
    CHECK (timeline.rulerMarks().stepSeconds <= 0.2); // readable to the second, and between

    // Zoomed, a click seeks to the time under it, and a right-click's teach menu gets that time.
    const juce::Point<float> elsewhere (plot.getX() + plot.getWidth() * 0.8f, plot.getCentreY());
    timeline.mouseDown (mouseAt (timeline, elsewhere));
    CHECK (processor.filePlayer().positionSeconds() == Approx (timeline.secondsAt (elsewhere.x)).margin (1e-6));
    CHECK (timeline.secondsAt (elsewhere.x) == Approx (timeline.visibleRange().getStart() + 0.8 * timeline.visibleRange().getLength()).margin (1e-6));
    const auto menu = timeline.onContextMenu;
    double menuSeconds = -1.0;
    timeline.onContextMenu = [&menuSeconds] (double seconds) { menuSeconds = seconds; };
    timeline.mouseDown (mouseAt (timeline, pointer, juce::ModifierKeys::rightButtonModifier));
    CHECK (menuSeconds == Approx (under).margin (1e-6));
    timeline.onContextMenu = menu;

    // The wheel, Shift+wheel and a sideways swipe scroll, keeping the span.
    const auto shown = timeline.visibleRange();
    timeline.mouseWheelMove (mouseAt (timeline, pointer), wheel (0.0f, -0.2f));
    CHECK (timeline.visibleRange().getStart() > shown.getStart());
    CHECK (timeline.visibleRange().getLength() == Approx (shown.getLength()));
    timeline.mouseWheelMove (mouseAt (timeline, pointer, juce::ModifierKeys::shiftModifier), wheel (0.0f, 0.4f));
    CHECK (timeline.visibleRange().getStart() < shown.getStart());
    timeline.mouseWheelMove (mouseAt (timeline, pointer), wheel (-0.2f, 0.0f));
    CHECK (timeline.visibleRange().getStart() == Approx (shown.getStart()).margin (1e-6));

    // A pinch zooms too, about the pointer.
    const double pinched = timeline.secondsAt (pointer.x);
    timeline.mouseMagnify (mouseAt (timeline, pointer), 0.25f);
    CHECK (timeline.visibleRange().getLength() == Approx (4.0 * gui::TimelineZoom::kMinSpanSeconds));
    CHECK (timeline.secondsAt (pointer.x) == Approx (pinched).margin (1e-6));

    // Double-click: the whole file. The Fit button (shown while zoomed): the same.
    timeline.mouseDoubleClick (mouseAt (timeline, pointer));
    CHECK (timeline.isFitted());
    CHECK (timeline.visibleRange() == juce::Range<double> (0.0, timeline.spanSeconds()));
    auto* fit = buttonNamed (timeline, "Fit");
    REQUIRE (fit != nullptr);
    CHECK_FALSE (fit->isVisible());
    timeline.mouseMagnify (mouseAt (timeline, pointer), 8.0f);
    CHECK (fit->isVisible());
    CHECK (fit->getTooltip().contains ("Ctrl+wheel"));
    fit->triggerClick();
    pumpMessages (100);
    CHECK (timeline.isFitted());
    CHECK_FALSE (fit->isVisible());

    // At the editor's smallest, its default and a large size, fitted and zoomed in step by step: the
    // ruler's labels keep apart.
    for (const auto size : { juce::Point<int> (600, 400), juce::Point<int> (900, 600), juce::Point<int> (1800, 1200) })
    {
        view.setSize (size.x, size.y);
        timeline.fitToFile();
        const auto middle = juce::Point<float> (timeline.plotArea().getCentreX() + 17.0f, timeline.plotArea().getCentreY());
        for (int step = 0; step < 12; ++step)
        {
            checkRuler (timeline);
            timeline.mouseMagnify (mouseAt (timeline, middle), 2.3f);
        }
        checkRuler (timeline);
    }
    file.deleteFile();
}

TEST_CASE ("Add files keeps the files analyzed, analyzes only the new ones, none twice, and Open replaces them", "[gui][timeline][files-view]")
{
    const auto first = writeExampleWav ("first take.wav"), second = writeExampleWav ("second take.wav");
    TestProcessor processor;
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor view (processor, true);
    view.setSize (600, 400);
    REQUIRE (view.transport() != nullptr);

    // The transport's two buttons, side by side, each saying what it does.
    auto* open = buttonNamed (*view.transport(), "Open audio files...");
    auto* add = buttonNamed (*view.transport(), "Add files...");
    REQUIRE (open != nullptr);
    REQUIRE (add != nullptr);
    CHECK (add->isVisible());
    CHECK_FALSE (add->getBounds().intersects (open->getBounds()));
    CHECK (add->getTooltip().contains ("stay"));
    CHECK (open->getTooltip().contains ("in place of"));

    view.openAudioFiles ({ first });
    REQUIRE (waitForFiles (processor));
    const auto before = processor.fileTimelines().status (0);
    REQUIRE (before.state == plugin::FileState::done);

    view.addAudioFiles ({ second, first });
    const auto kept = processor.fileTimelines().status (0);
    CHECK (processor.fileTimelines().files() == juce::Array<juce::File> { first, second });
    CHECK (kept.state == plugin::FileState::done); // not analysed again: the same analysis, at once
    CHECK (kept.analysis == before.analysis);
    CHECK (kept.segments.size() == before.segments.size());
    CHECK (view.timeline().status().file == second); // the first of those added is shown, and played
    CHECK (processor.filePlayer().file() == second);
    REQUIRE (waitForFiles (processor));
    CHECK (processor.fileTimelines().status (1).state == plugin::FileState::done);
    CHECK (processor.fileTimelines().status (0).analysis == before.analysis);

    // Adding a file already there shows it; Open replaces the list.
    view.addAudioFiles ({ first });
    CHECK (processor.fileTimelines().numFiles() == 2);
    view.refresh();
    CHECK (view.timeline().status().file == first);
    view.openAudioFiles ({ second });
    CHECK (processor.fileTimelines().files() == juce::Array<juce::File> { second });
    REQUIRE (waitForFiles (processor));
    first.deleteFile();
    second.deleteFile();
}

TEST_CASE ("screenshot: a file's timeline zoomed in, the read-out at the pointer, the top class and bars following it", "[gui][timeline][files-view]")
{
    const auto samples = exampleSequence ({ "speech", "drums", "piano", "guitar" }, 44100.0, 3);
    const auto wav = writeMonoWav (scratch ("band rehearsal.wav"), samples);
    TestProcessor processor;
    processor.setAudioDeviceAvailable (false);
    gui::SonotypeEditor view (processor, true);
    view.setSize (gui::SonotypeEditor::kBaseWidth, gui::SonotypeEditor::kBaseHeight);
    view.openAudioFiles ({ wav });
    REQUIRE (waitForFiles (processor));
    view.refresh();
    auto& timeline = view.timeline();

    // Zoomed to about 6 s around the drums' end, the playhead at 11 s, the pointer over the piano.
    for (int notch = 0; notch < 5; ++notch)
        timeline.mouseWheelMove (mouseAt (timeline, over (timeline, 12.0), juce::ModifierKeys::commandModifier), wheel (0.0f, 0.2f));
    CHECK (timeline.visibleRange().getLength() < 8.0);
    timeline.mouseDown (mouseAt (timeline, over (timeline, 11.0)));
    const auto pointer = over (timeline, 13.6);
    timeline.mouseMove (mouseAt (timeline, pointer));
    view.refresh();
    checkShows (view, windowAt (processor.fileTimelines(), 0, timeline.secondsAt (pointer.x)), "band rehearsal.wav", timeline.secondsAt (pointer.x));
    CHECK (view.topClass().displayedLabel().startsWith ("PIANO"));
    CHECK (timeline.readoutLines()[1].startsWith ("PIANO"));
    checkRuler (timeline);
    saveScreenshot (view, "files-zoomed-readout.png");
    wav.deleteFile();
}

TEST_CASE ("FileTimelines::add with settings that analyze differently analyzes every file again, with the same ones keeps them", "[gui][timeline][files-view]")
{
    const auto first = writeExampleWav ("added first.wav"), second = writeExampleWav ("added second.wav");
    TestProcessor processor; // for its model and settings
    processor.analyzeFiles ({ first });
    REQUIRE (waitForFiles (processor));
    const auto settings = processor.fileTimelines().settings();
    REQUIRE (settings.model != nullptr);

    plugin::FileTimelines timelines;
    const auto wait = [&timelines] {
        const auto deadline = juce::Time::getMillisecondCounter() + 60000u;
        while (timelines.isBusy() && juce::Time::getMillisecondCounter() < deadline)
            juce::Thread::sleep (10);
        return ! timelines.isBusy();
    };
    timelines.analyze ({ first }, settings);
    REQUIRE (wait());
    const auto analysed = timelines.status (0);
    timelines.add ({ first }, settings); // there already, same settings: nothing changes
    CHECK (timelines.numFiles() == 1);
    CHECK (timelines.status (0).analysis == analysed.analysis);
    CHECK_FALSE (timelines.isBusy());

    auto fewer = settings;
    fewer.analysis.classes = { "speech", "drums", "piano" };
    timelines.add ({ second }, fewer); // other classes in play: both files analysed again, with them
    CHECK (timelines.status (0).analysis != analysed.analysis);
    REQUIRE (wait());
    CHECK (timelines.files() == juce::Array<juce::File> { first, second });
    for (std::size_t i = 0; i < 2; ++i)
    {
        const auto status = timelines.status (i);
        CHECK (status.state == plugin::FileState::done);
        std::vector<plugin::TimelineWindow> windows;
        timelines.copyWindows (i, 0, windows);
        REQUIRE_FALSE (windows.empty()); // a class out of play gets 0
        CHECK (windows[0].probabilities[static_cast<std::size_t> (std::find (status.labels.begin(), status.labels.end(), "noise") - status.labels.begin())] == 0.0f);
    }
    first.deleteFile();
    second.deleteFile();
}
