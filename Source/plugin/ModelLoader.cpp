#include "plugin/ModelLoader.h"

#include "resources/BuiltinModel.h"

#include <stdexcept>

namespace sonotype::plugin
{
namespace
{
    ModelDescription builtinDescription()
    {
        return { resources::kBuiltinModelName, {}, true };
    }
} // namespace

ModelLoader::ModelLoader (Callbacks callbacks)
    : juce::Thread ("Sonotype model loader"), callbacks_ (std::move (callbacks)), model_ (builtinDescription()), requested_ (model_)
{
    // The thread starts with the first file asked for (the built-in model needs none).
}

ModelLoader::~ModelLoader()
{
    stop();
}

// ----- message thread ---------------------------------------------------------------------------

void ModelLoader::request (const juce::File& file, LoadKind kind)
{
    const std::lock_guard<std::mutex> swap (swapMutex_); // orders this request against a load finishing now
    {
        const std::lock_guard<std::mutex> lock (descriptionMutex_);
        requested_ = { file.getFileName(), file, false };
    }
    callbacks_.setStatus ("Loading " + file.getFileName() + " ...", false);
    {
        const std::lock_guard<std::mutex> lock (requestMutex_);
        nextLoad_ = LoadRequest { latestRequest_.fetch_add (1) + 1, file, kind };
    }
    if (! stopped_.load())
        startThread(); // (once: a no-op while it runs)
    notify();
}

void ModelLoader::useBuiltin()
{
    const std::lock_guard<std::mutex> swap (swapMutex_);
    const auto request = latestRequest_.fetch_add (1) + 1; // supersedes any load under way
    {
        const std::lock_guard<std::mutex> lock (requestMutex_);
        nextLoad_.reset();
    }
    swapIn (resources::builtinModel(), builtinDescription());
    {
        const std::lock_guard<std::mutex> lock (descriptionMutex_);
        requested_ = model_;
    }
    callbacks_.setStatus ("Using the built-in model", false);
    finished (request);
}

void ModelLoader::stop()
{
    stopped_.store (true);
    latestRequest_.fetch_add (1); // whatever is loading is no longer wanted
    stopThread (-1);              // a load under way ends first (the engine bounds its time and memory)
}

// ----- any thread -------------------------------------------------------------------------------

bool ModelLoader::isLoading() const
{
    return finishedRequest_.load() != latestRequest_.load();
}

ModelDescription ModelLoader::running() const
{
    const std::lock_guard<std::mutex> lock (descriptionMutex_);
    return model_;
}

ModelDescription ModelLoader::requested() const
{
    const std::lock_guard<std::mutex> lock (descriptionMutex_);
    return requested_;
}

// ----- loader thread ----------------------------------------------------------------------------

void ModelLoader::run()
{
    while (! threadShouldExit())
    {
        std::optional<LoadRequest> request;
        {
            const std::lock_guard<std::mutex> lock (requestMutex_);
            request.swap (nextLoad_);
        }
        if (! request.has_value())
        {
            wait (-1); // until request() or stop() notifies (a notify before the wait is not lost)
            continue;
        }
        try
        {
            finishLoad (request->id, request->file, request->kind);
        }
        catch (...)
        {
            // Out of memory even for a message: the request ends unreported rather than let an
            // exception out of this thread (which would end the host).
            finished (request->id);
        }
    }
}

void ModelLoader::finishLoad (uint64_t request, const juce::File& file, LoadKind kind)
{
    if (request != latestRequest_.load())
        return; // superseded before it started
    juce::String error;
    std::shared_ptr<const engine::Model> model;
    try
    {
        if (! file.existsAsFile())
            throw std::runtime_error ("no such file");
        model = callbacks_.read (file);
    }
    catch (const std::exception& e)
    {
        error = juce::String::fromUTF8 (e.what());
    }
    catch (...) // never let anything escape into the host
    {
        error = "unexpected error";
    }
    const std::lock_guard<std::mutex> swap (swapMutex_);
    if (request == latestRequest_.load()) // not superseded meanwhile (else the newer request reports)
    {
        try
        {
            if (model != nullptr)
                swapIn (std::move (model), { file.getFileName(), file, false }); // throws before changing anything
        }
        catch (const std::exception& e)
        {
            error = juce::String::fromUTF8 (e.what());
        }
        try
        {
            if (error.isNotEmpty() && kind == LoadKind::restore && ! running().builtin)
                swapIn (resources::builtinModel(), builtinDescription());
        }
        catch (const std::exception&)
        {
            // The running model keeps running; the status below says what failed.
        }
        {
            const std::lock_guard<std::mutex> lock (descriptionMutex_);
            requested_ = model_;
        }
        if (error.isEmpty())
            callbacks_.setStatus (kind == LoadKind::restore ? juce::String() : "Loaded " + file.getFileName(), false);
        else if (kind == LoadKind::user)
            callbacks_.setStatus ("Could not load " + file.getFullPathName() + ": " + error + ". The running model keeps running.", true);
        else
            callbacks_.setStatus ("The session's model " + file.getFullPathName() + " could not be loaded (" + error
                                      + "); using the built-in model instead.",
                                  true);
    }
    finished (request);
}

void ModelLoader::swapIn (std::shared_ptr<const engine::Model> model, ModelDescription description)
{
    callbacks_.install (std::move (model), description); // throws before changing anything
    const std::lock_guard<std::mutex> lock (descriptionMutex_);
    model_ = std::move (description);
}

void ModelLoader::finished (uint64_t request)
{
    if (request > finishedRequest_.load())
        finishedRequest_.store (request);
}

} // namespace sonotype::plugin
