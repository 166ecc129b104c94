// Ogg Opus files through formats::AudioFileReader (libopusfile: formats/OpusAudioFormat.h). The Opus
// file is made with the `opusenc` command (opus-tools; scripts/install-deps.sh installs it) from a WAV
// this test writes.
#include "formats/AudioFileReader.h"

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
    void put16 (std::vector<std::uint8_t>& b, unsigned v) { b.push_back (v & 0xFF), b.push_back ((v >> 8) & 0xFF); }
    void put32 (std::vector<std::uint8_t>& b, std::uint32_t v) { put16 (b, v & 0xFFFF), put16 (b, v >> 16); }

    std::string scratch (const std::string& name) { return "/tmp/sonotype-opus-test-" + std::to_string (::getpid()) + "-" + name; }

    /** A mono 16-bit WAV of two tones and a decaying chirp; returns the samples written. */
    std::vector<float> writeToneWav (const std::string& path, unsigned rate, unsigned frames)
    {
        std::vector<float> samples (frames);
        for (unsigned i = 0; i < frames; ++i)
        {
            const double t = static_cast<double> (i) / rate;
            samples[i] = static_cast<float> (0.3 * std::sin (2 * M_PI * 440.0 * t) + 0.2 * std::sin (2 * M_PI * 1250.0 * t)
                                             + 0.2 * std::exp (-3.0 * t) * std::sin (2 * M_PI * (200.0 + 1500.0 * t) * t));
        }
        std::vector<std::uint8_t> b { 'R', 'I', 'F', 'F' };
        put32 (b, 36 + frames * 2);
        for (char c : std::string ("WAVEfmt "))
            b.push_back (static_cast<std::uint8_t> (c));
        put32 (b, 16);
        put16 (b, 1);
        put16 (b, 1);
        put32 (b, rate);
        put32 (b, rate * 2);
        put16 (b, 2);
        put16 (b, 16);
        for (char c : std::string ("data"))
            b.push_back (static_cast<std::uint8_t> (c));
        put32 (b, frames * 2);
        for (float s : samples)
            put16 (b, static_cast<std::uint16_t> (static_cast<std::int16_t> (std::lround (s * 32767.0f))));
        std::ofstream (path, std::ios::binary).write (reinterpret_cast<const char*> (b.data()), static_cast<std::streamsize> (b.size()));
        return samples;
    }

    std::vector<float> readAll (formats::AudioFileReader& reader)
    {
        std::vector<float> out;
        std::vector<float> block (4096);
        while (const auto n = reader.readMono (block.data(), block.size()))
            out.insert (out.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t> (n));
        return out;
    }

    /** Normalised correlation of a[i] with b[i + lag] over their overlap. */
    double correlation (const std::vector<float>& a, const std::vector<float>& b, long lag)
    {
        double ab = 0, aa = 0, bb = 0;
        for (long i = std::max (0L, -lag); i < static_cast<long> (a.size()) && i + lag < static_cast<long> (b.size()); ++i)
        {
            const double x = a[static_cast<std::size_t> (i)], y = b[static_cast<std::size_t> (i + lag)];
            ab += x * y, aa += x * x, bb += y * y;
        }
        return aa > 0 && bb > 0 ? ab / std::sqrt (aa * bb) : 0.0;
    }

    double rms (const std::vector<float>& x)
    {
        double sum = 0;
        for (float v : x)
            sum += static_cast<double> (v) * v;
        return std::sqrt (sum / static_cast<double> (x.size()));
    }

    void encode (const std::string& wav, const std::string& opus, const std::string& bitrate)
    {
        const auto command = "opusenc --quiet --bitrate " + bitrate + " '" + wav + "' '" + opus + "'";
        if (std::system (command.c_str()) != 0)
            FAIL ("`" << command << "` failed: is opusenc installed (opus-tools, scripts/install-deps.sh)?");
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
    REQUIRE (formats::hasAudioExtension (opus));

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
