// The plugin's taught classes: the sounds the user gives each class (recorded from the input, a
// region of an analysed file, dropped files), learned on the running base model into a taught
// model (teach::buildTaughtModel: the base model plus its head as engine ops) that the processor
// runs in its place. Learning happens on this object's own thread, never the audio or message
// thread; the sounds are kept (teach::ExampleSet, bounded) so that the classes are learned again,
// and the user told, when the base model changes, and saved with the plugin's state.
//
// Threading contract
// - Message thread: the edits (addClass, addSound, addFiles, removeExample, ...), setEnabled(),
//   view(), exportModel(), examples()/restore() (the saved state), importModel().
// - The loader thread or the message thread (the processor's install callback): setBase().
// - The teacher thread (a juce::Thread): reads and resamples dropped files, computes each new
//   example's embedding on the base model, learns, checks (leave one out), builds the taught model
//   and hands it to the install callback.
// Shared: everything behind mutex_ (held briefly: never while embedding, learning or installing).
// The callbacks are called without mutex_ held.
#pragma once

#include "engine/Model.h"
#include "plugin/ModelLoader.h"
#include "teach/ExampleSet.h"
#include "teach/Teacher.h"

#include <juce_core/juce_core.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace sonotype::plugin
{

class TeachSession final : private juce::Thread
{
public:
    struct Callbacks
    {
        /** Teacher thread: runs `model` (the taught model, or the base model again when teaching is
            off or has nothing to learn) if `baseGeneration` is still the current base. */
        std::function<void (std::shared_ptr<const engine::Model> model, uint64_t baseGeneration)> install;
        /** Teacher thread: what the user should be told (re-learned for a new model, an error). */
        std::function<void (juce::String message, bool isError)> setStatus;
    };

    /** What the Teach panel shows: copies. */
    struct ExampleView
    {
        juce::String source;
        double seconds = 0.0;
        int heardAs = -1;   // leave one out: the class (index) this example got from the others; -1: not checked yet
        bool checked = false;
        int hits = 0;       // hits mode: the hits found in it (each one example), and how many the others recognise
        int hitsRecognised = 0;
    };
    struct ClassView
    {
        juce::String name;
        bool baseClass = false; // one of the base model's classes (adapted), else new
        std::vector<ExampleView> examples;
        int recognised = 0;     // examples (hits mode: hits) the others recognise (leave one out)
        int hits = 0;           // hits mode: the hits found in its examples
    };
    struct View
    {
        uint64_t version = 0;   // changes with every edit and every learning
        std::vector<ClassView> classes;
        juce::StringArray labels; // what a checked example can be heard as: the classes, then "unknown" when there is one
        bool enabled = true;
        bool hits = false;      // each hit of an example teaches (drum pieces, for per-hit MIDI)
        bool busy = false;      // reading files or learning
        bool runningTaught = false;
        int pendingFiles = 0;
        double learnMilliseconds = 0.0; // the last learning (embeddings of new examples, learning, checks, the model)
        double storedSeconds = 0.0, sampleRate = 16000.0;
        juce::String baseName, error;
    };

    explicit TeachSession (Callbacks callbacks);
    ~TeachSession() override;
    /** Stops the teacher thread (a learning under way ends first). */
    void stop();

    // ----- edits (message thread); each returns the error to show, empty on success -----------
    juce::String addClass (const juce::String& name);
    void removeClass (int classIndex);
    /** A sound at `sampleRate` (mono): resampled to the set's rate, cut to kMaxExampleSeconds. */
    juce::String addSound (int classIndex, const std::vector<float>& samples, double sampleRate, const juce::String& source);
    /** Audio files, and folders searched for them (read on the teacher thread); a region
        [startSeconds, endSeconds) of one file when endSeconds > startSeconds. */
    juce::String addFiles (int classIndex, const juce::Array<juce::File>& files, double startSeconds = 0.0, double endSeconds = 0.0);
    void removeExample (int classIndex, int exampleIndex);
    /** Taught classes answer (true) or the base model does (false); the examples stay. */
    void setEnabled (bool enabled);
    bool isEnabled() const;
    /** Each hit found in an example is one example (true: drum pieces, learned as `sonotype learn
        --hits` learns them, for the per-hit mode) or each example as a whole (false). */
    void setHits (bool hits);
    /** The threshold under which a new class's answer is "unknown" (cosine, -1..1; -1: never). */
    void setUnknownBelow (double threshold);

    View view() const;

    /** Writes the taught model (with its examples) to `file`; returns the error, empty on success. */
    juce::String exportModel (const juce::File& file) const;
    /** Takes the classes and examples a taught model file carries (exported by a Teach panel), in
        place of the ones here; they are learned on the running base model. */
    juce::String importModel (const juce::File& file);

    // ----- saved state (message thread) ---------------------------------------------------------
    teach::ExampleSet examples() const;
    /** Takes these classes and examples in place of the ones here. `waitForBase`: a session's
        model is being loaded; they are learned once it runs (setBase) or resume() says the load
        ended, not on the model running now. */
    void restore (teach::ExampleSet set, bool enabled, bool waitForBase = false);
    /** Learning goes on (a model load that restore() waited for has ended without a new model). */
    void resume();

    // ----- base model (the processor's install callback) -----------------------------------------
    /** The base model now running; the taught classes are learned on it again. Returns the new
        base generation. */
    uint64_t setBase (std::shared_ptr<const engine::Model> model, const ModelDescription& description);
    bool isCurrentBase (uint64_t generation) const;
    /** Whether the running model is the taught one, and its classes (for the model's display). */
    bool isRunningTaught() const;

    /** Waits (up to timeoutMs) until nothing is left to read or learn; true if so (tests). */
    bool waitUntilIdle (int timeoutMs) const;

private:
    struct StoredExample
    {
        uint64_t id = 0;
        teach::ExampleSound sound;
    };
    struct StoredClass
    {
        std::string name;
        std::vector<StoredExample> examples;
    };
    struct FileJob
    {
        std::string className;
        juce::File file;
        double start = 0.0, end = 0.0;
    };

    void run() override;
    void readFile (const FileJob& job);
    void learn();
    juce::String addLocked (const std::string& className, teach::ExampleSound sound); // mutex_ held
    void edited();                                                                // mutex_ held
    void wake();                                                                  // starts the thread (once) and wakes it

    const Callbacks callbacks_;
    mutable std::mutex mutex_;
    std::atomic<bool> stopped_ { false }; // after stop(), wake() no longer starts the thread
    std::vector<StoredClass> classes_;
    double sampleRate_ = 16000.0, unknownBelow_ = 0.5;
    std::string learnedOn_;
    bool enabled_ = true;
    uint64_t nextId_ = 1, edits_ = 1, learnedEdits_ = 0, version_ = 1;
    std::vector<FileJob> jobs_;
    bool learning_ = false;
    bool waitingForBase_ = false;
    // The base model and what was learned on it.
    std::shared_ptr<const engine::Model> base_;
    ModelDescription baseDescription_;
    uint64_t baseGeneration_ = 0, learnedGeneration_ = 0;
    bool hits_ = false;
    // By example id, on base generation embeddedGeneration_: its embedding (hits mode: one per hit).
    std::map<uint64_t, std::vector<teach::Example>> embedded_;
    uint64_t embeddedGeneration_ = 0;
    std::map<uint64_t, std::vector<int>> heardAs_; // leave one out, by example id (hits mode: one per hit)
    std::vector<std::string> learnedLabels_;
    std::optional<teach::Head> head_;             // the last head learned (export builds the file again, with the examples)
    std::shared_ptr<const std::vector<std::uint8_t>> baseBytes_; // the base model's file, on base generation bytesGeneration_
    uint64_t bytesGeneration_ = 0;
    std::shared_ptr<const std::vector<std::uint8_t>> headBytes_; // the file head_ extends: the base, or its hit embedding (teach/HitEmbedding.h)
    // Hits mode, on base generation bytesGeneration_: the base's hit-embedding file and its model (the
    // base's own where it has no token sequence), made once per base rather than every learning round.
    std::shared_ptr<const std::vector<std::uint8_t>> hitBytes_;
    std::shared_ptr<const engine::Model> hitEmbedder_;
    bool runningTaught_ = false;
    double learnMilliseconds_ = 0.0;
    juce::String error_;
};

} // namespace sonotype::plugin
