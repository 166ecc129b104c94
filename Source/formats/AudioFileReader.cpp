#include "formats/AudioFileReader.h"

#include <juce_audio_formats/juce_audio_formats.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace sonotype::formats
{
namespace
{
    uint32_t readLE32 (const unsigned char* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t> (p[3]) << 24); }
    uint32_t readBE32 (const unsigned char* p) { return (static_cast<uint32_t> (p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3]; }

    /** Where the sample data of a WAV or AIFF file starts, found by walking its chunks; -1 if unknown. */
    int64_t pcmDataStart (const std::string& path)
    {
        std::ifstream file (path, std::ios::binary);
        unsigned char header[12];
        if (! file.read (reinterpret_cast<char*> (header), 12))
            return -1;
        const bool wav = std::memcmp (header, "RIFF", 4) == 0 && std::memcmp (header + 8, "WAVE", 4) == 0;
        const bool aiff = std::memcmp (header, "FORM", 4) == 0 && (std::memcmp (header + 8, "AIFF", 4) == 0 || std::memcmp (header + 8, "AIFC", 4) == 0);
        if (! wav && ! aiff)
            return -1;
        int64_t position = 12;
        unsigned char chunk[16];
        while (file.seekg (position) && file.read (reinterpret_cast<char*> (chunk), 8))
        {
            const uint32_t size = wav ? readLE32 (chunk + 4) : readBE32 (chunk + 4);
            if (wav && std::memcmp (chunk, "data", 4) == 0)
                return position + 8;
            if (aiff && std::memcmp (chunk, "SSND", 4) == 0)
            {
                if (! file.read (reinterpret_cast<char*> (chunk + 8), 8))
                    return -1;
                return position + 16 + readBE32 (chunk + 8);
            }
            // (In 64 bits: a size of 0xFFFFFFF7 made 8 + size + 1 wrap to 0 in 32 and the walk never ended.)
            position += 8 + static_cast<int64_t> (size) + (size & 1u);
        }
        return -1;
    }

    /** Refuses WAV metadata chunks that JUCE 7 would mishandle, before JUCE opens the file (found by
        Tests/fuzz/AudioFileFuzzer.cpp); walks the chunks as JUCE does. */
    void checkWavXmlChunks (const std::string& path)
    {
        std::ifstream file (path, std::ios::binary | std::ios::ate);
        const auto fileSize = static_cast<int64_t> (file.tellg());
        unsigned char header[12];
        if (fileSize < 12 || ! file.seekg (0) || ! file.read (reinterpret_cast<char*> (header), 12))
            return;
        if ((std::memcmp (header, "RIFF", 4) != 0 && std::memcmp (header, "RF64", 4) != 0) || std::memcmp (header + 8, "WAVE", 4) != 0)
            return;
        int64_t position = 12;
        unsigned char chunk[8];
        while (file.seekg (position) && file.read (reinterpret_cast<char*> (chunk), 8))
        {
            const uint32_t size = readLE32 (chunk + 4);
            // JUCE allocates and walks the chunks it reads as metadata by their claimed size (an
            // 83-byte file claiming a 1.8 GB "cue " chunk took 40 s and gigabytes): refuse a claim
            // beyond the end of the file (only the audio data may be cut short).
            static constexpr const char* metadataChunks[] = { "bext", "smpl", "inst", "INST", "cue ", "axml", "iXML", "LIST", "acid", "Trkn" };
            for (const char* id : metadataChunks)
                if (std::memcmp (chunk, id, 4) == 0 && static_cast<int64_t> (size) > fileSize - position - 8)
                    throw AudioFileError (std::string ("its '") + id + "' chunk claims " + std::to_string (size) + " bytes but the file has "
                                          + std::to_string (fileSize - position - 8) + " left (damaged file)");
            const bool ixml = std::memcmp (chunk, "iXML", 4) == 0, axml = std::memcmp (chunk, "axml", 4) == 0;
            // JUCE parses "iXML" and "axml" with its XML parser, which reads past the end of its
            // string on malformed UTF-8.
            if (ixml || axml)
            {
                const auto length = std::min<int64_t> (size, fileSize - position - 8);
                if (length > (int64_t { 1 } << 24))
                    throw AudioFileError (std::string ("its ") + (ixml ? "iXML" : "axml") + " metadata chunk is larger than 16 MB");
                std::string text (static_cast<std::size_t> (std::max<int64_t> (length, 0)), '\0');
                file.read (text.data(), static_cast<std::streamsize> (text.size()));
                if (! juce::CharPointer_UTF8::isValidString (text.data(), static_cast<int> (text.size())))
                    throw AudioFileError (std::string ("its ") + (ixml ? "iXML" : "axml") + " metadata chunk is not valid UTF-8 (damaged file)");
                file.clear();
            }
            position += 8 + static_cast<int64_t> (size) + (size & 1u);
        }
    }
} // namespace

std::unique_ptr<juce::AudioFormatReader> openAudioFile (const std::string& path)
{
    const juce::File file (juce::File::getCurrentWorkingDirectory().getChildFile (juce::String (path)));
    if (! file.existsAsFile())
        throw AudioFileError (file.isDirectory() ? "is a folder" : "no such file");
    checkWavXmlChunks (file.getFullPathName().toStdString());
    juce::AudioFormatManager formats;
    registerFormats (formats);
    std::unique_ptr<juce::AudioFormatReader> reader (formats.createReaderFor (file));
    if (reader == nullptr)
        throw AudioFileError ("not a readable audio file (unknown format, or a damaged or truncated header)");
    const auto numChannels = static_cast<int> (reader->numChannels);
    if (numChannels < 1 || ! (reader->sampleRate > 0.0))
        throw AudioFileError ("the header gives no channels or no sample rate");
    // JUCE 7's WAV and AIFF readers never finish reading a file whose frame is larger than their
    // 5760-byte buffer (over 720 channels of 64-bit samples); real recordings have far fewer.
    constexpr int kMaxChannels = 256;
    if (numChannels > kMaxChannels)
        throw AudioFileError ("the header gives " + std::to_string (numChannels) + " channels; at most " + std::to_string (kMaxChannels)
                              + " are supported");
    if (reader->lengthInSamples <= 0)
        throw AudioFileError ("holds no audio (zero length)");
    return reader;
}

AudioFileReader::AudioFileReader (const std::string& path)
{
    reader_ = openAudioFile (path);
    const juce::File file (juce::File::getCurrentWorkingDirectory().getChildFile (juce::String (path)));
    sampleRate_ = reader_->sampleRate;
    numChannels_ = static_cast<int> (reader_->numChannels);
    length_ = reader_->lengthInSamples;

    // JUCE fills audio missing from a short file with zeros; find out how much is really there.
    // (WAV and AIFF only: libmpg123 also reads MP3 data in a RIFF WAVE file, whose frames are not PCM.)
    const auto formatName = reader_->getFormatName();
    const bool pcm = formatName.startsWithIgnoreCase ("WAV") || formatName.startsWithIgnoreCase ("AIFF");
    if (const auto dataStart = pcm ? pcmDataStart (path) : -1; dataStart >= 0)
    {
        const int64_t frameBytes = static_cast<int64_t> (reader_->bitsPerSample / 8) * numChannels_;
        const int64_t available = frameBytes > 0 ? std::max<int64_t> (0, (file.getSize() - dataStart) / frameBytes) : length_;
        if (available < length_)
        {
            truncation_ = "the header claims " + std::to_string (length_) + " samples but the file holds " + std::to_string (available)
                          + " (truncated file); classified what is there";
            length_ = available;
            if (length_ == 0)
                throw AudioFileError ("holds no audio: " + truncation_);
        }
    }
    // The read buffer holds at most kMaxBufferedSamples samples over all channels.
    constexpr int kMaxBufferedSamples = 1 << 20, kMaxBlockSamples = 65536;
    buffer_ = std::make_unique<juce::AudioBuffer<float>> (numChannels_, std::clamp (kMaxBufferedSamples / numChannels_, 1, kMaxBlockSamples));
}

AudioFileReader::~AudioFileReader() = default;

std::size_t AudioFileReader::readMono (float* output, std::size_t maxSamples)
{
    const auto count = static_cast<int> (std::min<int64_t> ({ static_cast<int64_t> (maxSamples), length_ - position_, buffer_->getNumSamples() }));
    if (count <= 0)
        return 0;
    // One channel is read straight into `output`; more are read into the buffer and averaged.
    float* const direct[] = { output };
    if (! reader_->read (numChannels_ == 1 ? direct : buffer_->getArrayOfWritePointers(), numChannels_, position_, count))
        throw AudioFileError ("read error at sample " + std::to_string (position_));
    position_ += count;
    if (numChannels_ > 1)
    {
        juce::FloatVectorOperations::copy (output, buffer_->getReadPointer (0), count);
        for (int c = 1; c < numChannels_; ++c)
            juce::FloatVectorOperations::add (output, buffer_->getReadPointer (c), count);
        juce::FloatVectorOperations::multiply (output, 1.0f / static_cast<float> (numChannels_), count);
    }
    return static_cast<std::size_t> (count);
}

} // namespace sonotype::formats
