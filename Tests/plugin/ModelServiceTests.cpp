// The model service: one thread that runs every change to the model in the order asked (model
// files, the built-in model, a session's model, the taught classes learned on the base that runs),
// a newer load superseding one not yet done; and the threads a processor runs for it.
#include "plugin/ModelService.h"
#include "plugin/ProcessorDriver.h"
#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"
#include "support/ExampleClips.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

namespace sonotype::testing
{
namespace
{
    /** A copy of the built-in model in a file of its own (it has an embedding output: it can be taught). */
    struct ModelCopy
    {
        juce::File file = juce::File::getSpecialLocation (juce::File::tempDirectory).getNonexistentChildFile ("model_copy", ".safetensors");
        ModelCopy() { REQUIRE (file.replaceWithData (resources::builtinModelFile().data(), resources::builtinModelFile().size())); }
        ~ModelCopy() { file.deleteFile(); }
    };

    /** What the service did, as its callbacks saw it. */
    struct Record
    {
        std::mutex mutex;
        std::condition_variable changed;
        std::vector<std::string> reads; // file names
        std::vector<std::shared_ptr<const engine::Model>> installs;
        std::vector<juce::String> statuses; // the model's messages
        std::set<std::thread::id> threads;
        juce::File gated; // read only once released
        bool reading = false, released = false;

        plugin::ModelService::Callbacks callbacks()
        {
            return { [this] (const juce::File& file) {
                        {
                            std::unique_lock<std::mutex> lock (mutex);
                            reads.push_back (file.getFileName().toStdString());
                            threads.insert (std::this_thread::get_id());
                            reading = true;
                            changed.notify_all();
                            if (file == gated)
                                changed.wait_for (lock, std::chrono::seconds (20), [this] { return released; });
                        }
                        return engine::Model::load (file.getFullPathName().toStdString());
                    },
                     [this] (std::shared_ptr<const engine::Model> model) {
                         const std::lock_guard<std::mutex> lock (mutex);
                         installs.push_back (std::move (model));
                         threads.insert (std::this_thread::get_id());
                     },
                     [this] (plugin::StatusCause cause, juce::String message, plugin::StatusKind) {
                         if (cause != plugin::StatusCause::model)
                             return; // (the taught classes' messages, e.g. the clearing of an old error)
                         const std::lock_guard<std::mutex> lock (mutex);
                         statuses.push_back (message);
                     } };
        }
    };

    bool waitUntil (const std::function<bool()>& done)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds (30);
        while (! done() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for (std::chrono::milliseconds (1));
        return done();
    }

    std::shared_ptr<plugin::TaughtClasses> taughtClasses()
    {
        auto taught = std::make_shared<plugin::TaughtClasses>();
        taught->version = 7;
        std::uint64_t id = 0;
        for (const auto* clip : { "speech", "drums" })
        {
            auto samples = exampleClip (clip, 16000.0);
            samples.resize (16000);
            taught->classes.push_back ({ std::string (clip) + " taught", { { ++id, std::make_shared<const teach::ExampleSound> (teach::ExampleSound { "input", samples }) } }, -1 });
        }
        return taught;
    }

