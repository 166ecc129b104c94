// The bundled example clips (Resources/examples/*.wav), read with JUCE and brought to any rate with
// the project's resampler, for tests that drive the plugin with known audio.
#pragma once

#include "dsp/Resampler.h"

#include <juce_audio_formats/juce_audio_formats.h>

#include <stdexcept>
#include <string>
#include <vector>

#ifndef SONOTYPE_SOURCE_DIR
#error "SONOTYPE_SOURCE_DIR must be defined"
#endif

namespace sonotype::testing
{

inline juce::File exampleFile (const std::string& name)
{
    return juce::File (SONOTYPE_SOURCE_DIR).getChildFile ("Resources/examples").getChildFile (name + ".wav");
}

/** Mono samples of an example clip at `rate`. */
inline std::vector<float> exampleClip (const std::string& name, double rate)
{
    juce::AudioFormatManager formats;
    formats.registerBasicFormats();
    std::unique_ptr<juce::AudioFormatReader> reader (formats.createReaderFor (exampleFile (name)));
    if (reader == nullptr)
        throw std::runtime_error ("cannot read example " + name);
    juce::AudioBuffer<float> buffer (static_cast<int> (reader->numChannels), static_cast<int> (reader->lengthInSamples));
    reader->read (&buffer, 0, buffer.getNumSamples(), 0, true, true);
    std::vector<float> mono (buffer.getReadPointer (0), buffer.getReadPointer (0) + buffer.getNumSamples());
    if (reader->sampleRate == rate)
        return mono;
    std::vector<float> out;
    dsp::Resampler resampler (reader->sampleRate, rate);
    resampler.process (mono.data(), mono.size(), out);
    resampler.flush (out);
    return out;
}

/** Clips end to end, each repeated `times`. */
inline std::vector<float> exampleSequence (const std::vector<std::string>& names, double rate, int times)
{
    std::vector<float> out;
    for (const auto& name : names)
    {
        const auto clip = exampleClip (name, rate);
        for (int i = 0; i < times; ++i)
            out.insert (out.end(), clip.begin(), clip.end());
    }
    return out;
}

} // namespace sonotype::testing
