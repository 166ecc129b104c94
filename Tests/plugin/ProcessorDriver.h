// Drives a SonotypeProcessor like a host: blocks of random size through processBlock(), collecting
// the MIDI it produces, letting the worker thread keep up with the audio (as in real time, but
// faster).
#pragma once

#include "gui/SonotypeEditor.h"
#include "plugin/SonotypeProcessor.h"
#include "support/Fixtures.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <thread>

namespace sonotype::testing
{

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

/** kick, snare and hat taught in the Teach view's way ("Examples are hits") from the fixture kit's
    recordings of each piece (fixtures kit/kick/ and so on, rendered by sonotype.hits.kit); true when
    the taught model was learned (the processor runs it once its model service has swapped it in). */
inline bool teachFixtureKit (plugin::SonotypeProcessor& processor)
{
    processor.teaching().setHits (true);
    for (const auto* piece : { "kick", "snare", "hat" })
    {
        if (processor.teaching().addClass (piece).isNotEmpty())
            return false;
        const auto c = static_cast<int> (processor.teaching().view().classes.size()) - 1;
        if (processor.teaching().addFiles (c, { juce::File (fixturePath (std::string ("kit/") + piece)) }).isNotEmpty()) // a folder
            return false;
    }
    return processor.teaching().waitUntilIdle (60000) && processor.teaching().view().error.isEmpty();
}

/** A model file that takes as long to read as the test wants: TestProcessor's reads of it wait
    until release() (or, so that a loader that blocks its caller makes the test fail rather than
    hang, 20 s). It holds a few bytes that are not a model: loading it ends in an error. (The
    engine refuses pipes and devices outright, so slowness cannot come from the file system.) */
class SlowModelFile
{
public:
    SlowModelFile()
        : file_ (juce::File::getSpecialLocation (juce::File::tempDirectory).getNonexistentChildFile ("slow_model", ".safetensors")),
          gate_ (std::make_shared<Gate>())
    {
        created_ = file_.replaceWithText ("not a model");
        const std::lock_guard<std::mutex> lock (registryMutex());
        registry()[file_.getFullPathName().toStdString()] = gate_;
    }
    ~SlowModelFile()
    {
        release();
        {
            const std::lock_guard<std::mutex> lock (registryMutex());
            registry().erase (file_.getFullPathName().toStdString());
        }
        file_.deleteFile();
    }
    const juce::File& file() const noexcept { return file_; }
    bool created() const noexcept { return created_; }
    void release()
    {
        {
            const std::lock_guard<std::mutex> lock (gate_->mutex);
            gate_->released = true;
        }
        gate_->wake.notify_all();
    }
    bool isReleased()
    {
        const std::lock_guard<std::mutex> lock (gate_->mutex);
        return gate_->released;
    }

    /** Waits while `file` is a SlowModelFile not yet released (at most 20 s). */
    static void waitIfSlow (const juce::File& file)
    {
        std::shared_ptr<Gate> gate;
        {
            const std::lock_guard<std::mutex> lock (registryMutex());
            const auto it = registry().find (file.getFullPathName().toStdString());
            if (it == registry().end())
                return;
            gate = it->second;
        }
        std::unique_lock<std::mutex> lock (gate->mutex);
        gate->wake.wait_for (lock, std::chrono::seconds (20), [&] { return gate->released; });
        gate->released = true;
    }

private:
    struct Gate
    {
        std::mutex mutex;
        std::condition_variable wake;
        bool released = false;
    };
    static std::mutex& registryMutex()
    {
        static std::mutex mutex;
        return mutex;
    }
    static std::map<std::string, std::shared_ptr<Gate>>& registry()
    {
        static std::map<std::string, std::shared_ptr<Gate>> gates;
        return gates;
    }

    juce::File file_;
    bool created_ = false;
    std::shared_ptr<Gate> gate_;
};

class TestProcessor final : public plugin::SonotypeProcessor
{
public:
    juce::AudioProcessorEditor* createEditor() override { return new gui::SonotypeEditor (*this); }

protected:
    std::shared_ptr<const engine::Model> readModelFile (const juce::File& file) override
    {
        SlowModelFile::waitIfSlow (file);
        return SonotypeProcessor::readModelFile (file);
    }
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

    /** Until the worker has analyzed everything pushed (its results and MIDI are out), or 30 s. */
    void waitForWorker()
    {
        lastWait_ = samples_;
        waitForAnalysis (processor_);
    }

    /** Until the processor's worker has analyzed all audio pushed so far, or 30 s; returns whether it did. */
    static bool waitForAnalysis (const plugin::SonotypeProcessor& processor)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds (30);
        auto caughtUp = [&] {
            const auto stats = processor.analysis().stats();
            return stats.analyzedSamples >= stats.pushedSamples;
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
