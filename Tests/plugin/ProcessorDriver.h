// Drives a SonotypeProcessor like a host: blocks of random size through processBlock(), collecting
// the MIDI it produces, letting the worker thread keep up with the audio (as in real time, but
// faster).
#pragma once

#include "gui/SonotypeEditor.h"
#include "plugin/SonotypeProcessor.h"

#include <chrono>
#include <condition_variable>
#include <fcntl.h>
#include <mutex>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace sonotype::testing
{

class TestProcessor final : public plugin::SonotypeProcessor
{
public:
    juce::AudioProcessorEditor* createEditor() override { return new gui::SonotypeEditor (*this); }
};

/** Waits (up to 30 s) until the processor has finished loading a model file (it loads on a
    background thread); returns whether it finished. */
inline bool waitForModelLoad (const plugin::SonotypeProcessor& processor)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds (30);
    while (processor.isLoadingModel() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for (std::chrono::milliseconds (1));
    return ! processor.isLoadingModel();
}

/** Loads a model file and waits for the outcome: true when it was loaded. */
inline bool loadModel (plugin::SonotypeProcessor& processor, const juce::File& file)
{
    processor.loadModelFile (file);
    return waitForModelLoad (processor) && ! processor.statusIsError();
}

/** A model file that takes as long to read as the test wants: a named pipe, whose readers block
    until release() (or, so that a loader that blocks its caller makes the test fail rather than
    hang, 20 s); from then on, until it is destroyed, every reader gets a few bytes, which are not
    a model: loading it ends in an error. Declare it before the processors that read it. */
class SlowModelFile
{
public:
    SlowModelFile()
        : file_ (juce::File::getSpecialLocation (juce::File::tempDirectory).getNonexistentChildFile ("slow_model", ".safetensors"))
    {
        created_ = ::mkfifo (file_.getFullPathName().toRawUTF8(), 0600) == 0;
        writer_ = std::thread ([this] {
            std::unique_lock<std::mutex> lock (mutex_);
            wake_.wait_for (lock, std::chrono::seconds (20), [this] { return released_; });
            released_ = true;
            while (! done_)
            {
                lock.unlock();
                // Read-write: opening never blocks, and a write never meets a pipe without
                // readers. Each opening wakes the readers waiting in open() at that moment.
                const int fd = ::open (file_.getFullPathName().toRawUTF8(), O_RDWR);
                if (fd >= 0)
                {
                    const char bytes[] = "not a model";
                    [[maybe_unused]] const auto written = ::write (fd, bytes, sizeof (bytes));
                    std::this_thread::sleep_for (std::chrono::milliseconds (1));
                    ::close (fd);
                }
                lock.lock();
                wake_.wait_for (lock, std::chrono::milliseconds (1), [this] { return done_; });
            }
        });
    }
    ~SlowModelFile()
    {
        {
            const std::lock_guard<std::mutex> lock (mutex_);
            released_ = done_ = true;
        }
        wake_.notify_all();
        writer_.join();
        file_.deleteFile();
    }
    const juce::File& file() const noexcept { return file_; }
    bool created() const noexcept { return created_; }
    void release()
    {
        {
            const std::lock_guard<std::mutex> lock (mutex_);
            released_ = true;
        }
        wake_.notify_all();
    }
    bool isReleased()
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        return released_;
    }

private:
    juce::File file_;
    bool created_ = false;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool released_ = false, done_ = false;
    std::thread writer_;
};

struct TimedMidi
{
    double seconds; // stream time of the block it came in
    juce::MidiMessage message;
};

class ProcessorDriver
{
public:
    ProcessorDriver (plugin::SonotypeProcessor& processor, double rate, int channels, int maxBlock, unsigned seed = 1)
        : processor_ (processor), rate_ (rate), channels_ (channels), maxBlock_ (maxBlock), random_ (seed)
    {
        processor.setPlayConfigDetails (channels, channels, rate, maxBlock);
        processor.prepareToPlay (rate, maxBlock);
        midi_.ensureSize (4096);
    }
    ~ProcessorDriver() { processor_.releaseResources(); }

    /** Plays mono `signal` (copied to every channel). */
    void play (const std::vector<float>& signal)
    {
        juce::AudioBuffer<float> buffer (channels_, maxBlock_);
        std::size_t offset = 0;
        while (offset < signal.size())
        {
            const int n = static_cast<int> (std::min<std::size_t> (std::uniform_int_distribution<int> (1, maxBlock_) (random_), signal.size() - offset));
            buffer.setSize (channels_, n, false, false, true);
            for (int c = 0; c < channels_; ++c)
                std::copy_n (signal.data() + offset, n, buffer.getWritePointer (c));
            midi_.clear();
            processor_.processBlock (buffer, midi_);
            for (const auto metadata : midi_)
                midi.push_back ({ static_cast<double> (samples_) / rate_, metadata.getMessage() });
            offset += static_cast<std::size_t> (n);
            samples_ += n;
            if (samples_ - lastWait_ > static_cast<int64_t> (rate_ * 0.05))
                waitForWorker();
        }
        waitForWorker();
    }

    /** Until the worker has analysed everything pushed (its results and MIDI are out), or 30 s. */
    void waitForWorker()
    {
        lastWait_ = samples_;
        waitForAnalysis (processor_);
    }

    /** Until the processor's worker has analysed all audio pushed so far, or 30 s; returns whether it did. */
    static bool waitForAnalysis (const plugin::SonotypeProcessor& processor)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds (30);
        auto caughtUp = [&] {
            const auto stats = processor.analysis().stats();
            return stats.analysedSamples >= stats.pushedSamples;
        };
        while (! caughtUp() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for (std::chrono::microseconds (200));
        return caughtUp();
    }

    std::vector<TimedMidi> midi;

private:
    plugin::SonotypeProcessor& processor_;
    double rate_;
    int channels_, maxBlock_;
    std::mt19937 random_;
    juce::MidiBuffer midi_;
    int64_t samples_ = 0, lastWait_ = 0;
};

} // namespace sonotype::testing
