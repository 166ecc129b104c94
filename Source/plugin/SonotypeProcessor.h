// The Sonotype plugin's audio processor: an analyser. Audio passes through bit-exactly with zero
// latency; processBlock() only pushes the block into the streaming runtime, whose worker thread
// classifies it; detections go out as MIDI (through a lock-free queue back to the audio thread) and,
// optionally, OSC. The GUI reads lock-free snapshots (see snapshot()).
#pragma once

#include "plugin/FilePlayer.h"
#include "plugin/OscOutput.h"
#include "runtime/Detector.h"
#include "runtime/StreamingRuntime.h"

#include <juce_audio_processors/juce_audio_processors.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <optional>
#include <thread>
#include <mutex>
#include <set>

namespace sonotype::plugin
{

/** Which model runs, for display and for the saved state. */
struct ModelDescription
{
    juce::String name;     // file name, or "built-in"
    juce::File file;       // empty for the built-in model
    bool builtin = true;
};

/** What the GUI (and tests) read each frame: copies, never references into live state. */
struct LiveSnapshot
{
    bool hasResult = false;
    runtime::WindowResult result;
    bool stale = false;
    int topClass = -1; // the most probable enabled class, or -1
    runtime::RuntimeStats stats;
    std::shared_ptr<const runtime::AnalysisInfo> info;
};

class SonotypeProcessor : public juce::AudioProcessor, private juce::Timer
{
public:
    SonotypeProcessor();
    ~SonotypeProcessor() override;

    // ----- juce::AudioProcessor ---------------------------------------------------------------
    void prepareToPlay (double sampleRate, int maximumExpectedSamplesPerBlock) override;
    void releaseResources() override;
    bool isBusesLayoutSupported (const BusesLayout& layouts) const override;
    void processBlock (juce::AudioBuffer<float>&, juce::MidiBuffer&) override;
    void processBlockBypassed (juce::AudioBuffer<float>&, juce::MidiBuffer&) override;
    using juce::AudioProcessor::processBlock;
    using juce::AudioProcessor::processBlockBypassed;

    const juce::String getName() const override { return "Sonotype"; }
    bool acceptsMidi() const override { return false; }
    bool producesMidi() const override { return true; }
    bool isMidiEffect() const override { return false; }
    double getTailLengthSeconds() const override { return 0.0; }
    int getNumPrograms() override { return 1; }
    int getCurrentProgram() override { return 0; }
    void setCurrentProgram (int) override {}
    const juce::String getProgramName (int) override { return "Default"; }
    void changeProgramName (int, const juce::String&) override {}
    bool hasEditor() const override { return true; }
    void getStateInformation (juce::MemoryBlock& destData) override;
    void setStateInformation (const void* data, int sizeInBytes) override;

    // ----- for the GUI and tests (message thread) ----------------------------------------------
    juce::AudioProcessorValueTreeState parameters;

    LiveSnapshot snapshot() const;
    const runtime::StreamingRuntime& analysis() const noexcept { return *runtime_; }
    ModelDescription modelDescription() const;

    /** Loads a model file on a background thread (never the message thread, never the audio
        thread: a slow or huge file freezes nothing) and swaps it in while audio runs. Returns at
        once; meanwhile the status says "Loading ..." and isLoadingModel() is true. Then the status
        says which model was loaded, or why not (the running model keeps running). A newer
        request (another file, the built-in model, a state restore) supersedes an unfinished one. */
    void loadModelFile (const juce::File& file);
    void useBuiltinModel();
    /** Whether a model file is still being loaded. */
    bool isLoadingModel() const;

    /** The message the GUI shows inline (empty: none); errors are marked as such. */
    juce::String statusMessage() const;
    bool statusIsError() const;
    void clearStatus();

    /** The class filter, by label (so it survives a model swap): disabled classes are excluded
        from the top class, MIDI and OSC. */
    void setClassEnabled (const juce::String& label, bool enabled);
    bool isClassEnabled (const juce::String& label) const;

    OscOutput& osc() noexcept { return osc_; }
    /** Plays a file in place of the input (the standalone app's transport). */
    FilePlayer& filePlayer() noexcept { return player_; }

    /** Peak input level since the last call (linear), for the meter. */
    float takeInputPeak() noexcept { return inputPeak_.exchange (0.0f, std::memory_order_relaxed); }

