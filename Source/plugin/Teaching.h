// The plugin's taught classes, as the Teach view shows and edits them: the sounds the user gives
// each class (recorded from the input, a region of an analysed file, dropped files), kept
// (teach::ExampleSet, bounded) so that they are saved with the plugin's state and learned again
// when the base model changes. Learning is the model service's (ModelService): each edit hands it
// a copy of the classes (TaughtClasses), which it learns on the running base model into the model
// it runs in its place; the view shows what it learned (LessonOutcome). Dropped files are read on
// the service's thread too, in tasks posted to it.
//
// Threading contract
// - Message thread: the edits (addClass, addSound, addFiles, removeExample, ...), setEnabled(),
//   view(), exportModel(), importModel(), examples()/restore() (the saved state).
// - Service thread: the file reads addFiles() posts (readFile(): each adds its sound as an edit).
// - Any thread but the audio thread: isEnabled(), isRunningTaught(), waitUntilIdle().
// Shared: everything here behind mutex_ (held briefly: never while reading a file). With mutex_
// held it calls the service's commands and queries, which take only the service's own mutex and
// never call back; the status callback is called without mutex_ held.
#pragma once

#include "plugin/ModelService.h"
#include "teach/ExampleSet.h"

#include <juce_core/juce_core.h>

#include <functional>
#include <memory>
#include <mutex>

namespace sonotype::plugin
{

class Teaching final
{
public:
    /** What the Teach panel shows: copies. */
    struct ExampleView
    {
        juce::String source;
        double seconds = 0.0;
        int heardAs = -1; // leave one out: the class (index) this example got from the others; -1: not checked yet
        bool checked = false;
        int hits = 0; // hits mode: the hits found in it (each one example), and how many the others recognise
        int hitsRecognised = 0;
    };
    struct ClassView
    {
        juce::String name;
        bool baseClass = false; // one of the base model's classes (adapted), else new
        int note = -1;          // the MIDI note chosen for it; -1: none (playedNotes() says what it plays)
        std::vector<ExampleView> examples;
        int recognised = 0; // examples (hits mode: hits) the others recognise (leave one out)
        int hits = 0;       // hits mode: the hits found in its examples
    };
    struct View
    {
        uint64_t version = 0; // changes with every edit and every learning
        std::vector<ClassView> classes;
        juce::StringArray labels; // what a checked example can be heard as: the classes, then "unknown" when there is one
        bool enabled = true;
        bool hits = false;         // each hit of an example teaches (drum pieces, for per-hit MIDI)
        bool hitsAutomatic = true; // hits as the examples' lengths say (all shorter than the model's window), not as the user chose
        bool busy = false;         // reading files or learning
        bool runningTaught = false;
        int pendingFiles = 0;
        double learnMilliseconds = 0.0; // the last learning (embeddings of new examples, learning, checks, the model)
        double storedSeconds = 0.0, sampleRate = 16000.0;
        juce::String baseName, error;
    };

    /** Learned by `service` (which outlives this object and is stopped before it goes);
        `setStatus`: any thread, what the user should be told (a file that could not be read). */
    Teaching (ModelService& service, std::function<void (juce::String message, bool isError)> setStatus);

