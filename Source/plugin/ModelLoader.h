// Loads model files for the plugin off the message and audio threads, one request at a time, and
// swaps each into the streaming runtime; keeps which model runs and which was asked for.
//
// Threading contract
// - Message thread (the GUI, state restore; the processor's destructor): request(), useBuiltin(),
//   stop(). request() returns at once; useBuiltin() swaps on the calling thread.
// - Loader thread (a juce::Thread, this object's own): reads and validates the file (the read
//   callback; may take long: it blocks nothing but this thread), then swaps it in.
// - Any thread but the audio thread: isLoading(), running(), requested().
// - The audio thread never calls anything here.
// Shared: the request slot behind requestMutex_ (message thread -> loader, woken with
// juce::Thread::notify()); request numbers in atomics (a newer request supersedes an older one);
// swapMutex_ makes "is it still wanted? swap it in" one step against a newer request (held while
// the install callback reconfigures the runtime); the two model descriptions behind
// descriptionMutex_. What may block: stop() waits for a load under way (the engine's load budgets
// bound a regular file; a file that never delivers its bytes, e.g. a FIFO, would block it); the
// message thread may wait on swapMutex_ while the loader swaps a model in.
#pragma once

#include "engine/Model.h"

#include <juce_core/juce_core.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace sonotype::plugin
{

/** Which model runs, for display and for the saved state. */
struct ModelDescription
{
    juce::String name;     // file name, or "built-in"
    juce::File file;       // empty for the built-in model
    bool builtin = true;
};

class ModelLoader final : private juce::Thread
{
public:
    enum class LoadKind
    {
        user,   // dropped or chosen: on failure the running model keeps running
        restore // a session's model: on failure the built-in model runs, and the status says so
    };

    /** What the loader needs from the processor it loads for. */
    struct Callbacks
    {
        /** Loader thread: reads and validates a model file; throws what it refuses. */
        std::function<std::shared_ptr<const engine::Model> (const juce::File&)> read;
        /** Loader or message thread, under swapMutex_: swaps a model into the runtime; throws
            before changing anything. */
        std::function<void (std::shared_ptr<const engine::Model>, const ModelDescription&)> install;
        /** Loader or message thread: the status message the GUI shows (empty: none). */
        std::function<void (juce::String message, bool isError)> setStatus;
    };

    /** Starts the loader thread; the built-in model is the one running. */
    explicit ModelLoader (Callbacks callbacks);
    /** Calls stop(). */
    ~ModelLoader() override;

    /** Message thread: loads `file` on the loader thread and swaps it in. Returns at once;
        meanwhile the status says "Loading ..." and isLoading() is true. Then the status says which
        model was loaded, or why not. A newer request (another file, the built-in model, a state
        restore) supersedes an unfinished one. */
    void request (const juce::File& file, LoadKind kind);
    /** Message thread: swaps the built-in model in now (throws what the install callback throws),
        superseding any load under way. */
    void useBuiltin();
    /** Message thread: whatever is loading is no longer wanted; waits for a load under way to end
        and stops the loader thread. Called before the runtime the install callback uses goes. */
    void stop();

    /** Whether a model file is still being loaded. */
    bool isLoading() const;
    /** The model that runs. */
    ModelDescription running() const;
    /** The model being loaded, else the one that runs (what a state saved now names). */
    ModelDescription requested() const;

private:
    struct LoadRequest
    {
        uint64_t id = 0;
        juce::File file;
        LoadKind kind = LoadKind::user;
    };

    void run() override;                                                  // the loader thread
    void finishLoad (uint64_t request, const juce::File& file, LoadKind kind); // the loader thread
    void swapIn (std::shared_ptr<const engine::Model> model, ModelDescription description);
    void finished (uint64_t request);

    const Callbacks callbacks_;

    std::mutex swapMutex_;    // loader and message thread: "is it still wanted? swap it in" in one step
    std::mutex requestMutex_; // the request slot below
    std::optional<LoadRequest> nextLoad_; // behind requestMutex_
    std::atomic<uint64_t> latestRequest_ { 0 }, finishedRequest_ { 0 };
    std::atomic<bool> stopped_ { false }; // after stop(), a request no longer starts the thread

    mutable std::mutex descriptionMutex_; // message thread, loader and GUI readers, never the audio thread
    ModelDescription model_;
    ModelDescription requested_; // the model being loaded (what a state saved meanwhile names)
};

} // namespace sonotype::plugin
