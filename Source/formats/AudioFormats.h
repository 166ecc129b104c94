// The audio files Sonotype reads, in one place: their extensions (what the CLI's folder scan, the
// app's drag-and-drop and file choosers, and teaching from files accept) and the formats registered
// to read them (JUCE's WAV, AIFF, FLAC and Ogg Vorbis readers, MP3 through libmpg123:
// formats/Mp3AudioFormat.h, Ogg Opus through libopusfile: formats/OpusAudioFormat.h).
// Constants and pure functions: any thread.
#pragma once

#include <string>
#include <vector>

namespace juce
{
class AudioFormatManager;
}

namespace sonotype::formats
{

/** The extensions of the files Sonotype reads, lower case, in juce::File::hasFileExtension's form:
    the one list every other form below is made from. ".wave" is WAV's other extension (read by
    JUCE's WAV reader, registered for it by registerFormats()). */
inline constexpr const char* kAudioFileExtensions = "wav;wave;aif;aiff;flac;ogg;mp3;opus";

/** The formats, for messages: "WAV, AIFF, FLAC, Ogg Vorbis, MP3, Opus". */
inline constexpr const char* kReadableFormats = "WAV, AIFF, FLAC, Ogg Vorbis, MP3, Opus";

/** kAudioFileExtensions one by one, without the dot: "wav", "wave", "aif", ... */
const std::vector<std::string>& readableExtensions();

/** A file chooser's patterns for them: "*.wav;*.wave;*.aif;...". */
std::string audioFilePatterns();

/** The extensions for a message: ".wav .wave .aif ...". */
std::string readableExtensionsText();

/** Whether a path's file name ends in one of the extensions (in any case): the files a folder scan
    takes and the app accepts when they are dropped or chosen. Says nothing about the content. */
bool isReadableAudioFile (const std::string& path);

/** Registers the formats that read them: WAV (.wav and, once more, .wave), AIFF, FLAC, Ogg Vorbis
    (JUCE's), then MP3 and Ogg Opus (each only for its own extension: a file is opened with the
    formats that claim its extension). */
void registerFormats (juce::AudioFormatManager& formats);

} // namespace sonotype::formats
