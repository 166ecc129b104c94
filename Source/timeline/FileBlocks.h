// The one loop over a sound's mono samples that every file analysis runs (FileAnalysis,
// HitAnalysis, teaching from files): block by block, in blocks of
// runtime::WindowAnalyzer::fileBlockSamples (the size the analyzer's memory and the core's cache
// are planned for), so that memory stays bounded whatever the file's length.
// One thread per call; nothing shared.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <span>

namespace sonotype::formats
{
class AudioFileReader;
}

namespace sonotype::timeline
{

/** What a loop does with each block of samples (valid during the call); false stops the loop. */
using BlockHandler = std::function<bool (std::span<const float> block)>;

inline constexpr int64_t kToTheEnd = std::numeric_limits<int64_t>::max();

/** Reads `reader` on from where it is, to its end or for at most maxSamples samples, block by block,
    handing each block to onBlock until it returns false. Returns how many samples were read (the
    last block's included when onBlock stopped the loop). Throws as AudioFileReader::readMono. Skipping
    to a point of the file is a loop whose handler does nothing: forEachBlock (reader, {}, n). */
int64_t forEachBlock (formats::AudioFileReader& reader, const BlockHandler& onBlock, int64_t maxSamples = kToTheEnd);

/** The same loop over samples in memory at `sampleRate` (a sound recorded from the input): the blocks
    a file of these samples would give. */
int64_t forEachBlock (std::span<const float> samples, double sampleRate, const BlockHandler& onBlock);

} // namespace sonotype::timeline
