// Soak: a simulated host drives the real SonotypeProcessor through a long stretch of stream time,
// compressed: it pushes audio as fast as the worker lets it (it waits, with generous deadlines, for
// the worker to take what was pushed before pushing more), with
//   - 64-sample blocks, mixed with random sizes, zero-length blocks and blocks larger than announced,
//   - sample-rate and block-size changes (releaseResources + prepareToPlay, as hosts do),
//   - a model hot swap every minute of audio (built-in -> tiny fixture -> slow model -> built-in ...),
//   - the worker slowed for stretches: the slow model (a transformer far bigger than the built-in
//     one, exported by Tests/soak/export_slow_model.py) runs while the host pushes 2 s at a time, so
//     the worker falls behind and skips windows,
//   - NaN/Inf bursts.
// Checked: no crash, audio passes through bit-exactly in every block, every window of every model
// generation is either analyzed or counted as skipped (results read back from the history and
// matched against the counters), every result valid (finite probabilities summing to 1, times
// monotonic and inside the generation's stream), MIDI note-ons and note-offs paired, no worker error,
// and memory flat: the resident set (/proc/self/statm) grows less than a bound after warm-up.
//
// Duration in seconds of audio: $SONOTYPE_SOAK_SECONDS (default 120, what CI runs); the swap interval
// $SONOTYPE_SOAK_SWAP_SECONDS (default: 60, or duration / 6 for runs shorter than 6 minutes so that a
// short run still swaps every model in); figures are printed and, with $SONOTYPE_SOAK_REPORT, written
// to that file. The hour-long run's figures are in docs/RELIABILITY.md ("Soak").
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "plugin/SonotypeProcessor.h"
#include "support/Fixtures.h"

#include <juce_events/juce_events.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <thread>

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace sonotype;

