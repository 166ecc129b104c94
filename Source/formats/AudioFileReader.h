// Reading audio files (WAV, AIFF, FLAC, Ogg Vorbis, MP3, Opus) block by block as mono, through JUCE's
// AudioFormatManager with the formats of formats/AudioFormats.h (MP3 through libmpg123:
// formats/Mp3AudioFormat.h; Opus through libopusfile: formats/OpusAudioFormat.h); bounded memory
// whatever the file's length.
#pragma once

#include "formats/AudioFormats.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace juce
{
class AudioFormatReader;
template <typename Type>
class AudioBuffer;
} // namespace juce

namespace sonotype::formats
{

/** A file that cannot be read as audio: the message says why. */
struct AudioFileError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

/** Opens a file with every check the reader makes before and after JUCE parses it (metadata chunks
    JUCE would mishandle, no channels or rate, more than 256 channels, no audio); throws
    AudioFileError saying what is wrong. The file player opens files with it too. */
std::unique_ptr<juce::AudioFormatReader> openAudioFile (const std::string& path);

class AudioFileReader
{
public:
    /** Opens a file; throws AudioFileError for a missing, unreadable, non-audio or empty file. */
    explicit AudioFileReader (const std::string& path);
    ~AudioFileReader();

    double sampleRate() const noexcept { return sampleRate_; }
    int numChannels() const noexcept { return numChannels_; }
    int64_t lengthInSamples() const noexcept { return length_; }
    /** Non-empty when the header claims more audio than the file holds (only what is there is read). */
    const std::string& truncationWarning() const noexcept { return truncation_; }

    /** Reads up to maxSamples more samples, averaged over the channels; 0 at the end. */
    std::size_t readMono (float* output, std::size_t maxSamples);

private:
    std::unique_ptr<juce::AudioFormatReader> reader_;
    std::unique_ptr<juce::AudioBuffer<float>> buffer_;
    double sampleRate_ = 0.0;
    int numChannels_ = 0;
    int64_t length_ = 0, position_ = 0;
    std::string truncation_;
};

} // namespace sonotype::formats
