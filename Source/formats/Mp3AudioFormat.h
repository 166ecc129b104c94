// MP3 files in, for the `sonotype` CLI and the standalone app's file player: a juce::AudioFormat
// over libmpg123 (Debian's libmpg123), registered beside JUCE's WAV, AIFF, FLAC and Ogg Vorbis
// readers (and the Ogg Opus reader, formats/OpusAudioFormat.h) by registerFormats()
// (formats/AudioFormats.h).
//
// Why libmpg123 rather than JUCE's own MP3 decoder: it gives exact lengths (it scans the frames;
// JUCE's reader assumes 1152 samples a frame, wrong for MPEG-2 and 2.5 at 8 to 24 kHz, and guesses
// the length from the file size when there is no Xing tag), removes the encoder delay and padding
// that LAME records in its tag (gapless: samples line up with the source), and is fuzzed upstream
// and maintained with security updates in Debian.
//
// Against hostile files: ID3v2 tags are skipped, not parsed (no allocation by a tag's claimed size);
// a stream that changes its rate or channel count ends the file (no "Frankenstein" streams);
// decoding uses fixed buffers; a decoding error fails the read (the CLI reports it).
#pragma once

#include <juce_audio_formats/juce_audio_formats.h>

namespace sonotype::formats
{

class Mp3AudioFormat final : public juce::AudioFormat
{
public:
    Mp3AudioFormat();

    juce::Array<int> getPossibleSampleRates() override;
    juce::Array<int> getPossibleBitDepths() override;
    bool canDoStereo() override { return true; }
    bool canDoMono() override { return true; }
    bool isCompressed() override { return true; }

    juce::AudioFormatReader* createReaderFor (juce::InputStream* sourceStream, bool deleteStreamIfOpeningFails) override;
    juce::AudioFormatWriter* createWriterFor (juce::OutputStream*, double, unsigned int, int, const juce::StringPairArray&, int) override
    {
        return nullptr;
    }
    using juce::AudioFormat::createWriterFor;
};

} // namespace sonotype::formats
