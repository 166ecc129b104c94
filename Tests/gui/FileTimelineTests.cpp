// Files in the app with no audio device: the editor analyses a WAV and an MP3 in the background,
// shows their timelines, and exports them; the exports are what `sonotype classify --segments`
// writes for the same files, byte for byte (the built CLI is run). With per-hit MIDI on and a kit
// taught, a drum loop's hits, and their exports byte for byte what `classify --onsets` writes. A
// corrupt file is an error in the message strip and on the timeline. The live session exports too. Writes
// the screenshots README shows (build/screenshots/file-analysis.png, file-hits.png, file-error.png).
#include "formats/AudioFormats.h"
#include "plugin/PluginParameters.h"
#include "plugin/ProcessorDriver.h"
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
/** Runs the message loop until the file analysis is done (at most 120 s); whether it finished. */
bool waitForFiles (const plugin::SonotypeProcessor& processor)
{
    const auto deadline = juce::Time::getMillisecondCounter() + 120000u;
    while (processor.fileTimelines().isBusy() && juce::Time::getMillisecondCounter() < deadline)
        pumpMessages (20);
    pumpMessages (150); // the processor's 10 Hz timer and the editor's frame see the end
    return ! processor.fileTimelines().isBusy();
}

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
    const auto samples = exampleSequence ({ "speech", "drums", "piano", "guitar" }, 44100.0, 1);
    const auto file = scratch (name);
    file.deleteFile();
    juce::WavAudioFormat wav;
    std::unique_ptr<juce::AudioFormatWriter> writer (wav.createWriterFor (file.createOutputStream().release(), 44100.0, 1, 16, {}, 0));
    REQUIRE (writer != nullptr);
    const float* channels[] = { samples.data() };
    REQUIRE (writer->writeFromFloatArrays (channels, 1, static_cast<int> (samples.size())));
    return file;
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
