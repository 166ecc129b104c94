// A DAW session full of Sonotype: one headless host process with N plugin instances (no editor),
// each fed its own stereo track at 48 kHz in 128-sample blocks at the pace of real time, as a host's
// audio thread feeds its tracks: one callback a block, every instance's processBlock() in turn.
// Prints one JSON object with
// - the audio callback's time (all N instances) and one processBlock()'s, per block: p50, p99,
//   p99.9, max (microseconds), and how many callbacks overran the block's 2.67 ms;
// - the process's CPU time over the measured span per instance (share of one core), the audio
//   thread's own share, and the total load (share of all cores);
// - windows analysed, skipped (the worker fell behind and jumped to the newest window) and the
//   samples the audio thread had to drop (FIFO overruns), summed over the instances;
// - the process's thread count (/proc/self/status) and peak resident memory.
// The audio thread asks for SCHED_FIFO, as hosts do; the JSON says whether it got it.
//
//   sonotype_bench_instances N [SECONDS (default 20)]
#include "HeadlessHost.h"

#include <juce_events/juce_events.h>

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace
{

using sonotype::bench::HeadlessProcessor;
using sonotype::bench::procStatus;

double processCpuSeconds()
{
    rusage usage {};
    getrusage (RUSAGE_SELF, &usage);
    return static_cast<double> (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
           + 1e-6 * static_cast<double> (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double threadCpuSeconds()
{
    timespec now {};
    clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double> (now.tv_sec) + 1e-9 * static_cast<double> (now.tv_nsec);
}

/** A track of music-like audio: a few partials with a slow tremolo and noise bursts, different per
    instance (pitch, rhythm, noise seed), so no two instances analyse the same windows. */
void renderTrack (std::vector<float>& out, int instance, double rate)
{
    const double f0 = 55.0 * std::pow (2.0, (instance % 36) / 12.0);
    const double beat = 0.35 + 0.05 * (instance % 7);
    uint32_t seed = 0x9e3779b9u * static_cast<uint32_t> (instance + 1);
    for (std::size_t i = 0; i < out.size(); ++i)
    {
        const double t = static_cast<double> (i) / rate;
        double v = 0.0;
        for (int k = 1; k <= 4; ++k)
            v += std::sin (2.0 * M_PI * f0 * k * t) / k;
        v *= 0.5 + 0.5 * std::sin (2.0 * M_PI * 0.5 * t);
        seed = seed * 1664525u + 1013904223u;
        const double noise = (static_cast<double> (seed >> 8) / 16777216.0 - 0.5);
        const double phase = std::fmod (t, beat) / beat;
        v += noise * std::exp (-30.0 * phase);
        out[i] = static_cast<float> (0.2 * v);
    }
}

struct Percentiles
{
    double p50, p99, p999, max;
};

Percentiles percentiles (std::vector<double> values)
{
    if (values.empty())
        return { 0, 0, 0, 0 };
    std::sort (values.begin(), values.end());
    auto at = [&] (double q) { return values[std::min (values.size() - 1, static_cast<std::size_t> (q * static_cast<double> (values.size())))]; };
    return { at (0.50), at (0.99), at (0.999), values.back() };
}

std::string json (const Percentiles& p)
{
    char text[160];
    std::snprintf (text, sizeof (text), "{\"p50\": %.1f, \"p99\": %.1f, \"p99_9\": %.1f, \"max\": %.1f}", p.p50, p.p99, p.p999, p.max);
    return text;
}

} // namespace

int main (int argc, char** argv)
{
    const int instances = argc > 1 ? std::atoi (argv[1]) : 0;
    const double seconds = argc > 2 ? std::atof (argv[2]) : 20.0;
    if (instances < 1 || instances > 512 || ! (seconds > 0.0 && seconds <= 3600.0))
    {
        std::fprintf (stderr, "usage: sonotype_bench_instances INSTANCES (1-512) [SECONDS (default 20)]\n");
        return 2;
    }
    juce::ScopedJuceInitialiser_GUI juce;

    constexpr double rate = 48000.0;
    constexpr int blockSize = 128;
    constexpr int channels = 2;
    constexpr double warmUpSeconds = 2.0; // the workers' first windows need a full window of audio
    const auto trackSamples = static_cast<std::size_t> (4.0 * rate);

    std::vector<std::unique_ptr<HeadlessProcessor>> plugins;
    std::vector<std::vector<float>> tracks (static_cast<std::size_t> (instances), std::vector<float> (trackSamples));
    for (int i = 0; i < instances; ++i)
    {
        renderTrack (tracks[static_cast<std::size_t> (i)], i, rate);
        auto plugin = std::make_unique<HeadlessProcessor>();
        plugin->setPlayConfigDetails (channels, channels, rate, blockSize);
        plugin->prepareToPlay (rate, blockSize);
        plugins.push_back (std::move (plugin));
    }

    sched_param priority {};
    priority.sched_priority = std::min (80, sched_get_priority_max (SCHED_FIFO));
    const bool realtime = pthread_setschedparam (pthread_self(), SCHED_FIFO, &priority) == 0;

    juce::AudioBuffer<float> buffer (channels, blockSize);
    juce::MidiBuffer midi;
    const auto warmUpBlocks = static_cast<int64_t> (warmUpSeconds * rate / blockSize);
    const auto numBlocks = warmUpBlocks + static_cast<int64_t> (seconds * rate / blockSize);
    const auto blockDuration = std::chrono::duration<double> (blockSize / rate);
    std::vector<double> callbackUs, blockUs;
    callbackUs.reserve (static_cast<std::size_t> (numBlocks));
    blockUs.reserve (static_cast<std::size_t> (numBlocks * instances));
    int64_t overruns = 0;
    double cpuStart = 0.0, audioCpuStart = 0.0;
    auto wallStart = std::chrono::steady_clock::now();
    std::vector<sonotype::runtime::RuntimeStats> before (static_cast<std::size_t> (instances));

    const auto start = std::chrono::steady_clock::now();
    std::size_t position = 0;
    for (int64_t b = 0; b < numBlocks; ++b)
    {
        const bool measuring = b >= warmUpBlocks;
        if (b == warmUpBlocks)
        {
            cpuStart = processCpuSeconds();
            audioCpuStart = threadCpuSeconds();
            wallStart = std::chrono::steady_clock::now();
            for (int i = 0; i < instances; ++i)
                before[static_cast<std::size_t> (i)] = plugins[static_cast<std::size_t> (i)]->analysis().stats();
        }
        const auto callbackStart = std::chrono::steady_clock::now();
        for (int i = 0; i < instances; ++i)
        {
            // The host's mixer hands each track's block over; copying it in is the host's cost, not timed.
            const float* track = tracks[static_cast<std::size_t> (i)].data() + position;
            for (int c = 0; c < channels; ++c)
                buffer.copyFrom (c, 0, track, blockSize);
            midi.clear();
            const auto t0 = std::chrono::steady_clock::now();
            plugins[static_cast<std::size_t> (i)]->processBlock (buffer, midi);
            const auto t1 = std::chrono::steady_clock::now();
            if (measuring)
                blockUs.push_back (std::chrono::duration<double, std::micro> (t1 - t0).count());
        }
        const auto callbackEnd = std::chrono::steady_clock::now();
        if (measuring)
        {
            const double us = std::chrono::duration<double, std::micro> (callbackEnd - callbackStart).count();
            callbackUs.push_back (us);
            overruns += us > 1e6 * blockSize / rate ? 1 : 0;
        }
        position = (position + blockSize) % (trackSamples - blockSize);
        std::this_thread::sleep_until (start + blockDuration * static_cast<double> (b + 1));
    }
    const double wall = std::chrono::duration<double> (std::chrono::steady_clock::now() - wallStart).count();
    const double cpu = processCpuSeconds() - cpuStart;
    const double audioCpu = threadCpuSeconds() - audioCpuStart;
    const long threads = procStatus ("Threads");

    int64_t windowsRun = 0, windowsSkipped = 0, dropped = 0;
    double inferenceMs = 0.0;
    for (int i = 0; i < instances; ++i)
    {
        const auto after = plugins[static_cast<std::size_t> (i)]->analysis().stats();
        const auto& first = before[static_cast<std::size_t> (i)];
        windowsRun += after.windowsRun - first.windowsRun;
        windowsSkipped += after.windowsSkipped - first.windowsSkipped;
        dropped += after.fifoOverruns - first.fifoOverruns;
        inferenceMs += after.meanInferenceMs / instances;
    }
    for (auto& plugin : plugins)
        plugin->releaseResources();

    const unsigned cores = std::max (1u, std::thread::hardware_concurrency());
    std::printf ("{\"instances\": %d, \"seconds\": %.1f, \"rate\": %.0f, \"block\": %d, \"channels\": %d, \"cores\": %u, "
                 "\"realtime_priority\": %s, \"callback_us\": %s, \"process_block_us\": %s, \"callbacks_over_deadline\": %lld, "
                 "\"callbacks\": %zu, \"cpu_per_instance\": %.4f, \"audio_thread_cpu\": %.4f, \"total_load\": %.4f, "
                 "\"windows_run\": %lld, \"windows_skipped\": %lld, \"samples_dropped\": %lld, \"mean_inference_ms\": %.3f, "
                 "\"threads\": %ld, \"maxrss_kib\": %ld}\n",
                 instances, wall, rate, blockSize, channels, cores, realtime ? "true" : "false",
                 json (percentiles (callbackUs)).c_str(), json (percentiles (blockUs)).c_str(), static_cast<long long> (overruns),
                 callbackUs.size(), cpu / wall / instances, audioCpu / wall, cpu / wall / cores, static_cast<long long> (windowsRun),
                 static_cast<long long> (windowsSkipped), static_cast<long long> (dropped), inferenceMs, threads, procStatus ("VmHWM"));
    return 0;
}
