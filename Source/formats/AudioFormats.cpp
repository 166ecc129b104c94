#include "formats/AudioFormats.h"

#include "formats/Mp3AudioFormat.h"
#include "formats/OpusAudioFormat.h"

#include <juce_audio_formats/juce_audio_formats.h>

#include <algorithm>
#include <cctype>

namespace sonotype::formats
{
namespace
{
    /** JUCE's WAV reader for the files named .wave, WAV's other extension: JUCE's own claims .wav
        and .bwf only, and AudioFormatManager opens a file only with the formats that claim its
        extension, so a .wave file the folder scan took was refused as "not a readable audio file". */
    class WaveExtensionFormat final : public juce::WavAudioFormat
    {
    public:
        bool canHandleFile (const juce::File& file) override { return file.hasFileExtension ("wave"); }
    };
} // namespace

const std::vector<std::string>& readableExtensions()
{
    static const std::vector<std::string> extensions = [] {
        std::vector<std::string> list;
        const std::string all = kAudioFileExtensions;
        for (std::size_t start = 0; start < all.size();)
        {
            const auto end = std::min (all.find (';', start), all.size());
            list.push_back (all.substr (start, end - start));
            start = end + 1;
        }
        return list;
    }();
    return extensions;
}

std::string audioFilePatterns()
{
    std::string patterns;
    for (const auto& extension : readableExtensions())
        patterns += (patterns.empty() ? "*." : ";*.") + extension;
    return patterns;
}

std::string readableExtensionsText()
{
    std::string text;
    for (const auto& extension : readableExtensions())
        text += (text.empty() ? "." : " .") + extension;
    return text;
}

bool isReadableAudioFile (const std::string& path)
{
    const auto dot = path.find_last_of ('.');
    const auto slash = path.find_last_of ('/');
    if (dot == std::string::npos || (slash != std::string::npos && slash > dot))
        return false;
    std::string extension = path.substr (dot + 1);
    std::transform (extension.begin(), extension.end(), extension.begin(), [] (unsigned char c) { return static_cast<char> (std::tolower (c)); });
    const auto& extensions = readableExtensions();
    return std::find (extensions.begin(), extensions.end(), extension) != extensions.end();
}

void registerFormats (juce::AudioFormatManager& formats)
{
    formats.registerBasicFormats();
    formats.registerFormat (new WaveExtensionFormat(), false);
    formats.registerFormat (new Mp3AudioFormat(), false);
    formats.registerFormat (new OpusAudioFormat(), false);
}

} // namespace sonotype::formats