namespace
{
// Under AddressSanitizer (its quarantine holds freed memory) or ThreadSanitizer (its shadow memory)
// the resident set says nothing about the program: the memory checks need a plain build.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kMemoryMeasurable = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kMemoryMeasurable = false;
#else
constexpr bool kMemoryMeasurable = true;
#endif
#else
constexpr bool kMemoryMeasurable = true;
#endif

class SoakProcessor final : public plugin::SonotypeProcessor
{
public:
    juce::AudioProcessorEditor* createEditor() override { return nullptr; }
};

double environmentNumber (const char* name, double fallback)
{
    const char* text = std::getenv (name);
    return text != nullptr && *text != '\0' ? std::atof (text) : fallback;
}

int64_t residentBytes()
{
    // glibc keeps freed memory (a 14 MiB model freed on one thread) in its heaps for reuse, which
    // shows as resident for a while; handing it back first makes the figure what is in use.
    malloc_trim (0);
    std::ifstream statm ("/proc/self/statm");
    int64_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * static_cast<int64_t> (sysconf (_SC_PAGESIZE));
}

/** Bytes the program has allocated and not freed (glibc's count: heap chunks in use plus mmapped
    blocks), whatever the heaps' fragmentation. */
int64_t heapBytesInUse()
{
    const auto info = mallinfo2();
    return static_cast<int64_t> (info.uordblks + info.hblkhd);
}

double cpuSeconds()
{
    rusage usage {};
    getrusage (RUSAGE_SELF, &usage);
    return static_cast<double> (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
           + 1e-6 * static_cast<double> (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

/** Waits for `done` with a generous deadline (never a timed assertion: the deadline only stops a
    hang). Returns whether it happened. */
template <typename Condition>
bool waitFor (Condition done, std::chrono::seconds deadline = std::chrono::seconds (120))
{
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (! done())
    {
        if (std::chrono::steady_clock::now() > end)
            return false;
        std::this_thread::sleep_for (std::chrono::microseconds (200));
    }
    return true;
}

enum class ModelKind
{
    builtin,
    tiny,
    slow
};

const char* modelName (ModelKind kind)
{
    return kind == ModelKind::builtin ? "built-in" : kind == ModelKind::tiny ? "tiny_classifier"
                                                                             : "soak_slow";
}

struct Figures
{
    double audioSeconds = 0.0, wallSeconds = 0.0, cpuSeconds = 0.0;
    int64_t blocks = 0, zeroBlocks = 0, oversizedBlocks = 0, nonFiniteBlocks = 0;
    int64_t windowsRun = 0, windowsSkipped = 0, windowsSkippedWhileSlow = 0;
    int generations = 0, swaps = 0, rateChanges = 0, inFlightAtSwap = 0;
    int64_t noteOns = 0, noteOffs = 0;
    int64_t rssStart = 0, rssAfterWarmUp = 0, rssEnd = 0, rssMax = 0, rssMaxAfterWarmUp = 0;
    double meanInferenceMs = 0.0, maxInferenceMs = 0.0;
    std::vector<std::pair<double, int64_t>> rssSamples; // (audio seconds, bytes)
    // The resident set at the end of each stretch of each model (built-in, tiny, slow): the set
    // depends on the model loaded, so memory is compared like with like, cycle after cycle.
    std::vector<int64_t> rssAtEndOf[3], heapAtEndOf[3];
    int64_t rssGrowth = 0, heapGrowth = 0; // the largest growth of one model's series after its first stretch
    int notesOpenAtPrepare = 0;
};

class SoakHost
{
public:
    SoakHost (SoakProcessor& processor, unsigned seed) : processor_ (processor), random_ (seed)
    {
        buffer_.setSize (2, kMaxBlock);
        reference_.setSize (2, kMaxBlock);
        midi_.ensureSize (4096);
    }

    /** Like a host: stops processing (the worker is joined), then prepares for a new rate and
        block size. */
    void prepare (double rate, int maxBlock)
    {
        if (rate_ > 0.0)
        {
            processor_.releaseResources();
            endGeneration (true);
        }
        rate_ = rate;
        maxBlock_ = maxBlock;
        processor_.setPlayConfigDetails (2, 2, rate, maxBlock);
        processor_.prepareToPlay (rate, maxBlock);
        REQUIRE_FALSE (processor_.statusIsError());
        // prepareToPlay starts a new stream; a note still sounding must get its note-off in the
        // next block ("a hanging note", docs/RELIABILITY.md): counted, and tracked across.
        figures.notesOpenAtPrepare += activeNote_ >= 0 ? 1 : 0;
        nonFinitePushed_ = 0;
        beginGeneration();
    }

    /** Until the processor's background loader has finished with the file it was given. */
    bool waitForLoad()
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds (60);
        while (processor_.isLoadingModel() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for (std::chrono::milliseconds (1));
        return ! processor_.isLoadingModel() && ! processor_.statusIsError();
    }

    /** Swaps the model while audio runs; returns once the worker has applied it. */
    void swapTo (ModelKind kind)
    {
        settle();
        const auto historyBefore = processor_.analysis().history (kHistory);
        const auto before = processor_.analysis().info()->generation;
        if (kind == ModelKind::builtin)
            processor_.useBuiltinModel();
        else
        {
            processor_.loadModelFile (juce::File (testing::fixturePath (std::string (modelName (kind)) + ".safetensors")));
            REQUIRE (waitForLoad());
        }
        INFO (processor_.statusMessage());
        REQUIRE_FALSE (processor_.statusIsError());
        // The worker applies the swap between two windows; no audio is pushed meanwhile, so once
        // the new generation shows, the old one's counters are final.
        REQUIRE (waitFor ([&] { return processor_.analysis().info()->generation != before; }));
        endGeneration (false, &historyBefore);
        model_ = kind;
        beginGeneration();
        ++figures.swaps;
    }

    /** Pushes `seconds` of audio in blocks; `nonFiniteEvery` > 0 puts a NaN/Inf burst in now and then. */
    void play (double seconds, bool slowStretch)
    {
        const auto total = std::max<int64_t> (1, static_cast<int64_t> (std::ceil (seconds * rate_ - 1e-6))); // at least up to `seconds`
        const auto waitEvery = static_cast<int64_t> ((slowStretch ? 2.0 : 0.125) * rate_);
        int64_t done = 0;
        while (done < total)
        {
            int n = nextBlockSize();
            n = static_cast<int> (std::min<int64_t> (n, total - done));
            processOneBlock (n);
            done += n;
            sincePush_ += n;
            if (sincePush_ >= waitEvery)
                waitConsumed();
        }
        waitConsumed();
    }

    /** The end: stops the processor, checks the last generation and closes any open note. */
    void finish()
    {
        settle();
        processor_.releaseResources();
        endGeneration (true);
        juce::AudioBuffer<float> buffer (2, 64);
        buffer.clear();
        midi_.clear();
        processor_.processBlockBypassed (buffer, midi_);
        collectMidi();
        CHECK (activeNote_ == -1);
    }

    ModelKind model() const noexcept { return model_; }
    double rate() const noexcept { return rate_; }

    Figures figures;

    bool noteSounding() const noexcept { return activeNote_ >= 0; }

private:
    static constexpr int kMaxBlock = 16384;
    static constexpr std::size_t kHistory = 1024; // the processor's history size

    int nextBlockSize()
    {
        const int roll = std::uniform_int_distribution<int> (0, 999) (random_);
        if (roll < 40)
        {
            ++figures.zeroBlocks;
            return 0;
        }
        if (roll < 70) // larger than announced
        {
            ++figures.oversizedBlocks;
            return std::uniform_int_distribution<int> (maxBlock_ + 1, std::min (4 * maxBlock_, kMaxBlock)) (random_);
        }
        if (roll < 170)
            return std::uniform_int_distribution<int> (1, maxBlock_) (random_);
        return std::min (64, maxBlock_);
    }

    void fill (int n, bool nonFinite)
    {
        for (int i = 0; i < n; ++i)
        {
            const double t = static_cast<double> (clock_ + i) / rate_;
            lcg_ = lcg_ * 1664525u + 1013904223u;
            const double noise = static_cast<double> (lcg_ >> 8) / 8388608.0 - 1.0;
            double value = 0.0;
            switch (static_cast<int> (t / 0.9) % 5)
            {
                case 0: value = 0.4 * std::sin (2.0 * M_PI * 440.0 * t) + 0.2 * std::sin (2.0 * M_PI * 1250.0 * t); break;
                case 1: value = 0.3 * noise; break;
                case 2: value = 0.5 * std::sin (2.0 * M_PI * (100.0 + 900.0 * std::fmod (t, 0.9)) * t); break;
                case 3: value = (std::fmod (t, 0.25) < 0.02 ? 0.8 : 0.05) * noise; break;
                default: break; // silence
            }
            buffer_.setSample (0, i, static_cast<float> (value));
            buffer_.setSample (1, i, static_cast<float> (0.5 * value + 0.1 * noise));
        }
        if (nonFinite)
        {
            const int start = n / 3;
            for (int i = start; i < n; ++i)
            {
                buffer_.setSample (0, i, (i % 3) == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN());
                buffer_.setSample (1, i, (i % 2) == 0 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN());
            }
            nonFinitePushed_ += n - start;
        }
    }

    void processOneBlock (int n)
    {
        // A NaN burst: about every 10 s of audio, 1 to 8 blocks in a row.
        if (burstLeft_ == 0 && std::uniform_real_distribution<double> (0.0, 1.0) (random_) < 64.0 / (10.0 * rate_))
            burstLeft_ = std::uniform_int_distribution<int> (1, 8) (random_);
        const bool nonFinite = burstLeft_ > 0 && n > 0;
        if (burstLeft_ > 0)
            --burstLeft_;
        buffer_.setSize (2, n, false, false, true);
        fill (n, nonFinite);
        for (int c = 0; c < 2; ++c)
            std::memcpy (reference_.getWritePointer (c), buffer_.getReadPointer (c), static_cast<std::size_t> (n) * sizeof (float));
        midi_.clear();
        processor_.processBlock (buffer_, midi_);
        for (int c = 0; c < 2; ++c)
            if (std::memcmp (reference_.getReadPointer (c), buffer_.getReadPointer (c), static_cast<std::size_t> (n) * sizeof (float)) != 0)
                FAIL ("the audio did not pass through bit-exactly (block of " << n << " at " << figures.audioSeconds << " s)");
        collectMidi();
        clock_ += n;
        figures.audioSeconds += static_cast<double> (n) / rate_;
        ++figures.blocks;
        figures.nonFiniteBlocks += nonFinite ? 1 : 0;
    }

    void collectMidi()
    {
        for (const auto metadata : midi_)
        {
            const auto message = metadata.getMessage();
            if (message.isNoteOn())
            {
                INFO ("note-on " << message.getNoteNumber() << " while " << activeNote_ << " sounds");
                CHECK (activeNote_ == -1);
                activeNote_ = message.getNoteNumber();
                ++figures.noteOns;
            }
            else if (message.isNoteOff())
            {
                INFO ("note-off " << message.getNoteNumber() << " while " << activeNote_ << " sounds");
                CHECK (message.getNoteNumber() == activeNote_); // exactly the note that sounds
                activeNote_ = -1;
                ++figures.noteOffs;
            }
        }
    }

    /** Until the worker has taken everything pushed (it analyses while the host goes on). */
    void waitConsumed()
    {
        sincePush_ = 0;
        const auto& analysis = processor_.analysis();
        REQUIRE (waitFor ([&] {
            const auto stats = analysis.stats();
            return stats.inputSamples >= stats.pushedSamples;
        }));
    }

    /** Until the worker has taken everything and finished the window it was analyzing: the
        counters agree with the newest result. */
    void settle()
    {
        waitConsumed();
        const auto& analysis = processor_.analysis();
        REQUIRE (waitFor ([&] {
            const auto stats = analysis.stats();
            runtime::WindowResult latest;
            const int64_t analyzed = analysis.latest (latest) && latest.generation == generation_ ? latest.windowIndex + 1 : 0;
            return (stats.windowsRun - runBase_) + (stats.windowsSkipped - skippedBase_) == analyzed;
        }));
    }

    void beginGeneration()
    {
        const auto stats = processor_.analysis().stats();
        const auto info = processor_.analysis().info();
        generation_ = info->generation;
        runBase_ = stats.windowsRun;
        skippedBase_ = stats.windowsSkipped;
        streamBase_ = stats.streamSeconds;
        windowSeconds_ = info->windowSeconds;
        hopSeconds_ = info->hopSeconds;
        numClasses_ = info->labels.size();
        ++figures.generations;
    }

    /** Checks one generation's results and counters. `quiescent`: the worker is stopped, so every
        result is in the history; otherwise `history` was read before the swap and the worker may
        have finished one more window after that. */
    void endGeneration (bool quiescent, const std::vector<runtime::WindowResult>* history = nullptr)
    {
        const auto stats = processor_.analysis().stats();
        const auto results = quiescent ? processor_.analysis().history (kHistory) : *history;
        const int64_t run = stats.windowsRun - runBase_, skipped = stats.windowsSkipped - skippedBase_;
        const double streamEnd = stats.streamSeconds;
        INFO ("generation " << generation_ << " (" << modelName (model_) << " at " << rate_ << " Hz), audio "
                            << figures.audioSeconds << " s: run " << run << ", skipped " << skipped << ", results read " << results.size()
                            << ", stream " << streamBase_ << " .. " << streamEnd << " s");
        CHECK (stats.error.empty());
        REQUIRE (run < static_cast<int64_t> (kHistory)); // else the history cannot hold the generation
        CHECK (stats.fifoOverruns == 0);
        if (nonFinitePushed_ > 0)
            CHECK (stats.nonFiniteSamples > 0);

        // Every result valid.
        int64_t gaps = 0, previousIndex = -1;
        double previousStart = -1.0;
        for (const auto& result : results)
        {
            INFO ("window " << result.windowIndex << " [" << result.startSeconds << ", " << result.endSeconds << "] s");
            REQUIRE (result.generation == generation_);
            REQUIRE (result.windowIndex > previousIndex);
            gaps += result.windowIndex - previousIndex - 1;
            previousIndex = result.windowIndex;
            REQUIRE (result.startSeconds > previousStart);
            previousStart = result.startSeconds;
            CHECK (result.endSeconds - result.startSeconds == Approx (windowSeconds_).margin (1e-6));
            CHECK (result.startSeconds >= streamBase_ - 1e-6);
            CHECK (result.endSeconds <= streamEnd + 1e-6);
            CHECK (result.startSeconds - streamBase_ == Approx (static_cast<double> (result.windowIndex) * hopSeconds_).margin (1e-3));
            REQUIRE (result.probabilities.size() == numClasses_);
            double sum = 0.0;
            for (const float p : result.probabilities)
            {
                REQUIRE (std::isfinite (p));
                CHECK ((p >= 0.0f && p <= 1.0f));
                sum += static_cast<double> (p);
            }
            CHECK (sum == Approx (1.0).margin (1e-3));
            CHECK (result.topClass >= 0);
        }

        // Every window counted: each one analyzed (a result) or skipped (a gap in the indices).
        const auto read = static_cast<int64_t> (results.size());
        if (run == read)
            CHECK (skipped == gaps);
        else
        {
            // Only when the swap came while the worker finished one more window after the read.
            REQUIRE_FALSE (quiescent);
            CHECK (run == read + 1);
            CHECK (skipped >= gaps);
            ++figures.inFlightAtSwap;
        }
        // ... and no window lost: the generation's stream holds run + skipped windows (one more or
        // less at the edge, where the resampler still holds the last few samples).
        const double streamSeconds = streamEnd - streamBase_;
        const double windows = streamSeconds >= windowSeconds_ ? std::floor ((streamSeconds - windowSeconds_) / hopSeconds_ + 1e-9) + 1.0 : 0.0;
        CHECK (std::abs (static_cast<double> (run + skipped) - windows) <= 1.0);

        figures.windowsRun += run;
        figures.windowsSkipped += skipped;
        if (model_ == ModelKind::slow)
            figures.windowsSkippedWhileSlow += skipped;
        figures.meanInferenceMs = stats.meanInferenceMs;
        figures.maxInferenceMs = std::max (figures.maxInferenceMs, stats.maxInferenceMs);
    }

    SoakProcessor& processor_;
    std::mt19937 random_;
    juce::AudioBuffer<float> buffer_, reference_;
    juce::MidiBuffer midi_;
    double rate_ = 0.0;
    int maxBlock_ = 64;
    int64_t clock_ = 0, sincePush_ = 0, nonFinitePushed_ = 0;
    uint32_t lcg_ = 1;
    int burstLeft_ = 0;
    int activeNote_ = -1;
    ModelKind model_ = ModelKind::builtin;
    uint64_t generation_ = 0;
    int64_t runBase_ = 0, skippedBase_ = 0;
    double streamBase_ = 0.0, windowSeconds_ = 0.0, hopSeconds_ = 0.0;
    std::size_t numClasses_ = 0;
};

std::string megabytes (int64_t bytes)
{
    std::ostringstream out;
    out.setf (std::ios::fixed);
    out.precision (1);
    out << static_cast<double> (bytes) / (1024.0 * 1024.0) << " MiB";
    return out.str();
}

std::string describe (const Figures& f, double duration, double swapEvery)
{
    std::ostringstream out;
    out << "soak: " << f.audioSeconds << " s of audio (" << f.audioSeconds / 3600.0 << " h) in " << f.wallSeconds << " s wall, "
        << f.cpuSeconds << " s CPU (compressed " << f.audioSeconds / std::max (f.wallSeconds, 1e-9) << "x)\n"
        << "  requested " << duration << " s, hot swap every " << swapEvery << " s\n"
        << "  blocks " << f.blocks << " (zero-length " << f.zeroBlocks << ", larger than announced " << f.oversizedBlocks
        << ", with NaN/Inf " << f.nonFiniteBlocks << ")\n"
        << "  generations " << f.generations << ", hot swaps " << f.swaps << ", rate/block-size changes " << f.rateChanges
        << ", swaps while a window was in flight " << f.inFlightAtSwap << "\n"
        << "  windows run " << f.windowsRun << ", skipped " << f.windowsSkipped << " (" << f.windowsSkippedWhileSlow
        << " while the slow model ran), max inference " << f.maxInferenceMs << " ms\n"
        << "  MIDI note-ons " << f.noteOns << ", note-offs " << f.noteOffs << ", notes sounding at a prepareToPlay (closed in the next block) "
        << f.notesOpenAtPrepare << "\n"
        << "  RSS start " << megabytes (f.rssStart) << ", after warm-up " << megabytes (f.rssAfterWarmUp) << ", end "
        << megabytes (f.rssEnd) << ", max " << megabytes (f.rssMax) << ", max after warm-up " << megabytes (f.rssMaxAfterWarmUp) << "\n"
        << "  RSS at the end of each stretch of the built-in / tiny / slow model, growth after the first "
        << megabytes (f.rssGrowth) << ":";
    for (const auto& series : f.rssAtEndOf)
    {
        out << "\n   ";
        for (const auto bytes : series)
            out << " " << megabytes (bytes);
    }
    out << "\n  heap in use (mallinfo2) at the same points, growth after the first " << megabytes (f.heapGrowth) << ":";
    for (const auto& series : f.heapAtEndOf)
    {
        out << "\n   ";
        for (const auto bytes : series)
            out << " " << megabytes (bytes);
    }
    out << "\n  RSS over audio time:";
    for (std::size_t i = 0; i < f.rssSamples.size(); i += std::max<std::size_t> (1, f.rssSamples.size() / 12))
        out << " " << static_cast<int> (f.rssSamples[i].first) << "s:" << megabytes (f.rssSamples[i].second);
    out << "\n";
    return out.str();
}
} // namespace

TEST_CASE ("soak: long compressed stream with swaps, rate changes, a slowed worker and bad blocks", "[soak]")
{
    const double duration = environmentNumber ("SONOTYPE_SOAK_SECONDS", 120.0);
    const double swapEvery = environmentNumber ("SONOTYPE_SOAK_SWAP_SECONDS", duration >= 360.0 ? 60.0 : duration / 6.0);
    REQUIRE (duration >= 30.0);
    REQUIRE (swapEvery >= 5.0);
    // Rate and block-size changes: every 5 minutes (4 in a short run), between swaps.
    const double rateEvery = duration >= 1200.0 ? 300.0 : duration / 4.0;
    // Warm-up: the first full cycle of the three models (and the allocator's pools with them).
    const double warmUp = std::min (3.0 * swapEvery + 1.0, 0.5 * duration);

    const auto wallStart = std::chrono::steady_clock::now();
    const double cpuStart = cpuSeconds();
    std::mt19937 random (20261124);
    const double rates[] = { 48000.0, 44100.0, 96000.0, 32000.0, 88200.0 };
    const int blockSizes[] = { 64, 128, 256, 480, 512, 1024 };

    SoakProcessor processor;
    SoakHost host (processor, 7);
    auto& figures = host.figures;
    figures.rssStart = residentBytes();
    host.prepare (48000.0, 64);

    double nextSwap = swapEvery, nextRate = rateEvery;
    bool warm = false;
    while (figures.audioSeconds < duration - 1e-6)
    {
        const double step = std::min ({ nextSwap, nextRate, duration }) - figures.audioSeconds;
        host.play (step, host.model() == ModelKind::slow);
        const auto rss = residentBytes();
        figures.rssSamples.emplace_back (figures.audioSeconds, rss);
        figures.rssMax = std::max (figures.rssMax, rss);
        if (warm)
            figures.rssMaxAfterWarmUp = std::max (figures.rssMaxAfterWarmUp, rss);
        else if (figures.audioSeconds >= warmUp)
        {
            warm = true;
            figures.rssAfterWarmUp = rss;
            figures.rssMaxAfterWarmUp = rss;
        }
        if (figures.audioSeconds >= duration - 1e-6)
            break;
        if (figures.audioSeconds >= nextRate - 1e-6)
        {
            nextRate += rateEvery;
            const double rate = rates[std::uniform_int_distribution<std::size_t> (0, std::size (rates) - 1) (random)];
            const double other = host.rate() == 48000.0 ? 96000.0 : 48000.0;
            host.prepare (rate != host.rate() ? rate : other,
                          blockSizes[std::uniform_int_distribution<std::size_t> (0, std::size (blockSizes) - 1) (random)]);
            ++figures.rateChanges;
        }
        if (figures.audioSeconds >= nextSwap - 1e-6)
        {
            nextSwap += swapEvery;
            figures.rssAtEndOf[static_cast<int> (host.model())].push_back (rss);
            figures.heapAtEndOf[static_cast<int> (host.model())].push_back (heapBytesInUse());
            const auto next = host.model() == ModelKind::builtin ? ModelKind::tiny
                              : host.model() == ModelKind::tiny  ? ModelKind::slow
                                                                 : ModelKind::builtin;
            host.swapTo (next);
        }
    }
    figures.rssAtEndOf[static_cast<int> (host.model())].push_back (residentBytes());
    figures.heapAtEndOf[static_cast<int> (host.model())].push_back (heapBytesInUse());
    host.finish();
    figures.rssEnd = residentBytes();
    int comparisons = 0;
    for (const auto& series : figures.rssAtEndOf)
        for (std::size_t i = 2; i < series.size(); ++i, ++comparisons) // the first stretch of each model is its warm-up
            figures.rssGrowth = std::max (figures.rssGrowth, series[i] - series[1]);
    for (const auto& series : figures.rssAtEndOf)
        if (series.size() >= 2)
        {
            figures.rssGrowth = std::max (figures.rssGrowth, series.back() - series[1]);
            ++comparisons;
        }
    for (const auto& series : figures.heapAtEndOf)
        for (std::size_t i = 2; i < series.size(); ++i)
            figures.heapGrowth = std::max (figures.heapGrowth, series[i] - series[1]);
    figures.wallSeconds = std::chrono::duration<double> (std::chrono::steady_clock::now() - wallStart).count();
    figures.cpuSeconds = cpuSeconds() - cpuStart;

    const auto text = describe (figures, duration, swapEvery);
    std::cout << text << std::flush;
    if (const char* path = std::getenv ("SONOTYPE_SOAK_REPORT"))
        std::ofstream (path) << text;

    CHECK (figures.audioSeconds >= duration - 1e-6);
    CHECK (figures.swaps >= 3);                  // every model ran at least once...
    CHECK (figures.windowsSkippedWhileSlow > 0); // ...and the slowed worker did fall behind
    CHECK (figures.zeroBlocks > 0);
    CHECK (figures.oversizedBlocks > 0);
    CHECK (figures.nonFiniteBlocks > 0);
    CHECK (figures.noteOns > 0);
    // Every note-on got exactly its note-off (the last note may still sound when the run ends).
    CHECK (figures.noteOffs == figures.noteOns - (host.noteSounding() ? 1 : 0));
    // Memory flat: with the same model loaded, the resident set at the end of a stretch is within
    // 16 MiB of where it was at the end of that model's second stretch (the first warms up
    // allocator pools). A model leaked per swap adds 1-14 MiB each time (the slow model 14 MiB);
    // a few hundred bytes leaked per window, megabytes an hour.
    // The heap in use (what is allocated and not freed, fragmentation aside) is held to 4 MiB:
    // it moves by ~1 MiB with the FIFO, which is sized for the sample rate.
    REQUIRE (comparisons >= 3);
    if (kMemoryMeasurable)
    {
        CHECK (figures.rssGrowth < 16 * 1024 * 1024);
        CHECK (figures.heapGrowth < 4 * 1024 * 1024);
    }
    else
        WARN ("memory not checked: a sanitizer build");
}

int main (int argc, char* argv[])
{
    // One malloc arena for every thread, set before any thread starts: the resident set then
    // measures what is allocated, not where glibc keeps what was freed. With its default per-thread
    // arenas, a model loaded on the processor's model service thread and freed later stays resident
    // in that thread's arena (the hour-long run: +19 MiB of RSS, once, while the heap in use stayed
    // flat; with one arena +1.5 MiB).
    mallopt (M_ARENA_MAX, 1);
    const juce::ScopedJuceInitialiser_GUI juce;
    return Catch::Session().run (argc, argv);
}
