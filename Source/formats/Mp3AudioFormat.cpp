#include "formats/Mp3AudioFormat.h"

#include "formats/StreamSeek.h"

#include <mpg123.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace sonotype::formats
{
namespace
{
    const char* const kFormatName = "MP3 file";

    // libmpg123 reads through these, from the juce::InputStream the reader owns.
    mpg123_ssize_t readCallback (void* handle, void* buffer, size_t bytes)
    {
        auto* stream = static_cast<juce::InputStream*> (handle);
        const auto wanted = static_cast<int> (std::min<size_t> (bytes, 1 << 20));
        return stream->read (buffer, wanted);
    }

    off_t seekCallback (void* handle, off_t offset, int whence)
    {
        auto* stream = static_cast<juce::InputStream*> (handle);
        return seekStream (*stream, offset, whence) ? static_cast<off_t> (stream->getPosition()) : -1;
    }

    struct HandleDeleter
    {
        void operator() (mpg123_handle* h) const
        {
            mpg123_close (h);
            mpg123_delete (h);
        }
    };
    using Handle = std::unique_ptr<mpg123_handle, HandleDeleter>;

    class Mp3Reader final : public juce::AudioFormatReader
    {
    public:
        explicit Mp3Reader (juce::InputStream* in) : juce::AudioFormatReader (in, kFormatName) {}

        /** Opens the stream; false when it holds no MP3 audio libmpg123 accepts. */
        bool open()
        {
            int error = MPG123_OK;
            handle_.reset (mpg123_new (nullptr, &error));
            if (handle_ == nullptr)
                return false;
            auto* h = handle_.get();
            const long flags = MPG123_QUIET | MPG123_FORCE_FLOAT | MPG123_SKIP_ID3V2 | MPG123_NO_FRANKENSTEIN | MPG123_GAPLESS;
            if (mpg123_param (h, MPG123_ADD_FLAGS, flags, 0.0) != MPG123_OK
                || mpg123_format_none (h) != MPG123_OK
                || mpg123_replace_reader_handle (h, readCallback, seekCallback, nullptr) != MPG123_OK)
                return false;
            const long* rates = nullptr;
            size_t numRates = 0;
            mpg123_rates (&rates, &numRates);
            for (size_t i = 0; i < numRates; ++i)
                if (mpg123_format (h, rates[i], MPG123_MONO | MPG123_STEREO, MPG123_ENC_FLOAT_32) != MPG123_OK)
                    return false;
            if (mpg123_open_handle (h, input) != MPG123_OK)
                return false;
            long rate = 0;
            int channels = 0, encoding = 0;
            if (mpg123_getformat (h, &rate, &channels, &encoding) != MPG123_OK || rate <= 0 || channels < 1 || channels > 2
                || encoding != MPG123_ENC_FLOAT_32)
                return false;
            // The exact length: scan every frame (linear in the file's size; no decoding).
            if (mpg123_scan (h) != MPG123_OK)
                return false;
            const auto length = mpg123_length (h);
            if (length <= 0)
                return false;
            sampleRate = static_cast<double> (rate);
            numChannels = static_cast<unsigned int> (channels);
            lengthInSamples = static_cast<juce::int64> (length);
            bitsPerSample = 32;
            usesFloatingPointData = true;
            rate_ = rate;
            interleaved_.resize (static_cast<size_t> (kBlockFrames * channels));
            return true;
        }

        bool readSamples (int* const* destSamples, int numDestChannels, int startOffsetInDestBuffer, juce::int64 startSampleInFile,
                          int numSamples) override
        {
            auto* h = handle_.get();
            if (startSampleInFile != position_)
            {
                if (mpg123_seek (h, static_cast<off_t> (startSampleInFile), SEEK_SET) < 0)
                    return fail (destSamples, numDestChannels, startOffsetInDestBuffer, numSamples);
                position_ = startSampleInFile;
            }
            const int channels = static_cast<int> (numChannels);
            while (numSamples > 0)
            {
                const int frames = std::min (numSamples, kBlockFrames);
                size_t done = 0;
                const int result = mpg123_read (h, interleaved_.data(), static_cast<size_t> (frames * channels) * sizeof (float), &done);
                const int got = static_cast<int> (done / (sizeof (float) * static_cast<size_t> (channels)));
                if (result == MPG123_NEW_FORMAT)
                {
                    long rate = 0;
                    int newChannels = 0, encoding = 0;
                    mpg123_getformat (h, &rate, &newChannels, &encoding);
                    if (rate != rate_ || newChannels != channels || encoding != MPG123_ENC_FLOAT_32)
                        return fail (destSamples, numDestChannels, startOffsetInDestBuffer, numSamples);
                }
                else if (result != MPG123_OK && result != MPG123_DONE)
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
                if (got == 0 && result != MPG123_NEW_FORMAT)
                    return fail (destSamples, numDestChannels, startOffsetInDestBuffer, numSamples); // ended before its length
            }
            return true;
        }

    private:
        static constexpr int kBlockFrames = 4096;

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
        long rate_ = 0;
    };
} // namespace

Mp3AudioFormat::Mp3AudioFormat() : juce::AudioFormat (kFormatName, ".mp3") {}

juce::Array<int> Mp3AudioFormat::getPossibleSampleRates()
{
    return { 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000 };
}

juce::Array<int> Mp3AudioFormat::getPossibleBitDepths()
{
    return { 32 };
}

juce::AudioFormatReader* Mp3AudioFormat::createReaderFor (juce::InputStream* sourceStream, bool deleteStreamIfOpeningFails)
{
    auto reader = std::make_unique<Mp3Reader> (sourceStream);
    if (reader->open())
        return reader.release();
    if (! deleteStreamIfOpeningFails)
        reader->input = nullptr;
    return nullptr;
}

} // namespace sonotype::formats
