// formats::AudioFileReader (the audio input of `sonotype classify` and the app's file analysis) with crafted headers. Reproducers
// found by Tests/fuzz/AudioFileFuzzer.cpp live in Tests/fuzz/regressions/audio_file/.
#include "formats/AudioFileReader.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SONOTYPE_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SONOTYPE_TEST_SANITIZED 1
#endif

namespace sonotype::testing
{
namespace
{
    void put16 (std::vector<std::uint8_t>& b, unsigned v) { b.push_back (v & 0xFF), b.push_back ((v >> 8) & 0xFF); }
    void put32 (std::vector<std::uint8_t>& b, std::uint32_t v) { put16 (b, v & 0xFFFF), put16 (b, v >> 16); }

    /** A 16-bit PCM WAV of `frames` frames, every sample of every channel `value`. */
    std::string writeWav (unsigned channels, unsigned frames, std::int16_t value)
    {
        const std::uint32_t dataBytes = channels * frames * 2;
        std::vector<std::uint8_t> b { 'R', 'I', 'F', 'F' };
        put32 (b, 36 + dataBytes);
        for (char c : std::string ("WAVEfmt "))
            b.push_back (static_cast<std::uint8_t> (c));
        put32 (b, 16);
        put16 (b, 1);
        put16 (b, channels);
        put32 (b, 8000);
        put32 (b, 8000 * channels * 2);
        put16 (b, channels * 2);
        put16 (b, 16);
        for (char c : std::string ("data"))
            b.push_back (static_cast<std::uint8_t> (c));
        put32 (b, dataBytes);
        for (std::uint32_t i = 0; i < channels * frames; ++i)
            put16 (b, static_cast<std::uint16_t> (value));
        const auto path = "/tmp/sonotype-reader-test-" + std::to_string (::getpid()) + ".wav";
        std::ofstream (path, std::ios::binary).write (reinterpret_cast<const char*> (b.data()), static_cast<std::streamsize> (b.size()));
        return path;
    }

    /** Limits this process's address space to what it uses now plus `extraBytes` while in scope
        (not under the sanitizers, which reserve terabytes of shadow memory). */
    class ScopedAddressSpaceLimit
    {
    public:
        explicit ScopedAddressSpaceLimit (std::size_t extraBytes)
        {
#ifndef SONOTYPE_TEST_SANITIZED
            long pages = 0;
            if (std::FILE* f = std::fopen ("/proc/self/statm", "r"))
            {
                if (std::fscanf (f, "%ld", &pages) != 1)
                    pages = 0;
                std::fclose (f);
            }
            if (pages > 0 && ::getrlimit (RLIMIT_AS, &saved_) == 0)
            {
                rlimit limit = saved_;
                limit.rlim_cur = static_cast<rlim_t> (pages) * static_cast<rlim_t> (::sysconf (_SC_PAGESIZE)) + extraBytes;
                active_ = ::setrlimit (RLIMIT_AS, &limit) == 0;
            }
#else
            (void) extraBytes;
#endif
        }
        ~ScopedAddressSpaceLimit()
        {
            if (active_)
                ::setrlimit (RLIMIT_AS, &saved_);
        }

