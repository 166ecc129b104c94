// The Sonotype plugin's audio processor: an analyzer. Audio passes through bit-exactly with zero
// latency; processBlock() only pushes the block into the streaming runtime, whose worker thread
// classifies it; detections go out as MIDI (through a lock-free queue back to the audio thread) and,
// optionally, OSC. The GUI reads lock-free snapshots (see snapshot()). In per-hit mode (HitNotes)
// each hit is a note instead, and the plugin reports a latency and delays its pass-through by it.
//
// The processor keeps the juce::AudioProcessor duties (pass-through, the input meter, the
// transport, prepare/release), the parameters, the status message and the saved state; the rest
// lives in parts split by the thread that owns them, and the processor delegates to them:
// - runtime::StreamingRuntime: the analysis (audio thread's inlet, worker thread);
// - MidiScheduler: detections to MIDI (worker thread queues, audio thread writes);
// - HitNotes: the per-hit mode's notes and pass-through delay (worker thread queues, audio thread writes);
// - ClassFilter: the classes the user disabled (message thread; the worker's cached mask);
// - ModelService: the model that runs (a file, the built-in model, a session's, the taught classes
//   learned on it), changed only on its own juce::Thread;
// - OscOutput (worker thread sends) and FilePlayer (its own juce::Thread reads, audio thread plays);
// - FileTimelines: whole files analysed on its own juce::Thread, for the timeline (no device needed);
// - LiveHistory: the live detections as segments (worker thread adds), for export;
// - Teaching: the taught classes as the Teach view edits them, learned by the model service
//   into a model run in the base model's place; InputRecorder: a few seconds of what the analysis
//   hears, to teach from (audio thread writes, message thread takes).
//
// The plugin and the standalone app run one signal chain (processBlock()): the source (a file the
// FilePlayer plays, or the input) -> the InputGate -> the input peak -> the analysis -> the
// per-hit mode's delay -> MIDI. In the standalone app the gate keeps the input from the output (a
// microphone next to speakers would feed back) and from the analysis unless the user asks for it
// (setListeningToInput()): the app plays and analyses files; with nothing playing and no input
// asked for, nothing is analysed. In a plugin the gate lets everything pass.
//
// Threading contract
// - Audio thread: processBlock(), processBlockBypassed(), takeInputPeak(). Never blocks,
//   allocates or locks (tested by counting).
// - prepareToPlay's thread (the message thread, or JUCE's standalone device thread):
//   prepareToPlay(), releaseResources(); never during processBlock().
// - Message thread: everything else (GUI, state, loading, the class filter, the 10 Hz timer that
//   applies hop and smoothing).
// - Worker thread: onResult(), the runtime's result listener (MIDI, OSC).
// - Model service thread: readModelFile() and the service's install callback (the runtime's
//   reconfigure with a new model: nothing else swaps the model; the message thread's timer only
//   changes the hop and smoothing, keeping the model).
// Shared here: the status messages (StatusMessages, behind their own mutex: message thread, model
// service, prepareToPlay; never the audio thread); the applied hop and smoothing behind parameterMutex_ (the timer and
// prepareToPlay); the input peak (an atomic, audio thread -> GUI); the parameters (the host's
// atomics). What may block: the destructor waits for the model service's command under way and
// joins the worker.
#pragma once

#include "plugin/ClassFilter.h"
#include "plugin/FilePlayer.h"
#include "plugin/FileTimelines.h"
#include "plugin/HitNotes.h"
#include "plugin/InputGate.h"
#include "plugin/InputRecorder.h"
#include "plugin/LiveHistory.h"
#include "plugin/MidiScheduler.h"
#include "plugin/ModelService.h"
#include "plugin/OscOutput.h"
#include "plugin/StatusMessages.h"
#include "plugin/Teaching.h"
#include "runtime/Detector.h"
#include "runtime/StreamingRuntime.h"
#include "timeline/TimelineExport.h"

#include <juce_audio_processors/juce_audio_processors.h>

#include <atomic>
#include <mutex>
#include <optional>

namespace sonotype::plugin
{

/** What the GUI (and tests) read each frame: copies, never references into live state. */
struct LiveSnapshot
{
    bool hasResult = false;
    runtime::WindowResult result;
    bool stale = false;
    int topClass = -1; // the most probable enabled class, or -1
    runtime::RuntimeStats stats;
    std::shared_ptr<const runtime::AnalysisInfo> info;
    HitStatus hits;
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
    /** The model that runs: the base model (loaded or built-in), "+ taught" when the taught
        classes answer in its place. */
    ModelDescription modelDescription() const;

