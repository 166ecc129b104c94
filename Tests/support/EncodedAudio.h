// Test material for the compressed-format readers (MP3, Opus): a WAV of tones written byte by byte,
// the reader's samples, and how alike two signals are. The encoders are the `lame` and `opusenc`
// commands (scripts/install-deps.sh installs them).
#pragma once

#include "formats/AudioFileReader.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace sonotype::testing
{

/** A file name in /tmp for this test process: /tmp/sonotype-<tag>-test-<pid>-<name>. */
inline std::string scratchPath (const std::string& tag, const std::string& name)
{
    return "/tmp/sonotype-" + tag + "-test-" + std::to_string (::getpid()) + "-" + name;
}

/** A mono 16-bit WAV of two tones and a decaying chirp; returns the samples written. */
inline std::vector<float> writeToneWav (const std::string& path, unsigned rate, unsigned frames)
{
    const auto put16 = [] (std::vector<std::uint8_t>& b, unsigned v) { b.push_back (v & 0xFF), b.push_back ((v >> 8) & 0xFF); };
    const auto put32 = [&] (std::vector<std::uint8_t>& b, std::uint32_t v) { put16 (b, v & 0xFFFF), put16 (b, v >> 16); };
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

/** Every sample the reader gives, to the end. */
inline std::vector<float> readAll (formats::AudioFileReader& reader)
{
    std::vector<float> out;
    std::vector<float> block (4096);
    while (const auto n = reader.readMono (block.data(), block.size()))
        out.insert (out.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t> (n));
    return out;
}

/** Normalised correlation of a[i] with b[i + lag] over their overlap. */
inline double correlation (const std::vector<float>& a, const std::vector<float>& b, long lag)
{
    double ab = 0, aa = 0, bb = 0;
    for (long i = std::max (0L, -lag); i < static_cast<long> (a.size()) && i + lag < static_cast<long> (b.size()); ++i)
    {
        const double x = a[static_cast<std::size_t> (i)], y = b[static_cast<std::size_t> (i + lag)];
        ab += x * y, aa += x * x, bb += y * y;
    }
    return aa > 0 && bb > 0 ? ab / std::sqrt (aa * bb) : 0.0;
}

inline double rms (const std::vector<float>& x)
{
    double sum = 0;
    for (float v : x)
        sum += static_cast<double> (v) * v;
    return std::sqrt (sum / static_cast<double> (x.size()));
}

/** Runs an encoder's command line; the test fails, naming the package, if it cannot. */
inline void runEncoder (const std::string& command, const char* package)
{
    if (std::system (command.c_str()) != 0)
        FAIL ("`" << command << "` failed: is " << package << " installed (scripts/install-deps.sh)?");
}

} // namespace sonotype::testing
