// libFuzzer target: the audio file reading of `sonotype classify` (formats::AudioFileReader over JUCE's
// WAV, AIFF, FLAC and Ogg Vorbis readers, the libmpg123 MP3 reader and the libopusfile Opus reader). The bytes are written to a
// file (the reader takes a path, as classify does, and picks formats by its extension) named .wav and
// then .mp3 and .opus, opened and read to the end as classify reads them; anything but an
// AudioFileError is a finding.
#include "formats/AudioFileReader.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace
{
// Classify reads a file to its end. Headers may claim up to 2^63 samples of compressed audio (JUCE
// then decodes silence); reading stops here so that one input cannot take minutes.
constexpr std::size_t kMaxSamplesRead = std::size_t { 1 } << 18;

std::string scratchFile (const char* extension)
{
    const char* dir = std::getenv ("TMPDIR");
    return std::string (dir != nullptr ? dir : "/tmp") + "/sonotype-audio-fuzz-" + std::to_string (::getpid()) + extension;
}

void readAll (const std::string& path, const std::uint8_t* data, std::size_t size)
{
    if (std::FILE* f = std::fopen (path.c_str(), "wb"))
    {
        const bool written = std::fwrite (data, 1, size, f) == size;
        if (std::fclose (f) != 0 || ! written)
            return;
    }
    else
        return;

    try
    {
        sonotype::formats::AudioFileReader reader (path);
        if (reader.numChannels() < 1 || ! (reader.sampleRate() > 0.0) || reader.lengthInSamples() <= 0)
        {
            std::fprintf (stderr, "AudioFileReader accepted a file without channels, rate or samples\n");
            std::abort();
        }
        std::array<float, 4096> block {};
        std::size_t total = 0;
        while (total < kMaxSamplesRead)
        {
            const auto n = reader.readMono (block.data(), block.size());
            if (n == 0)
                break;
            if (n > block.size())
                std::abort();
            total += n;
        }
    }
    catch (const sonotype::formats::AudioFileError&)
    {
    }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput (const std::uint8_t* data, std::size_t size)
{
    // JUCE's AudioFormatManager tries only the formats whose extension the file's name has: .wav
    // reaches the WAV reader, .mp3 the MP3 reader, .opus the Opus reader.
    static const std::string wav = scratchFile (".wav"), mp3 = scratchFile (".mp3"), opus = scratchFile (".opus");
    readAll (wav, data, size);
    readAll (mp3, data, size);
    readAll (opus, data, size);
    return 0;
}