    /** Loads a model file on the model service's thread (never the message thread, never the
        audio thread: a slow or huge file freezes nothing) and swaps it in while audio runs.
        Returns at once; meanwhile the status says "Loading ..." and isLoadingModel() is true. Then
        the status says which model was loaded, or why not (the running model keeps running). A
        newer request (another file, the built-in model, a state restore) supersedes an unfinished
        one. */
    void loadModelFile (const juce::File& file) { service_.load (file); }
    /** Swaps the built-in model in, on the model service's thread: returns at once, and
        isLoadingModel() is true until it runs. */
    void useBuiltinModel() { service_.useBuiltin(); }
    /** Whether a model command (a file, the built-in model, a session's model) has not ended. */
    bool isLoadingModel() const { return service_.isLoading(); }

    /** The messages the GUI shows in its message strip, one per cause (StatusMessages): model
        loads, file analysis, exports, teaching, OSC, the device, ... */
    const StatusMessages& messages() const noexcept { return status_; }
    /** Says `message` for `cause`, replacing that cause's message (empty: clears it, as its cause
        is gone). Any thread but the audio thread. */
    void setStatus (StatusCause cause, juce::String message, StatusKind kind) { status_.post (cause, std::move (message), kind); }
    void clearStatus (StatusCause cause) { status_.clear (cause); }
    /** The user closed message `serial` of `cause` (a newer one of that cause stays). */
    void dismissStatus (StatusCause cause, uint64_t serial) { status_.dismiss (cause, serial); }
    /** Shorthand for a message of no more specific cause: an error, or an info that fades. */
    void setStatus (juce::String message, bool isError);
    /** Every message goes. */
    void clearStatus() { status_.clearAll(); }
    /** The newest message up (empty: none), and whether it is an error. */
    juce::String statusMessage() const { return status_.newest().text; }
    bool statusIsError() const { return status_.newest().isError(); }

    /** The class filter, by label (so it survives a model swap): disabled classes are excluded
        from the top class, MIDI and OSC. */
    void setClassEnabled (const juce::String& label, bool enabled) { classes_.setEnabled (label, enabled); }
    bool isClassEnabled (const juce::String& label) const { return classes_.isEnabled (label); }

    OscOutput& osc() noexcept { return osc_; }
    /** The taught classes (the Teach view). */
    Teaching& teaching() noexcept { return teach_; }
    /** Records what the analysis hears, to teach from. */
    InputRecorder& recorder() noexcept { return recorder_; }
    /** Plays a file in place of the input (the standalone app's transport). */
    FilePlayer& filePlayer() noexcept { return player_; }

    /** Analyses whole files in the background with the running model, hop and smoothing (the
        timeline; no audio device needed). A new model, hop, smoothing or threshold applies to them
        too (the 10 Hz timer sees to it). */
    void analyzeFiles (const juce::Array<juce::File>& files);
    /** Adds files to those analysed (FileTimelines::add: the analysed ones stay, none twice). */
    void addFilesToAnalyze (const juce::Array<juce::File>& files);
    const FileTimelines& fileTimelines() const noexcept { return files_; }
    /** What an export of segments or hits of `labels` (an analysed file's, the live history's)
        writes beside them: `source`, the Base note, and where `labels` are the running model's,
        the notes its file chose for its classes (the MIDI notes MIDI out plays). */
    timeline::ExportSettings exportSettings (const std::string& source, const std::vector<std::string>& labels) const;
    /** The live analysis' detections this session, as segments. */
    LiveHistory::Snapshot liveHistory() const { return history_.snapshot(); }
    void clearLiveHistory() { history_.clear(); }

    /** Standalone app: whether the audio input is analysed when no file plays (off at first). */
    void setListeningToInput (bool shouldListen) noexcept { gate_.setListening (shouldListen); }
    bool isListeningToInput() const noexcept { return gate_.isListening(); }
    /** Standalone app: whether an audio device is open (files can be played, input heard). */
    void setAudioDeviceAvailable (bool available) noexcept { deviceAvailable_.store (available); }
    bool isAudioDeviceAvailable() const noexcept { return deviceAvailable_.load(); }

    /** The detection threshold, 0..1 (the parameter is in percent). */
    float detectionThreshold() const noexcept;

    /** Peak input level since the last call (linear), for the meter. */
    float takeInputPeak() noexcept { return inputPeak_.exchange (0.0f, std::memory_order_relaxed); }