    /** Applies changed hop/smoothing parameters now (also done 10 times a second by a timer). */
    void applyAnalysisParameters();

protected:
    /** Reads and validates a model file (engine::Model::load), on the loader thread; throws
        what it refuses. Tests override it to make a read take as long as they want. */
    virtual std::shared_ptr<const engine::Model> readModelFile (const juce::File& file);

private:
    struct MidiEvent
    {
        bool noteOn = false;
        int note = 0;
        int velocity = 0;
        int64_t sample = 0; // offline: the stream sample it lands on (its result's readySample)
    };

    static BusesProperties defaultBuses();
    void timerCallback() override;
    void onResult (const runtime::WindowResult& result, const runtime::AnalysisInfo& info); // worker thread
    void sendMidi (juce::MidiBuffer& midi, int numSamples, bool stopEverything, bool offline) noexcept; // audio thread
    void swapModel (std::shared_ptr<const engine::Model> model, ModelDescription description);
    enum class LoadKind
    {
        user,   // dropped or chosen: on failure the running model keeps running
        restore // a session's model: on failure the built-in model runs, and the status says so
    };
    void requestModelLoad (const juce::File& file, LoadKind kind);
    void loaderLoop();                                                   // the loader thread
    void finishModelLoad (uint64_t request, const juce::File& file, LoadKind kind); // the loader thread
    void setStatus (juce::String message, bool isError);
    std::vector<bool> enabledMask (const std::vector<std::string>& labels) const;

    std::unique_ptr<runtime::StreamingRuntime> runtime_;
    std::atomic<float>* hop_ = nullptr;
    std::atomic<float>* smoothing_ = nullptr;
    std::atomic<float>* threshold_ = nullptr;
    std::atomic<float>* midiOut_ = nullptr;
    std::atomic<float>* baseNote_ = nullptr;
    bool analysisRateRefused_ = false; // prepareToPlay's thread: the last rate was refused
    std::mutex parameterMutex_; // the message thread's timer and a device thread's prepareToPlay, never the audio thread
    float appliedHop_ = 0.0f, appliedSmoothing_ = -1.0f; // guarded by parameterMutex_

    // Worker thread side of detection.
    runtime::Detector detector_;
    uint64_t detectorGeneration_ = 0;
    uint64_t workerFilterVersion_ = ~uint64_t {};
    std::vector<bool> workerEnabled_;
    std::atomic<bool> resetDetector_ { false };
    runtime::SpscRing<MidiEvent> midiQueue_ { 256 };
    int workerNote_ = -1; // the note the worker last turned on: its note-off names it, whatever the base note is now

    // Audio thread side of MIDI (prepareToPlay too: the host never runs both at once).
    int activeNote_ = -1;
    bool closeActiveNote_ = false;       // prepareToPlay with a note sounding: its note-off goes out in the next block
    std::array<MidiEvent, 256> held_ {}; // offline: events taken from the queue whose sample is still to come
    int numHeld_ = 0;
    int64_t streamPosition_ = 0;         // samples processed since prepareToPlay
    bool wasPlaying_ = false;
    std::atomic<float> inputPeak_ { 0.0f };

    // Message thread (and the worker for the filter, behind filterMutex_).
    mutable std::mutex filterMutex_;
    std::set<juce::String> disabledClasses_;
    std::atomic<uint64_t> filterVersion_ { 0 };

    mutable std::mutex statusMutex_; // message thread, loader and worker, never the audio thread
    juce::String status_;
    bool statusIsError_ = false;
    ModelDescription model_;
    ModelDescription requested_; // the model being loaded (what a state saved meanwhile names), behind statusMutex_

    // Model loading: the message thread posts requests, one loader thread runs them.
    std::mutex swapMutex_;            // loader and message thread: "is it still wanted? swap it in" in one step
    std::mutex loaderMutex_;          // the request slot below
    std::condition_variable loaderWake_;
    struct LoadRequest
    {
        uint64_t id = 0;
        juce::File file;
        LoadKind kind = LoadKind::user;
    };
    std::optional<LoadRequest> nextLoad_; // behind loaderMutex_
    bool loaderExit_ = false;            // behind loaderMutex_
    std::atomic<uint64_t> latestRequest_ { 0 }, finishedRequest_ { 0 };
    std::thread loader_;

    OscOutput osc_;
    FilePlayer player_;

    JUCE_DECLARE_NON_COPYABLE_WITH_LEAK_DETECTOR (SonotypeProcessor)
};

} // namespace sonotype::plugin
