// MP3 files through formats::AudioFileReader (libmpg123: formats/Mp3AudioFormat.h). The MP3 is made
// with the `lame` command (scripts/install-deps.sh installs it) from a WAV this test writes.
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

    std::string scratch (const std::string& name) { return "/tmp/sonotype-mp3-test-" + std::to_string (::getpid()) + "-" + name; }

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

    void encode (const std::string& wav, const std::string& mp3, const std::string& bitrate)
    {
        const auto command = "lame --quiet -b " + bitrate + " '" + wav + "' '" + mp3 + "'";
        if (std::system (command.c_str()) != 0)
            FAIL ("`" << command << "` failed: is lame installed (scripts/install-deps.sh)?");
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
        REQUIRE (formats::hasAudioExtension (mp3));

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