    /** Applies changed hop/smoothing parameters now (also done 10 times a second by a timer), and
        the per-hit mode's (its onset settings, and the latency it reports). */
    void applyAnalysisParameters();

    /** The per-hit mode (its latency, the delay of its last note). */
    const HitNotes& hitNotes() const noexcept { return hits_; }

protected:
    /** Reads and validates a model file (engine::Model::load), on the model service's thread; throws
        what it refuses. Tests override it to make a read take as long as they want. */
    virtual std::shared_ptr<const engine::Model> readModelFile (const juce::File& file);

private:
    static BusesProperties defaultBuses();
    void timerCallback() override;
    void onResult (const runtime::WindowResult& result, const runtime::AnalysisInfo& info); // worker thread
    FileTimelines::Settings fileAnalysisSettings() const;
    void updateFileAnalysis();                               // message thread: files follow the live analysis' settings
    void applyHitParameters (double sampleRate, bool force); // under parameterMutex_
    // The audio thread's steps of processBlock().
    void meterPeak (const juce::AudioBuffer<float>& buffer, int numChannels, int numSamples) noexcept;
    bool transportStopped() noexcept;
    void writeNotes (juce::MidiBuffer& midi, int numSamples, bool analysed, bool stopped, bool offline) noexcept;

    std::unique_ptr<runtime::StreamingRuntime> runtime_;
    std::atomic<float>* hop_ = nullptr;
    std::atomic<float>* smoothing_ = nullptr;
    bool analysisRateRefused_ = false;                  // prepareToPlay's thread: the last rate was refused
    std::mutex parameterMutex_;                         // the message thread's timer and a device thread's prepareToPlay, never the audio thread
    double appliedHop_ = 0.0, appliedSmoothing_ = -1.0; // on the parameters' 10 ms grid; guarded by parameterMutex_
    std::optional<dsp::OnsetSettings> appliedOnsets_;   // the same: the exact per-hit analysis asked of the runtime (none: off or live)
    /** What the live per-hit path was made for: its classifier (none: no live path), onsets and rate. */
    struct LiveKey
    {
        std::shared_ptr<const runtime::LiveHitClassifier> classifier;
        dsp::OnsetSettings onsets;
        double sampleRate = 0.0;
        bool operator== (const LiveKey&) const = default;
    };
    mutable std::shared_ptr<const engine::Model> fileKitModel_; // message thread (fileAnalysisSettings): the model fileModelHasKit_ is of
    mutable bool fileModelHasKit_ = false;
    LiveKey appliedLive_;                                              // the same
    std::shared_ptr<const engine::Model> liveModel_;                   // the same: the model liveClassifier_ is of
    std::shared_ptr<const runtime::LiveHitClassifier> liveClassifier_; // the same: its live kit's classifier (none: no kit)
    std::atomic<bool> modelHasKit_ { false };                          // liveClassifier_ is not null (for the snapshot, any thread)
    int64_t appliedHitLatency_ = 0;                                    // the same: the latency reported
    bool hitShortfallShown_ = false;                                   // the same: the status says the latency is short

    // Audio thread (prepareToPlay too: the host never runs both at once).
    bool wasPlaying_ = false;
    InputGate gate_; // standalone app: its input analysed only when asked for (the message thread says), never heard
    std::atomic<float> inputPeak_ { 0.0f };
    std::atomic<bool> deviceAvailable_ { true }; // standalone app; set on the message thread
    juce::StringArray reportedFailures_;         // message thread: the files whose failure the status told (since they were opened)
    uint64_t reportedVersion_ = 0;               // message thread: the file analyzer's version the failures were looked for in
    bool fileErrorIsOld_ = false;                // message thread: the file error up (if any) is of files opened before these
    std::size_t newFilesFrom_ = 0;               // message thread: the first file of the last open or add

    StatusMessages status_; // message thread, model service and prepareToPlay, never the audio thread

    ClassFilter classes_;
    MidiScheduler midi_;
    HitNotes hits_;
    OscOutput osc_;
    FilePlayer player_;
    FileTimelines files_;
    LiveHistory history_;
    InputRecorder recorder_;
    ModelService service_; // its thread (started by its first command) uses everything above
    Teaching teach_;       // gives the service its classes

    JUCE_DECLARE_NON_COPYABLE_WITH_LEAK_DETECTOR (SonotypeProcessor)
};

} // namespace sonotype::plugin
