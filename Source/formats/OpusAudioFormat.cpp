#include "formats/OpusAudioFormat.h"

#include "formats/StreamSeek.h"

#include <opusfile.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

namespace sonotype::formats
{
namespace
{
    const char* const kFormatName = "Ogg Opus file";
    constexpr int kOpusRate = 48000; // Opus always decodes at 48 kHz
    constexpr int kMaxChannels = 8;  // channel mapping family 1's limit; more is refused

    // libopusfile reads through these, from the juce::InputStream the reader owns.
    int readCallback (void* handle, unsigned char* buffer, int bytes)
    {
        auto* stream = static_cast<juce::InputStream*> (handle);
        return bytes <= 0 ? 0 : stream->read (buffer, std::min (bytes, 1 << 20));
    }

    int seekCallback (void* handle, opus_int64 offset, int whence)
    {
        return seekStream (*static_cast<juce::InputStream*> (handle), offset, whence) ? 0 : -1;
    }

    opus_int64 tellCallback (void* handle) { return static_cast<juce::InputStream*> (handle)->getPosition(); }

    struct FileDeleter
    {
        void operator() (OggOpusFile* f) const { op_free (f); }
    };
    using Handle = std::unique_ptr<OggOpusFile, FileDeleter>;

    class OpusReader final : public juce::AudioFormatReader
    {
    public:
        explicit OpusReader (juce::InputStream* in) : juce::AudioFormatReader (in, kFormatName) {}

        /** Opens the stream; false when it holds no Ogg Opus audio opusfile accepts, or audio we refuse. */
        bool open()
        {
            // No close callback: the stream belongs to this reader (juce::AudioFormatReader::input).
            const OpusFileCallbacks callbacks { readCallback, seekCallback, tellCallback, nullptr };
            int error = 0;
            handle_.reset (op_open_callbacks (input, &callbacks, nullptr, 0, &error));
            if (handle_ == nullptr || error != 0)
                return false;
            auto* f = handle_.get();
            if (! op_seekable (f))
                return false; // the exact length needs a seekable stream
            const int channels = op_channel_count (f, 0);
            if (channels < 1 || channels > kMaxChannels)
                return false;
            // Every link of a chained stream must have the same channel count.
            const int links = op_link_count (f);
            if (links < 1)
                return false;
            for (int link = 1; link < links; ++link)
                if (op_channel_count (f, link) != channels)
                    return false;
            // The exact length over all links, pre-skip and end trimming accounted for.
            const auto length = op_pcm_total (f, -1);
            if (length <= 0)
                return false;
            sampleRate = kOpusRate;
            numChannels = static_cast<unsigned int> (channels);
            lengthInSamples = static_cast<juce::int64> (length);
            bitsPerSample = 32;
            usesFloatingPointData = true;
            interleaved_.resize (static_cast<size_t> (kBlockFrames * channels));
            return true;
        }

        bool readSamples (int* const* destSamples, int numDestChannels, int startOffsetInDestBuffer, juce::int64 startSampleInFile,
                          int numSamples) override
        {
            auto* f = handle_.get();
            if (startSampleInFile != position_)
            {
                if (op_pcm_seek (f, static_cast<ogg_int64_t> (startSampleInFile)) != 0)
                    return fail (destSamples, numDestChannels, startOffsetInDestBuffer, numSamples);
                position_ = startSampleInFile;
            }
            const int channels = static_cast<int> (numChannels);
            while (numSamples > 0)
            {
                const int frames = std::min (numSamples, kBlockFrames);
                int link = -1;
                const int got = op_read_float (f, interleaved_.data(), frames * channels, &link);
                // A negative result is an error (OP_HOLE: pages missing or corrupt); 0 the end of
                // the stream before its length; a link with another channel count is refused.
                if (got <= 0 || got > frames || link < 0 || op_channel_count (f, link) != channels)
                    return fail (destSamples, numDestChannels, startOffsetInDestBuffer, numSamples);
                for (int c = 0; c < numDestChannels; ++c)
                    if (destSamples[c] != nullptr)
                    {
                        auto* dest = reinterpret_cast<float*> (destSamples[c]) + startOffsetInDestBuffer;
                        const int source = std::min (c, channels - 1);
                        for (int i = 0; i < got; ++i)
                            dest[i] = interleaved_[static_cast<size_t> (i * channels + source)];
                    }
                startOffsetInDestBuffer += got;
                numSamples -= got;
                position_ += got;
            }
            return true;
        }

    private:
        static constexpr int kBlockFrames = 5760; // 120 ms at 48 kHz, the longest Opus packet

        /** Zeros what was not read and reports the failure. */
        bool fail (int* const* destSamples, int numDestChannels, int startOffset, int numSamples)
        {
            for (int c = 0; c < numDestChannels; ++c)
                if (destSamples[c] != nullptr && numSamples > 0)
                    std::fill_n (reinterpret_cast<float*> (destSamples[c]) + startOffset, numSamples, 0.0f);
            position_ = -1; // seek before the next read
            return false;
        }

        Handle handle_;
        std::vector<float> interleaved_;
        juce::int64 position_ = 0;
    };
} // namespace

OpusAudioFormat::OpusAudioFormat() : juce::AudioFormat (kFormatName, ".opus") {}

juce::Array<int> OpusAudioFormat::getPossibleSampleRates()
{
    return { kOpusRate };
}

juce::Array<int> OpusAudioFormat::getPossibleBitDepths()
{
    return { 32 };
}

juce::AudioFormatReader* OpusAudioFormat::createReaderFor (juce::InputStream* sourceStream, bool deleteStreamIfOpeningFails)
{
    auto reader = std::make_unique<OpusReader> (sourceStream);
    if (reader->open())
        return reader.release();
    if (! deleteStreamIfOpeningFails)
        reader->input = nullptr;
    return nullptr; // (the decoder is freed before the stream: members go before the base class)
}

} // namespace sonotype::formats
