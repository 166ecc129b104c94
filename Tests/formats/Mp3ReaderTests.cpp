// MP3 files through formats::AudioFileReader (libmpg123: formats/Mp3AudioFormat.h). The MP3 is made
// with the `lame` command (scripts/install-deps.sh installs it) from a WAV this test writes.
#include "formats/AudioFileReader.h"
#include "support/EncodedAudio.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

namespace sonotype::testing
{
namespace
{
    std::string scratch (const std::string& name) { return scratchPath ("mp3", name); }

    void encode (const std::string& wav, const std::string& mp3, const std::string& bitrate)
    {
        runEncoder ("lame --quiet -b " + bitrate + " '" + wav + "' '" + mp3 + "'", "lame");
    }
} // namespace

TEST_CASE ("an MP3 is read: exact length and rate, samples aligned with its source (encoder delay and padding removed)", "[formats][audio][mp3]")
{
    // 44.1 kHz is MPEG-1 (1152 samples a frame), 16 kHz MPEG-2 (576).
    for (const auto& [rate, bitrate] : { std::pair<unsigned, const char*> { 44100, "192" }, { 16000, "64" } })
    {
        INFO (rate << " Hz");
        const auto wav = scratch ("source.wav"), mp3 = scratch ("encoded.mp3");
        const unsigned frames = rate * 3 / 2 + 123; // not a whole number of MP3 frames
        const auto source = writeToneWav (wav, rate, frames);
        encode (wav, mp3, bitrate);
        REQUIRE (formats::isReadableAudioFile (mp3));

        formats::AudioFileReader reader (mp3);
        CHECK (reader.sampleRate() == rate);
        CHECK (reader.numChannels() == 1);
        // LAME's tag records its encoder delay and padding; libmpg123 drops them (gapless), so
        // the decoded file is exactly as long as the source and lines up with it.
        CHECK (reader.lengthInSamples() == frames);
        const auto decoded = readAll (reader);
        REQUIRE (decoded.size() == frames);

        long bestLag = 0;
        double best = -1.0;
        for (long lag = -2400; lag <= 2400; ++lag)
            if (const double c = correlation (source, decoded, lag); c > best)
                best = c, bestLag = lag;
        CHECK (bestLag == 0);
        CHECK (correlation (source, decoded, 0) > 0.99);
        CHECK (rms (decoded) == Approx (rms (source)).epsilon (0.1)); // (at 16 kHz LAME low-passes the chirp's top)
        std::remove (wav.c_str());
        std::remove (mp3.c_str());
    }
}

TEST_CASE ("a truncated MP3 is read as far as it goes, and a file named .mp3 that holds no MP3 is refused clearly", "[formats][audio][mp3]")
{
    const auto wav = scratch ("source.wav"), mp3 = scratch ("encoded.mp3");
    const unsigned frames = 44100;
    writeToneWav (wav, 44100, frames);
    encode (wav, mp3, "128");
    std::vector<char> bytes;
    {
        std::ifstream in (mp3, std::ios::binary);
        bytes.assign (std::istreambuf_iterator<char> (in), {});
    }
    {
        std::ofstream (mp3, std::ios::binary).write (bytes.data(), static_cast<std::streamsize> (bytes.size() / 2));
        formats::AudioFileReader reader (mp3);
        const auto decoded = readAll (reader);
        CHECK (decoded.size() == static_cast<std::size_t> (reader.lengthInSamples()));
        CHECK (decoded.size() > frames / 4);
        CHECK (decoded.size() < frames * 3 / 4);
    }
    // Text, an ID3 tag with nothing after it, and the MP3's bytes with every frame header wiped.
    const std::string id3 = std::string ("ID3\x04\x00\x00\x00\x00\x00\x10", 10) + std::string (16, '\0');
    std::string wiped (bytes.begin(), bytes.end());
    for (std::size_t i = 0; i + 1 < wiped.size(); ++i)
        if (static_cast<unsigned char> (wiped[i]) == 0xFF)
            wiped[i] = 0;
    for (const std::string& content : { std::string ("this is not audio\n"), id3, wiped })
    {
        std::ofstream (mp3, std::ios::binary).write (content.data(), static_cast<std::streamsize> (content.size()));
        CHECK_THROWS_WITH (formats::AudioFileReader (mp3), Catch::Contains ("not a readable audio file"));
    }
    std::remove (wav.c_str());
    std::remove (mp3.c_str());
}

} // namespace sonotype::testing
