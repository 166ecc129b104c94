#include "timeline/FileBlocks.h"

#include "formats/AudioFileReader.h"
#include "runtime/WindowAnalyzer.h"

#include <algorithm>
#include <vector>

namespace sonotype::timeline
{

int64_t forEachBlock (formats::AudioFileReader& reader, const BlockHandler& onBlock, int64_t maxSamples)
{
    std::vector<float> block (runtime::WindowAnalyzer::fileBlockSamples (reader.sampleRate()));
    int64_t numRead = 0;
    while (numRead < maxSamples)
    {
        const auto wanted = static_cast<std::size_t> (std::min<int64_t> (static_cast<int64_t> (block.size()), maxSamples - numRead));
        const auto count = reader.readMono (block.data(), wanted);
        if (count == 0)
            break;
        numRead += static_cast<int64_t> (count);
        if (onBlock && ! onBlock (std::span<const float> (block.data(), count)))
            break;
    }
    return numRead;
}

int64_t forEachBlock (std::span<const float> samples, double sampleRate, const BlockHandler& onBlock)
{
    const auto blockSize = runtime::WindowAnalyzer::fileBlockSamples (sampleRate);
    std::size_t position = 0;
    while (position < samples.size())
    {
        const auto block = samples.subspan (position, std::min (blockSize, samples.size() - position));
        position += block.size();
        if (onBlock && ! onBlock (block))
            break;
    }
    return static_cast<int64_t> (position);
}

} // namespace sonotype::timeline