    // ----- edits (message thread); each returns the error to show, empty on success -----------
    juce::String addClass (const juce::String& name);
    void removeClass (int classIndex);
    /** A sound at `sampleRate` (mono): resampled to the set's rate, cut to kMaxExampleSeconds. */
    juce::String addSound (int classIndex, const std::vector<float>& samples, double sampleRate, const juce::String& source);
    /** Audio files, and folders searched for them (read on the service thread); a region
        [startSeconds, endSeconds) of one file when endSeconds > startSeconds. */
    juce::String addFiles (int classIndex, const juce::Array<juce::File>& files, double startSeconds = 0.0, double endSeconds = 0.0);
    void removeExample (int classIndex, int exampleIndex);
    /** Taught classes answer (true) or the base model does (false); the examples stay. */
    void setEnabled (bool enabled);
    bool isEnabled() const;
    /** Each hit found in an example is one example (true: drum pieces, learned as `sonotype learn
        --hits` learns them, for the per-hit mode) or each example as a whole (false). Until the
        user chooses, hits exactly when every example is shorter than the base model's window
        (one-shots), as `sonotype learn` decides. */
    void setHits (bool hits);
    /** One threshold under which an answer is "unknown" (cosine, -1..1; -1: never; NaN, the
        default: each class's own, calibrated from its examples: teach/Prototypes.h). */
    void setUnknownBelow (double threshold);
    /** The MIDI note the class plays (0-127), kept with it (saved state, exported and running
        model); -1: none chosen, the one its name says (timeline/NoteMap.h) or base note + index. */
    void setNote (int classIndex, int note);

    View view() const;
    /** The note each class of `view` plays at `baseNote`, as the taught model runs (its classes
        and "unknown"; a class without examples yet as if it had some): timeline::resolveNotes. */
    static std::vector<int> playedNotes (const View& view, int baseNote);

    /** Writes the taught model (with its examples) to `file`, making the folders above it; returns
        the error (with the system's reason: plugin::writeFile), empty on success. */
    juce::String exportModel (const juce::File& file) const;
    /** Takes the classes and examples a taught model file carries (exported by a Teach panel), in
        place of the ones here; they are learned on the running base model. */
    juce::String importModel (const juce::File& file);

    // ----- saved state (message thread) ---------------------------------------------------------
    teach::ExampleSet examples() const;
    /** Takes these classes and examples in place of the ones here (files still to read are
        dropped). They are learned once the commands given to the service before have run: a
        session's model first, when the processor restores one. */
    void restore (teach::ExampleSet set, bool enabled);

    /** Whether the running model is the taught one. */
    bool isRunningTaught() const;

    /** Waits (up to timeoutMs) until nothing is left to read or learn; true if so (tests). */
    bool waitUntilIdle (int timeoutMs) const;

private:
    struct StoredExample
    {
        uint64_t id = 0;
        std::shared_ptr<const teach::ExampleSound> sound; // shared with the service's copies; never changed
    };
    struct StoredClass
    {
        std::string name;
        std::vector<StoredExample> examples;
        int note = -1;
    };
    struct FileJob
    {
        std::string className;
        juce::File file;
        double start = 0.0, end = 0.0;
    };

    void readFile (const FileJob& job, uint64_t epoch);                               // service thread
    juce::String addLocked (const std::string& className, teach::ExampleSound sound); // mutex_ held, from here on
    void edited();
    double sampleRateLocked (const engine::Model& base) const;
    std::string learnedOnLocked (const LessonOutcome* outcome) const;
    bool busyLocked() const;
    bool hitsLocked() const; // as chosen, or as the examples' lengths say

    ModelService& service_;
    const std::function<void (juce::String, bool)> setStatus_;
    mutable std::mutex mutex_;
    std::vector<StoredClass> classes_;
    double sampleRate_ = 16000.0, unknownBelow_ = teach::kCalibratedUnknown; // sampleRate_: once there are classes (before, the base model's)
    bool enabled_ = true, hits_ = false, hitsChosen_ = false;
    std::string learnedOn_;           // as restored: the base the classes were last learned on
    uint64_t nextId_ = 1, edits_ = 0; // edits_: the version of the classes the service was last given
    uint64_t restoredAt_ = 0;         // the edit restore() made: outcomes before it are of other classes
    uint64_t version_ = 1;            // the view's, with each outcome's serial
    int pendingFiles_ = 0;
    uint64_t readEpoch_ = 0; // restore() drops the reads not yet done
    juce::String readError_; // the last file that could not be added, at edit readErrorAt_
    uint64_t readErrorAt_ = 0;
};

} // namespace sonotype::plugin
