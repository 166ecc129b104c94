// The model the plugin runs, and every change to it, on one thread: model files loaded off the
// message and audio threads, the built-in model, a session's model, and the taught classes learned
// on the running base model (teach::Lesson) into the model that runs in its place. Only this thread
// swaps the model (the processor's install callback: the runtime's reconfigure), so no two swaps
// ever race and the newest base always wins.
//
// Commands are small and return at once; the thread runs them in the order given, one at a time,
// and learns the taught classes when no command waits and what it last learned is out of date (the
// classes changed, or the base did). A newer model command supersedes a file load that has not
// ended (the older one is not swapped in, nor reported); the built-in model, which takes no time,
// is always swapped in when asked for. The shape of JUCE's background message queue for
// convolution: the audio thread never waits for any of it.
//
// Threading contract
// - Message thread: load(), useBuiltin(), restore(), stop() (the processor's destructor);
//   teach() and post() (the Teach view; teach() also from the tasks post() runs).
// - Service thread (a juce::Thread, this object's own; started by the first command): runs the
//   commands and the tasks posted, reads and validates model files (the read callback), learns,
//   and swaps models in (the install callback); may take long: it blocks nothing but itself.
// - Any thread but the audio thread: the queries (isLoading(), isBusy(), running(), requested(),
//   isRunningTaught(), base(), outcome()).
// - The audio thread never calls anything here.
// Shared: the queue, the model descriptions, the base, the taught classes and the last outcome
// behind mutex_ (held briefly: never while reading, learning or installing, and never while
// calling out, except the status callback, which only sets the status line); the lesson (the
// base's file and the embeddings kept) belongs to the service thread alone. What may block:
// stop() waits for a command under way (the engine's load budgets bound a file's load; a learning
// stops at the next class).
#pragma once

#include "engine/Model.h"
#include "plugin/StatusMessages.h"
#include "teach/ExampleSet.h"
#include "teach/Lesson.h"

