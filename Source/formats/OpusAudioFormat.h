// Ogg Opus files (.opus) in, for the `sonotype` CLI and the standalone app's file player: a
// juce::AudioFormat over libopusfile (Debian's libopusfile), registered beside MP3 by
// registerFormats() (formats/AudioFormats.h).
//
// Why opusfile: it is Xiph's reference decoder library for Ogg Opus (JUCE has no Opus reader). It
// gives the exact length (from the last granule position; no guessing from the file size), removes
// the pre-skip at the start and the end trimming the encoder records (samples line up with the
// source), handles chained streams, and is packaged in Debian and fuzzed upstream (OSS-Fuzz).
//
// Opus always decodes at 48000 Hz (whatever rate the source had; opusenc resamples to 48 kHz).
// Against hostile files: more than 8 channels, or a chained stream whose links differ in channel
// count, are refused; decoding uses fixed buffers; a decoding error (or a hole in the pages) fails
// the read (the CLI reports it).
#pragma once

#include <juce_audio_formats/juce_audio_formats.h>

namespace sonotype::formats
{

class OpusAudioFormat final : public juce::AudioFormat
{
public:
    OpusAudioFormat();

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