    private:
        rlimit saved_ {};
        bool active_ = false;
    };
} // namespace

TEST_CASE ("a WAV header with thousands of channels is refused before anything is allocated", "[formats][audio]")
{
    // 32767: the most JUCE reads (it takes the field as signed). Before: a read buffer of channels x
    // 65536 floats (8.6 GB; std::bad_alloc under the limit here), then JUCE's WAV reader looped
    // forever (its 5760-byte buffer holds no whole frame).
    const auto path = writeWav (32767, 2, 16384);
    {
        ScopedAddressSpaceLimit limit (std::size_t { 512 } << 20);
        CHECK_THROWS_WITH (formats::AudioFileReader (path), Catch::Contains ("32767 channels; at most 256"));
    }
    std::remove (path.c_str());
}

TEST_CASE ("a WAV with the most channels supported is read, in small blocks", "[formats][audio]")
{
    const auto path = writeWav (256, 5000, 16384);
    std::vector<float> mono (6000);
    std::size_t read = 0;
    {
        ScopedAddressSpaceLimit limit (std::size_t { 512 } << 20);
        formats::AudioFileReader reader (path);
        CHECK (reader.numChannels() == 256);
        CHECK (reader.lengthInSamples() == 5000);
        for (std::size_t n; (n = reader.readMono (mono.data() + read, mono.size() - read)) > 0;)
        {
            CHECK (n <= 4096); // (1 << 20) samples over 256 channels
            read += n;
        }
    }
    std::remove (path.c_str());
    REQUIRE (read == 5000);
    for (std::size_t i = 0; i < read; ++i)
        if (mono[i] != Approx (0.5f))
            FAIL ("sample " << i << " is " << mono[i]);
}

TEST_CASE ("a WAV whose iXML or axml metadata is not valid UTF-8 is refused, valid metadata is read", "[formats][audio]")
{
    // JUCE's XML parser read past its string on such a chunk (ASan heap-buffer-overflow).
    for (const char* id : { "iXML", "axml" })
        for (const std::string& text : { std::string ("<BWFXML>\xff\xff\xff</BWFXML>"), std::string ("<BWFXML>caf\xc3\xa9</BWFXML>") })
        {
            INFO (id << " " << text);
            const auto wav = writeWav (1, 100, 16384);
            std::vector<char> bytes;
            {
                std::ifstream in (wav, std::ios::binary);
                bytes.assign (std::istreambuf_iterator<char> (in), {});
            }
            // Insert the chunk before "data" (after the 12-byte RIFF header and the 24-byte fmt chunk).
            std::string chunk (id, 4);
            const auto size = static_cast<std::uint32_t> (text.size());
            for (int i = 0; i < 4; ++i)
                chunk += static_cast<char> ((size >> (8 * i)) & 0xFF);
            chunk += text;
            if (size & 1u)
                chunk += '\0';
            bytes.insert (bytes.begin() + 36, chunk.begin(), chunk.end());
            const auto riffSize = static_cast<std::uint32_t> (bytes.size() - 8);
            for (int i = 0; i < 4; ++i)
                bytes[static_cast<std::size_t> (4 + i)] = static_cast<char> ((riffSize >> (8 * i)) & 0xFF);
            std::ofstream (wav, std::ios::binary).write (bytes.data(), static_cast<std::streamsize> (bytes.size()));

            const bool valid = text.find ('\xff') == std::string::npos;
            if (valid)
            {
                formats::AudioFileReader reader (wav);
                CHECK (reader.lengthInSamples() == 100);
            }
            else
                CHECK_THROWS_WITH (formats::AudioFileReader (wav), Catch::Contains ("metadata chunk is not valid UTF-8"));
            std::remove (wav.c_str());
        }
}

TEST_CASE ("a WAV metadata chunk claiming more bytes than the file holds is refused", "[formats][audio]")
{
    // Found by the fuzzer: 83 bytes claiming a 1.8 GB "cue " chunk; JUCE allocated it and made
    // tens of millions of metadata entries (40 s, gigabytes).
    const auto path = std::string (SONOTYPE_SOURCE_DIR) + "/Tests/fuzz/regressions/audio_file/wav-cue-chunk-1.8gb.wav";
    CHECK_THROWS_WITH (formats::AudioFileReader (path), Catch::Contains ("'cue ' chunk claims 1819569510 bytes"));
}

TEST_CASE ("audio files found by the fuzzer are read or refused with an AudioFileError", "[formats][audio]")
{
    const std::string folder = SONOTYPE_SOURCE_DIR "/Tests/fuzz/regressions/audio_file/";
    for (const char* name : { "wav-10770-channels.wav", "wav-ixml-utf8-overread.wav", "wav-cue-chunk-1.8gb.wav", "riff-chunk-size-wrap.mp3" })
    {
        INFO (name);
        ScopedAddressSpaceLimit limit (std::size_t { 512 } << 20);
        try
        {
            formats::AudioFileReader reader (folder + name);
            std::array<float, 4096> block {};
            while (reader.readMono (block.data(), block.size()) > 0)
            {
            }
        }
        catch (const formats::AudioFileError&)
        {
        }
    }
}

} // namespace sonotype::testing
