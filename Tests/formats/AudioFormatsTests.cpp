// The one list of what Sonotype reads (formats/AudioFormats.h): the extensions in each form the CLI
// and the app use, the check of a file name, and the formats registered, a .wave file read as WAV.
#include "formats/AudioFileReader.h"
#include "formats/AudioFormats.h"

#include <catch2/catch.hpp>
#include <juce_audio_formats/juce_audio_formats.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

using namespace sonotype;

TEST_CASE ("the readable extensions: one list, in each form the CLI and the app use", "[formats]")
{
    CHECK (formats::readableExtensions() == std::vector<std::string> { "wav", "wave", "aif", "aiff", "flac", "ogg", "mp3", "opus" });
    CHECK (formats::audioFilePatterns() == "*.wav;*.wave;*.aif;*.aiff;*.flac;*.ogg;*.mp3;*.opus");
    CHECK (formats::readableExtensionsText() == ".wav .wave .aif .aiff .flac .ogg .mp3 .opus");
    for (const auto& extension : formats::readableExtensions())
    {
        CHECK (formats::isReadableAudioFile ("/music/take." + extension));
        CHECK (juce::File ("/music/take." + extension).hasFileExtension (formats::kAudioFileExtensions)); // JUCE's form of the same list
    }
    CHECK (formats::isReadableAudioFile ("TAKE.WAVE"));
    CHECK (formats::isReadableAudioFile ("take.Mp3"));
    CHECK_FALSE (formats::isReadableAudioFile ("take.txt"));
    CHECK_FALSE (formats::isReadableAudioFile ("take.wav.txt"));
    CHECK_FALSE (formats::isReadableAudioFile ("wav"));
    CHECK_FALSE (formats::isReadableAudioFile ("folder.wav/take"));
    CHECK_FALSE (formats::isReadableAudioFile ("take.waves"));
}

TEST_CASE ("a format is registered for each readable extension, and a .wave file is read as WAV", "[formats]")
{
    juce::AudioFormatManager manager;
    formats::registerFormats (manager);
    juce::StringArray names;
    for (int i = 0; i < manager.getNumKnownFormats(); ++i)
        names.add (manager.getKnownFormat (i)->getFormatName());
    INFO (names.joinIntoString (", "));
    for (const auto& extension : formats::readableExtensions())
    {
        INFO (extension);
        const juce::File file ("/music/take." + extension);
        CHECK (std::any_of (manager.begin(), manager.end(), [&] (juce::AudioFormat* format) { return format->canHandleFile (file); }));
    }
    CHECK (names[names.size() - 2].containsIgnoreCase ("MP3"));
    CHECK (names[names.size() - 1].containsIgnoreCase ("Opus"));

    const auto path = "/tmp/sonotype-audio-formats-test-" + std::to_string (::getpid()) + ".wave";
    {
        juce::File file (path);
        juce::WavAudioFormat wav;
        std::unique_ptr<juce::AudioFormatWriter> writer (wav.createWriterFor (file.createOutputStream().release(), 22050.0, 1, 16, {}, 0));
        REQUIRE (writer != nullptr);
        std::vector<float> samples (2205, 0.25f);
        const float* channels[] = { samples.data() };
        REQUIRE (writer->writeFromFloatArrays (channels, 1, static_cast<int> (samples.size())));
    }
    formats::AudioFileReader reader (path);
    CHECK (reader.sampleRate() == 22050.0);
    CHECK (reader.lengthInSamples() == 2205);
    std::remove (path.c_str());
}
