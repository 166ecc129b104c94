// Files the app's tests open: WAVs written from test signals in the test's own /tmp folder, and
// waiting for the processor's background file analysis to finish.
#pragma once

#include "plugin/SonotypeProcessor.h"
#include "support/MessageLoop.h"

#include <catch2/catch.hpp>
#include <juce_audio_formats/juce_audio_formats.h>

#include <vector>

namespace sonotype::testing
{

/** `samples` as a mono 16-bit WAV at `file` (its folder made; an old file replaced). */
inline juce::File writeMonoWav (const juce::File& file, const std::vector<float>& samples, double sampleRate = 44100.0)
{
    REQUIRE (file.getParentDirectory().createDirectory().wasOk());
    file.deleteFile();
    juce::WavAudioFormat wav;
    std::unique_ptr<juce::AudioFormatWriter> writer (wav.createWriterFor (file.createOutputStream().release(), sampleRate, 1, 16, {}, 0));
    REQUIRE (writer != nullptr);
    const float* channels[] = { samples.data() };
    REQUIRE (writer->writeFromFloatArrays (channels, 1, static_cast<int> (samples.size())));
    return file;
}

/** Runs the message loop until the processor's file analysis is done (at most 120 s), then
    `settleMilliseconds` more (its 10 Hz timer and the editor's frame see the end); whether it
    finished. */
inline bool waitForFiles (const plugin::SonotypeProcessor& processor, int settleMilliseconds = 150)
{
    const auto deadline = juce::Time::getMillisecondCounter() + 120000u;
    while (processor.fileTimelines().isBusy() && juce::Time::getMillisecondCounter() < deadline)
        pumpMessages (20);
    pumpMessages (settleMilliseconds);
    return ! processor.fileTimelines().isBusy();
}

} // namespace sonotype::testing
