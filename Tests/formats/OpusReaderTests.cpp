// Ogg Opus files through formats::AudioFileReader (libopusfile: formats/OpusAudioFormat.h). The Opus
// file is made with the `opusenc` command (opus-tools; scripts/install-deps.sh installs it) from a WAV
// this test writes.
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
    std::string scratch (const std::string& name) { return scratchPath ("opus", name); }

    void encode (const std::string& wav, const std::string& opus, const std::string& bitrate)
    {
        runEncoder ("opusenc --quiet --bitrate " + bitrate + " '" + wav + "' '" + opus + "'", "opusenc (opus-tools)");
    }
} // namespace

TEST_CASE ("an Opus file is read: 48 kHz, exact length, samples aligned with its source (pre-skip removed)", "[formats][audio][opus]")
{
    // Opus decodes at 48 kHz whatever the source's rate (opusenc resamples other rates), so the
    // source is 48 kHz: the decoded length must equal its length exactly.
    const unsigned rate = 48000;
    const auto wav = scratch ("source.wav"), opus = scratch ("encoded.opus");
    const unsigned frames = rate * 3 / 2 + 123; // not a whole number of 20 ms Opus frames
    const auto source = writeToneWav (wav, rate, frames);
    encode (wav, opus, "128");
    REQUIRE (formats::isReadableAudioFile (opus));

    formats::AudioFileReader reader (opus);
    CHECK (reader.sampleRate() == 48000.0);
    CHECK (reader.numChannels() == 1);
    // The Ogg Opus header's pre-skip and the end trimming of the last granule position are applied
    // by opusfile: the decoded file is exactly as long as the source and lines up with it.
    CHECK (reader.lengthInSamples() == frames);
    CHECK (reader.truncationWarning().empty());
    const auto decoded = readAll (reader);
    REQUIRE (decoded.size() == frames);

    long bestLag = 0;
    double best = -1.0;
    for (long lag = -2400; lag <= 2400; ++lag)
        if (const double c = correlation (source, decoded, lag); c > best)
            best = c, bestLag = lag;
    CHECK (bestLag == 0);
    CHECK (correlation (source, decoded, 0) > 0.99);
    CHECK (rms (decoded) == Approx (rms (source)).epsilon (0.1));
    std::remove (wav.c_str());
    std::remove (opus.c_str());
}

TEST_CASE ("a truncated Opus file is read as far as it goes, and a file named .opus that holds no Opus is refused clearly",
           "[formats][audio][opus]")
{
    const auto wav = scratch ("source.wav"), opus = scratch ("encoded.opus");
    const unsigned frames = 48000 * 2;
    writeToneWav (wav, 48000, frames);
    encode (wav, opus, "96");
    std::vector<char> bytes;
    {
        std::ifstream in (opus, std::ios::binary);
        bytes.assign (std::istreambuf_iterator<char> (in), {});
    }
    {
        // Cut mid-page: opusfile's length is that of the last complete page, and all of it is read.
        std::ofstream (opus, std::ios::binary).write (bytes.data(), static_cast<std::streamsize> (bytes.size() / 2));
        formats::AudioFileReader reader (opus);
        CHECK (reader.sampleRate() == 48000.0);
        const auto decoded = readAll (reader);
        CHECK (decoded.size() == static_cast<std::size_t> (reader.lengthInSamples()));
        CHECK (decoded.size() > frames / 4);
        CHECK (decoded.size() < frames * 3 / 4);
    }
    // Text, the Ogg Opus headers alone (no audio pages), and an Ogg Vorbis-looking capture pattern
    // with nothing after it.
    std::string headersOnly;
    {
        // The first two pages hold OpusHead and OpusTags; keep the bytes up to the third "OggS".
        const std::string all (bytes.begin(), bytes.end());
        std::size_t at = 0;
        for (int page = 0; page < 3 && at != std::string::npos; ++page)
            at = all.find ("OggS", page == 0 ? 0 : at + 4);
        REQUIRE (at != std::string::npos);
        headersOnly = all.substr (0, at);
    }
    const std::string oggOnly = std::string ("OggS\0\x02", 6) + std::string (40, '\0');
    for (const std::string& content : { std::string ("this is not audio\n"), headersOnly, oggOnly })
    {
        std::ofstream (opus, std::ios::binary).write (content.data(), static_cast<std::streamsize> (content.size()));
        CHECK_THROWS_WITH (formats::AudioFileReader (opus), Catch::Contains ("not a readable audio file"));
    }
    std::remove (wav.c_str());
    std::remove (opus.c_str());
}

} // namespace sonotype::testing
