// timeline::forEachBlock, the one loop over a file's samples (classify, the app's file analysis,
// per-hit analysis, teaching): blocks of WindowAnalyzer::fileBlockSamples, every sample once and in
// order, a limit and a stop; samples in memory in the same blocks as a file of them.
#include "formats/AudioFileReader.h"
#include "runtime/WindowAnalyzer.h"
#include "timeline/FileBlocks.h"

#include <catch2/catch.hpp>
#include <juce_audio_formats/juce_audio_formats.h>

#include <cstdio>
#include <unistd.h>

using namespace sonotype;

namespace
{
std::string scratch (const std::string& name)
{
    return "/tmp/sonotype-file-blocks-test-" + std::to_string (::getpid()) + "-" + name;
}

/** A ramp of distinct values (exact as 32-bit floats), written as a mono float WAV. */
std::vector<float> writeRamp (const std::string& path, std::size_t numSamples, double rate)
{
    std::vector<float> samples (numSamples);
    for (std::size_t i = 0; i < numSamples; ++i)
        samples[i] = static_cast<float> (i % 100000) / 131072.0f;
    juce::File file (path);
    file.deleteFile();
    juce::WavAudioFormat wav;
    std::unique_ptr<juce::AudioFormatWriter> writer (wav.createWriterFor (file.createOutputStream().release(), rate, 1, 32, {}, 0));
    REQUIRE (writer != nullptr);
    const float* channels[] = { samples.data() };
    REQUIRE (writer->writeFromFloatArrays (channels, 1, static_cast<int> (samples.size())));
    return samples;
}

struct Blocks
{
    std::vector<std::size_t> sizes;
    std::vector<float> samples;

    timeline::BlockHandler handler (int stopAfter = -1)
    {
        return [this, stopAfter] (std::span<const float> block) {
            sizes.push_back (block.size());
            samples.insert (samples.end(), block.begin(), block.end());
            return stopAfter < 0 || static_cast<int> (sizes.size()) < stopAfter;
        };
    }
};
} // namespace

TEST_CASE ("a file is read in blocks of fileBlockSamples, every sample once, in order", "[timeline][files]")
{
    for (const double rate : { 44100.0, 8000.0 })
    {
        INFO (rate);
        const auto block = runtime::WindowAnalyzer::fileBlockSamples (rate);
        CHECK (block == (rate == 44100.0 ? 16384u : 16000u));
        const auto path = scratch ("ramp.wav");
        const auto samples = writeRamp (path, 3 * block + 100, rate);
        formats::AudioFileReader reader (path);
        Blocks blocks;
        CHECK (timeline::forEachBlock (reader, blocks.handler()) == static_cast<int64_t> (samples.size()));
        CHECK (blocks.sizes == std::vector<std::size_t> { block, block, block, 100 });
        CHECK (blocks.samples == samples);

        // Samples in memory: the blocks a file of them gives.
        Blocks inMemory;
        CHECK (timeline::forEachBlock (samples, rate, inMemory.handler()) == static_cast<int64_t> (samples.size()));
        CHECK (inMemory.sizes == blocks.sizes);
        CHECK (inMemory.samples == samples);
        std::remove (path.c_str());
    }
}

TEST_CASE ("a block loop skips, reads at most so many samples, and stops when asked", "[timeline][files]")
{
    const auto path = scratch ("limits.wav");
    const auto samples = writeRamp (path, 50000, 44100.0);
    {
        // Skip 1000 samples, then read 20000: what a region of a file takes (the Teach view's).
        formats::AudioFileReader reader (path);
        CHECK (timeline::forEachBlock (reader, {}, 1000) == 1000);
        Blocks region;
        CHECK (timeline::forEachBlock (reader, region.handler(), 20000) == 20000);
        CHECK (region.sizes == std::vector<std::size_t> { 16384, 20000 - 16384 });
        CHECK (region.samples == std::vector<float> (samples.begin() + 1000, samples.begin() + 21000));
        Blocks rest;
        CHECK (timeline::forEachBlock (reader, rest.handler()) == 29000);
        CHECK (rest.samples.front() == samples[21000]);
    }
    {
        formats::AudioFileReader reader (path);
        Blocks first;
        CHECK (timeline::forEachBlock (reader, first.handler (1)) == 16384); // stopped after its first block
        CHECK (first.sizes.size() == 1);
        Blocks inMemory;
        CHECK (timeline::forEachBlock (samples, 44100.0, inMemory.handler (2)) == 2 * 16384);
    }
    std::remove (path.c_str());
}