    /** The names of this process's threads (a juce::Thread whose name fits in 15 characters has it). */
    std::vector<std::string> threads()
    {
        std::vector<std::string> names;
        for (const auto& task : juce::File ("/proc/self/task").findChildFiles (juce::File::findDirectories, false))
        {
            std::ifstream comm (task.getChildFile ("comm").getFullPathName().toStdString()); // (its size says 0: read it as a stream)
            std::string name;
            std::getline (comm, name);
            names.push_back (name);
        }
        return names;
    }
} // namespace

TEST_CASE ("the model service runs its commands in order on its one thread: a session's model, then the taught classes learned on it",
           "[plugin][model][teach]")
{
    ModelCopy copy;
    Record record;
    plugin::ModelService service (record.callbacks());
    CHECK (service.running().builtin);
    CHECK_FALSE (service.isBusy());
    service.restore (copy.file);
    const auto taught = taughtClasses();
    service.teach (taught);
    CHECK (service.isLoading());
    CHECK (service.requested().file == copy.file); // what a state saved now names
    REQUIRE (waitUntil ([&] { return ! service.isBusy(); }));

    // The service's state first, then the record's (its callbacks take the record's mutex while the
    // service holds its own: the test takes them in the same order, never the other).
    const auto base = service.base().model;
    const auto running = service.running();
    const bool runningTaught = service.isRunningTaught();
    const auto outcome = service.outcome();

    // Installed: the session's model, then the classes taught on it; never on the built-in model.
    const std::lock_guard<std::mutex> lock (record.mutex);
    REQUIRE (record.installs.size() == 2);
    CHECK (record.installs[0] == base);
    CHECK (record.installs[0]->info().metadata.count ("taught") == 0);
    CHECK (record.installs[1]->info().metadata.at ("taught").find ("\"base\":\"" + copy.file.getFileName().toStdString() + "\"") != std::string::npos);
    CHECK (record.installs[1]->info().labels == std::vector<std::string> { "speech taught", "drums taught", "unknown" });
    CHECK (running.name == copy.file.getFileName());
    CHECK (runningTaught);
    CHECK (record.statuses == std::vector<juce::String> { "Loading " + copy.file.getFileName() + " ...", "" }); // a session's: no "Loaded"
    REQUIRE (outcome != nullptr);
    CHECK (outcome->version == 7);
    CHECK (outcome->error.isEmpty());
    CHECK (outcome->heardAs.size() == 2);
    CHECK (outcome->learnedOn.rfind (copy.file.getFileName().toStdString() + "#", 0) == 0);
    // One thread read, learned and installed, and it is not the caller's.
    CHECK (record.threads.size() == 1);
    CHECK (record.threads.count (std::this_thread::get_id()) == 0);
}

TEST_CASE ("a newer model command supersedes a load not yet done, and the built-in model runs whenever asked for", "[plugin][model]")
{
    ModelCopy slow, skipped, last;
    Record record;
    record.gated = slow.file;
    plugin::ModelService service (record.callbacks());
    service.load (slow.file);
    {
        std::unique_lock<std::mutex> lock (record.mutex);
        REQUIRE (record.changed.wait_for (lock, std::chrono::seconds (20), [&] { return record.reading; }));
    }
    service.load (skipped.file); // superseded before it starts
    service.useBuiltin();        // runs: a load after it that fails would leave it running
    service.load (last.file);
    CHECK (service.isLoading());
    CHECK (service.requested().file == last.file);
    {
        const std::lock_guard<std::mutex> lock (record.mutex);
        record.released = true;
    }
    record.changed.notify_all();
    REQUIRE (waitUntil ([&] { return ! service.isLoading(); }));
    const auto base = service.base().model; // the service's state before the record's mutex, as above
    const auto running = service.running();
    const auto requested = service.requested();
    const std::lock_guard<std::mutex> lock (record.mutex);
    CHECK (record.reads == std::vector<std::string> { slow.file.getFileName().toStdString(), last.file.getFileName().toStdString() });
    REQUIRE (record.installs.size() == 2); // the slow file, read after it was superseded, is not swapped in
    CHECK (record.installs[0] == resources::builtinModel());
    CHECK (record.installs[1] == base);
    CHECK (running.file == last.file);
    CHECK (requested.file == last.file);
    // Each load says "Loading"; only the newest says how it ended (the superseded ones stay silent).
    CHECK (record.statuses.back() == "Loaded " + last.file.getFileName());
    CHECK (std::count (record.statuses.begin(), record.statuses.end(), "Using the built-in model") == 0);
}

TEST_CASE ("a processor that loads models and learns taught classes runs one thread for both", "[plugin][model][teach]")
{
    ModelCopy copy;
    {
        TestProcessor warmUp; // JUCE's timer thread, started by the first timer in the process, stays
    }
    const auto before = threads();
    {
        TestProcessor processor;
        ProcessorDriver driver (processor, 48000.0, 2, 512);
        REQUIRE (loadModel (processor, copy.file));
        auto& teach = processor.teaching();
        REQUIRE (teach.addClass ("talk").isEmpty());
        REQUIRE (teach.addSound (0, exampleClip ("speech", 48000.0), 48000.0, "input").isEmpty());
        REQUIRE (teach.addFiles (0, { exampleFile ("speech") }).isEmpty()); // read on the same thread
        REQUIRE (teach.waitUntilIdle (20000));
        CHECK (processor.modelDescription().name == copy.file.getFileName() + " + taught");
        // The analysis worker and the model service: no loader or teacher of their own (the file
        // analysis and the file player start only when used).
        const auto now = threads();
        CHECK (now.size() == before.size() + 2);
        CHECK (std::count (now.begin(), now.end(), "Sonotype model") == std::count (before.begin(), before.end(), "Sonotype model") + 1);
    }
    CHECK (threads().size() == before.size());
}

} // namespace sonotype::testing