#include <juce_core/juce_core.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace sonotype::plugin
{

/** Which model runs, for display and for the saved state. */
struct ModelDescription
{
    juce::String name; // file name, or "built-in"
    juce::File file;   // empty for the built-in model
    bool builtin = true;
};

/** The taught classes to learn on the running base model: a copy of the Teach view's classes, made
    at each edit (the sounds are shared, and never changed once added). */
struct TaughtClasses
{
    struct Sound
    {
        std::uint64_t id = 0; // unique for the service's life: the embeddings are kept by it
        std::shared_ptr<const teach::ExampleSound> sound;
    };
    struct Class
    {
        std::string name;
        std::vector<Sound> examples;
        int note = -1; // the MIDI note chosen for it (written into the taught model), -1: none
    };
    std::uint64_t version = 0; // the Teach view's edit: the outcome says which it learned
    std::vector<Class> classes;
    double sampleRate = 16000.0;
    double unknownBelow = teach::kCalibratedUnknown;
    bool hits = false;
    bool enabled = true;   // the taught classes answer (else the base model does; the examples stay)
    std::string learnedOn; // the base they were last learned on (teach::modelIdentity): the user is told when it changes
};

/** What the last learning gave, for the Teach view and its export. */
struct LessonOutcome
{
    std::uint64_t version = 0;                         // of the TaughtClasses learned
    std::uint64_t serial = 0;                          // one more for each outcome
    bool hits = false;                                 // heardAs counts hits
    std::map<std::uint64_t, std::vector<int>> heardAs; // leave one out, by sound id: the label each of its examples got (none: no hit in it)
    std::vector<std::string> labels;                   // the taught classes, then "unknown" when there is one; empty: nothing learned
    std::optional<teach::Head> head;
    std::shared_ptr<const std::vector<std::uint8_t>> extendedFile; // the file head extends (the base, or its hit embedding)
    std::string baseName;
    std::string learnedOn;     // the identity of the base learned on (the classes' own when nothing was learned)
    double milliseconds = 0.0; // embedding the new examples, learning, the checks, building and loading the model
    juce::String error;
};

class ModelService final : private juce::Thread
{
public:
    struct Callbacks
    {
        /** Service thread: reads and validates a model file; throws what it refuses. */
        std::function<std::shared_ptr<const engine::Model> (const juce::File&)> read;
        /** Service thread: swaps a model into the runtime; throws before changing anything. */
        std::function<void (std::shared_ptr<const engine::Model>)> install;
        /** Message or service thread: a message the GUI shows, replacing its cause's (empty: clears it). */
        std::function<void (StatusCause cause, juce::String message, StatusKind kind)> setStatus;
    };

    /** The built-in model is the one running; the thread starts with the first command. */
    explicit ModelService (Callbacks callbacks);
    /** Calls stop(). */
    ~ModelService() override;

    // ----- commands: each returns at once ------------------------------------------------------
    /** A user's model file: meanwhile the status says "Loading ..." and isLoading() is true; then
        it says which model was loaded, or why not (the running model keeps running). */
    void load (const juce::File& file);
    /** The built-in model (the status says so). */
    void useBuiltin();
    /** A session's model: `file`, or the built-in model when it is empty (silently). A file that
        cannot be loaded leaves the built-in model running, and the status says so. */
    void restore (const juce::File& file);
    /** The taught classes, in place of the ones before: learned on the running base once no
        command waits, and run in its place (when enabled and something is learned). */
    void teach (std::shared_ptr<const TaughtClasses> classes);
    /** A short task for the service thread, run in order with the commands (the Teach view's
        files are read in one each). */
    void post (std::function<void()> task);
    /** Whatever waits is dropped; waits for a command under way to end and stops the thread.
        Called before what the callbacks use goes. */
    void stop();

    // ----- queries: any thread but the audio thread ---------------------------------------------
    /** Whether a model command (a file, the built-in or a session's model) has not ended. */
    bool isLoading() const;
    /** Whether anything waits or runs: a command, a task, or the taught classes to learn. */
    bool isBusy() const;
    /** The base model that runs (the taught classes may run in its place: isRunningTaught()). */
    ModelDescription running() const;
    /** The model being loaded, else the one that runs (what a state saved now names). */
    ModelDescription requested() const;
    bool isRunningTaught() const;
    struct Base
    {
        std::shared_ptr<const engine::Model> model;
        ModelDescription description;
    };
    Base base() const;
    /** The last learning's outcome (null before the first). */
    std::shared_ptr<const LessonOutcome> outcome() const;

private:
    enum class LoadKind
    {
        user,   // dropped or chosen: on failure the running model keeps running
        restore // a session's model: on failure the built-in model runs, and the status says so
    };
    struct Command
    {
        enum class Kind
        {
            load,
            builtin,
            task
        };
        Kind kind = Kind::task;
        std::uint64_t request = 0; // load and builtin: the model request it answers
        juce::File file;
        LoadKind load = LoadKind::user;
        bool quiet = false; // builtin: no status (a session's)
        std::function<void()> task;
    };

    void run() override;
    void requestLoad (const juce::File& file, LoadKind kind);
    void requestBuiltin (bool quiet);
    void push (Command command);                           // mutex_ held
    void wake();                                           // mutex_ held: starts the thread (once) and wakes it
    std::uint64_t newRequest (ModelDescription requested); // mutex_ held
    void execute (Command& command);                       // the service thread, from here on
    void loadFile (std::uint64_t request, const juce::File& file, LoadKind kind);
    void useBuiltinNow (std::uint64_t request, bool quiet);
    void swapBase (std::shared_ptr<const engine::Model> model, ModelDescription description);
    void finishRequest (std::uint64_t request, std::optional<juce::String> status, bool isError);
    bool lessonOutdated() const; // mutex_ held
    void learnLesson();
    struct Taught // what one learning runs, and what the user is told of it
    {
        std::shared_ptr<const engine::Model> model; // null: nothing learned (no hit found)
        juce::StringArray names;
        int examples = 0;
    };
    Taught teachOn (const TaughtClasses& classes, const Base& base, LessonOutcome& outcome);
    teach::Lesson& lessonOn (const Base& base);
    void giveUp (bool wasLearning);

    const Callbacks callbacks_;
    mutable std::mutex mutex_;
    std::deque<Command> queue_;
    bool working_ = false;                // a command, task or learning under way
    std::atomic<bool> stopped_ { false }; // after stop(), no command starts the thread
    std::uint64_t latestRequest_ = 0, finishedRequest_ = 0;
    ModelDescription model_, requested_;
    std::shared_ptr<const engine::Model> base_;
    std::uint64_t baseGeneration_ = 1;
    bool runningTaught_ = false;
    std::shared_ptr<const TaughtClasses> classes_, learnedClasses_; // the newest, and the last learned (or given up)
    std::uint64_t learnedGeneration_ = 1;                           // the base generation learnedClasses_ were learned on
    std::shared_ptr<const LessonOutcome> outcome_;
    std::uint64_t outcomes_ = 0;

    // The service thread's alone: the lesson on the running base (its file, the embeddings kept).
    std::unique_ptr<teach::Lesson> lesson_;
    std::shared_ptr<const engine::Model> lessonBase_; // the model lesson_ is on
};

} // namespace sonotype::plugin
