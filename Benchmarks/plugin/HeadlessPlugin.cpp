// Peak memory of a headless plugin instance (no editor, no host): creates a SonotypeProcessor with
// the built-in model, prepares it (48 kHz, 512-frame stereo blocks), processes SECONDS of audio at
// the pace of real time (so the analysis worker runs as it would live) and prints one JSON object:
//   {"seconds": S, "windows_run": N, "maxrss_before_kib": A, "maxrss_kib": B}
// maxrss is VmHWM of /proc/self/status: this program's peak resident set, JUCE and the built-in
// model included ("before": after JUCE's initialisation, before the processor exists). Not
// getrusage's ru_maxrss: Linux carries that over exec() from the process that started this one.
#include "HeadlessHost.h"

#include <juce_events/juce_events.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

int main (int argc, char** argv)
{
    const double seconds = argc > 1 ? std::atof (argv[1]) : 5.0;
    if (! (seconds > 0.0 && seconds <= 3600.0))
    {
        std::fprintf (stderr, "usage: sonotype_bench_plugin [SECONDS (default 5)]\n");
        return 2;
    }
    juce::ScopedJuceInitialiser_GUI juce;
    const auto before = sonotype::bench::procStatus ("VmHWM");

    constexpr double rate = 48000.0;
    constexpr int blockSize = 512;
    int64_t windowsRun = 0;
    {
        sonotype::bench::HeadlessProcessor processor;
        processor.setPlayConfigDetails (2, 2, rate, blockSize);
        processor.prepareToPlay (rate, blockSize);
        juce::AudioBuffer<float> buffer (2, blockSize);
        juce::MidiBuffer midi;
        const auto numBlocks = static_cast<int64_t> (seconds * rate / blockSize);
        const auto blockDuration = std::chrono::duration<double> (blockSize / rate);
        const auto start = std::chrono::steady_clock::now();
        int64_t sample = 0;
        for (int64_t b = 0; b < numBlocks; ++b)
        {
            for (int i = 0; i < blockSize; ++i, ++sample)
            {
                const auto value = 0.3f * static_cast<float> (std::sin (2.0 * M_PI * 440.0 * static_cast<double> (sample) / rate));
                buffer.setSample (0, i, value);
                buffer.setSample (1, i, value);
            }
            midi.clear();
            processor.processBlock (buffer, midi);
            std::this_thread::sleep_until (start + blockDuration * static_cast<double> (b + 1));
        }
        windowsRun = processor.analysis().stats().windowsRun;
        processor.releaseResources();
    }
    std::printf ("{\"seconds\": %.1f, \"windows_run\": %lld, \"maxrss_before_kib\": %ld, \"maxrss_kib\": %ld}\n", seconds,
                 static_cast<long long> (windowsRun), before, sonotype::bench::procStatus ("VmHWM"));
    return 0;
}
