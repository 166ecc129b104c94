#include "plugin/ModelService.h"

#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <stdexcept>
#include <utility>

namespace sonotype::plugin
{
namespace
{
    ModelDescription builtinDescription()
    {
        return { resources::kBuiltinModelName, {}, true };
    }

    juce::String text (const std::string& s)
    {
        return juce::String::fromUTF8 (s.c_str());
    }
} // namespace

ModelService::ModelService (Callbacks callbacks)
    : juce::Thread ("Sonotype model"), callbacks_ (std::move (callbacks)), model_ (builtinDescription()), requested_ (model_),
      base_ (resources::builtinModel()), classes_ (std::make_shared<const TaughtClasses>()), learnedClasses_ (classes_)
{
    // The thread starts with the first command: an instance that never loads a model nor is
    // taught anything has no thread idling for it. (Its name fits Linux's 15 characters, so that
    // it shows in a debugger or top; a longer one is not set at all.)
}

ModelService::~ModelService()
{
    stop();
}

// ----- commands ---------------------------------------------------------------------------------

void ModelService::load (const juce::File& file)
{
    requestLoad (file, LoadKind::user);
}

void ModelService::useBuiltin()
{
    requestBuiltin (false);
}

void ModelService::restore (const juce::File& file)
{
    if (file == juce::File())
        requestBuiltin (true);
    else
        requestLoad (file, LoadKind::restore);
}

void ModelService::requestLoad (const juce::File& file, LoadKind kind)
{
    const std::lock_guard<std::mutex> lock (mutex_); // orders the status against a load ending now
    Command command;
    command.kind = Command::Kind::load;
    command.request = newRequest ({ file.getFileName(), file, false });
    command.file = file;
    command.load = kind;
    callbacks_.setStatus (StatusCause::model, "Loading " + file.getFileName() + " ...", StatusKind::notice);
    push (std::move (command));
}

void ModelService::requestBuiltin (bool quiet)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    Command command;
    command.kind = Command::Kind::builtin;
    command.request = newRequest (builtinDescription());
    command.quiet = quiet;
    push (std::move (command));
}

void ModelService::teach (std::shared_ptr<const TaughtClasses> classes)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    classes_ = std::move (classes);
    wake();
}

void ModelService::post (std::function<void()> task)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    Command command;
    command.task = std::move (task);
    push (std::move (command));
}

void ModelService::stop()
{
    stopped_.store (true);
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        queue_.clear(); // whatever waits is no longer wanted
        ++latestRequest_;
    }
    signalThreadShouldExit();
    notify();
    stopThread (-1); // a command under way ends first (the engine bounds a load's time and memory)
}

std::uint64_t ModelService::newRequest (ModelDescription requested)
{
    requested_ = std::move (requested);
    return ++latestRequest_;
}

void ModelService::push (Command command)
{
    if (stopped_.load())
        return;
    queue_.push_back (std::move (command));
    wake();
}

void ModelService::wake()
{
    if (stopped_.load())
        return;
    // The service thread itself (a task that edits the taught classes) is running: starting it
    // would wait for juce::Thread's start/stop lock, which stop() holds while it waits for this
    // very thread to end.
    if (juce::Thread::getCurrentThreadId() != getThreadId())
        startThread(); // (once: a no-op while it runs)
    notify();          // (a notify before the thread waits is not lost)
}

// ----- queries ----------------------------------------------------------------------------------

bool ModelService::isLoading() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return finishedRequest_ != latestRequest_;
}

bool ModelService::isBusy() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return working_ || ! queue_.empty() || lessonOutdated();
}

ModelDescription ModelService::running() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return model_;
}

ModelDescription ModelService::requested() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return requested_;
}

bool ModelService::isRunningTaught() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return runningTaught_;
}

ModelService::Base ModelService::base() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return { base_, model_ };
}

std::shared_ptr<const LessonOutcome> ModelService::outcome() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return outcome_;
}

bool ModelService::lessonOutdated() const
{
    return classes_ != learnedClasses_ || learnedGeneration_ != baseGeneration_;
}

// ----- service thread ---------------------------------------------------------------------------

void ModelService::run()
{
    while (! threadShouldExit())
    {
        std::optional<Command> command;
        bool learn = false;
        {
            const std::lock_guard<std::mutex> lock (mutex_);
            if (! queue_.empty())
            {
                command = std::move (queue_.front());
                queue_.pop_front();
            }
            else
                learn = lessonOutdated(); // the taught classes wait for the commands before them
            working_ = command.has_value() || learn;
        }
        if (! command.has_value() && ! learn)
        {
            wait (-1); // until a command or stop() notifies
            continue;
        }
        try
        {
            if (command.has_value())
                execute (*command);
            else
                learnLesson();
        }
        catch (...)
        {
            // Out of memory even for a message: this command or learning ends, unreported rather
            // than let an exception out of this thread (which would end the host).
            giveUp (! command.has_value());
            if (command.has_value() && command->kind != Command::Kind::task)
                finishRequest (command->request, std::nullopt, false);
        }
    }
    const std::lock_guard<std::mutex> lock (mutex_);
    working_ = false;
}

void ModelService::execute (Command& command)
{
    switch (command.kind)
    {
        case Command::Kind::load:
            loadFile (command.request, command.file, command.load);
            break;
        case Command::Kind::builtin:
            useBuiltinNow (command.request, command.quiet);
            break;
        case Command::Kind::task:
            command.task();
            break;
    }
}

void ModelService::loadFile (std::uint64_t request, const juce::File& file, LoadKind kind)
{
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        if (request != latestRequest_)
            return; // superseded before it started: the newer request reports
    }
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
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        if (request != latestRequest_)
        {
            // Superseded while it was read: not swapped in, and the newer request reports.
            finishedRequest_ = std::max (finishedRequest_, request);
            return;
        }
    }
    try
    {
        if (model != nullptr)
            swapBase (std::move (model), { file.getFileName(), file, false }); // throws before changing anything
    }
    catch (const std::exception& e)
    {
        error = juce::String::fromUTF8 (e.what());
    }
    try
    {
        if (error.isNotEmpty() && kind == LoadKind::restore && ! running().builtin)
            swapBase (resources::builtinModel(), builtinDescription());
    }
    catch (const std::exception&)
    {
        // The running model keeps running; the status below says what failed.
    }
    if (error.isEmpty())
        finishRequest (request, kind == LoadKind::restore ? juce::String() : "Loaded " + file.getFileName(), false);
    else if (kind == LoadKind::user)
        finishRequest (request, "Could not load " + file.getFullPathName() + ": " + error + ". The running model keeps running.", true);
    else
        finishRequest (request,
                       "The session's model " + file.getFullPathName() + " could not be loaded (" + error + "); using the built-in model instead.",
                       true);
}

void ModelService::useBuiltinNow (std::uint64_t request, bool quiet)
{
    // Always swapped in, superseded or not: it takes no time, and a newer load that fails leaves
    // it running, as the user asked.
    try
    {
        swapBase (resources::builtinModel(), builtinDescription());
    }
    catch (const std::exception& e)
    {
        finishRequest (request, "Could not use the built-in model: " + juce::String::fromUTF8 (e.what()), true);
        return;
    }
    if (quiet)
        finishRequest (request, std::nullopt, false);
    else
        finishRequest (request, "Using the built-in model", false);
}

void ModelService::swapBase (std::shared_ptr<const engine::Model> model, ModelDescription description)
{
    callbacks_.install (model); // throws before changing anything
    const std::lock_guard<std::mutex> lock (mutex_);
    base_ = std::move (model);
    model_ = std::move (description);
    ++baseGeneration_; // the taught classes are learned on it again
    runningTaught_ = false;
}

void ModelService::finishRequest (std::uint64_t request, std::optional<juce::String> status, bool isError)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (request == latestRequest_) // (a newer request has said "Loading ..." and will report)
    {
        requested_ = model_;
        if (status.has_value())
            callbacks_.setStatus (StatusCause::model, std::move (*status), isError ? StatusKind::error : StatusKind::info);
    }
    finishedRequest_ = std::max (finishedRequest_, request);
}

// ----- learning (service thread) -----------------------------------------------------------------

void ModelService::learnLesson()
{
    const auto started = std::chrono::steady_clock::now();
    std::shared_ptr<const TaughtClasses> classes;
    Base base;
    std::uint64_t generation = 0;
    bool wasRunningTaught = false;
    std::shared_ptr<const LessonOutcome> previous;
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        classes = classes_;
        base = { base_, model_ };
        generation = baseGeneration_;
        wasRunningTaught = runningTaught_;
        previous = outcome_;
    }
    // What is not learned again stays as it was (switched off, the last check stays shown and
    // exported).
    auto outcome = std::make_shared<LessonOutcome> (previous != nullptr ? *previous : LessonOutcome {});
    outcome->version = classes->version;
    outcome->error.clear();
    outcome->learnedOn = classes->learnedOn;
    Taught taught;
    bool tell = false; // the error goes to the status line too
    const bool anything = std::any_of (classes->classes.begin(), classes->classes.end(), [] (const auto& c) { return ! c.examples.empty(); });
    if (! anything)
    {
        outcome->heardAs.clear();
        outcome->labels.clear();
        outcome->head.reset();
    }
    else if (! classes->enabled)
    {
        // Switched off: the base model answers; the examples and the last check stay.
    }
    else if (! base.model->info().embeddingOutput.has_value())
    {
        outcome->error = "The taught classes need a model with an embedding output, and " + base.description.name
                         + " has none: the model's own classes answer. The taught examples are kept for a model that has one.";
        tell = true;
    }
    else
        try
        {
            taught = teachOn (*classes, base, *outcome);
            if (threadShouldExit())
                return;
        }
        catch (const std::exception& e)
        {
            outcome->error = "Could not learn the taught classes on " + base.description.name + ": " + text (e.what());
            tell = true;
        }
    outcome->milliseconds = std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now() - started).count();
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        if (classes != classes_)
            return; // edited meanwhile: learned again next (the base cannot have changed: only this thread swaps it)
    }
    bool runsTaught = wasRunningTaught, runFailed = false;
    if (taught.model != nullptr || wasRunningTaught)
        try
        {
            callbacks_.install (taught.model != nullptr ? taught.model : base.model);
            runsTaught = taught.model != nullptr;
        }
        catch (const std::exception& e)
        {
            runFailed = true;
            callbacks_.setStatus (StatusCause::learning, "Could not run the taught classes: " + text (e.what()), StatusKind::error);
        }
    // Said before the outcome is published, so that whoever waits for it finds it said.
    if (tell)
        callbacks_.setStatus (StatusCause::learning, outcome->error, StatusKind::error);
    else if (taught.model != nullptr && ! classes->learnedOn.empty() && classes->learnedOn != outcome->learnedOn)
    {
        const auto old = text (classes->learnedOn.substr (0, classes->learnedOn.rfind ('#')));
        callbacks_.setStatus (StatusCause::learning, "The taught classes (" + taught.names.joinIntoString (", ") + ") were learned again from their " + juce::String (taught.examples) + " examples on " + base.description.name + (old == base.description.name ? juce::String (", a model of that name that differs from the one they were taught on") : " (they were taught on " + old + ")") + ". Check them in the Teach view.",
                              StatusKind::notice);
    }
    else if (! runFailed && (taught.model != nullptr || ! anything))
        callbacks_.setStatus (StatusCause::learning, {}, StatusKind::info); // learned (or nothing left to learn): an earlier failure is out of date
    const std::lock_guard<std::mutex> lock (mutex_);
    runningTaught_ = runsTaught;
    outcome->serial = ++outcomes_;
    outcome_ = std::move (outcome);
    learnedClasses_ = std::move (classes);
    learnedGeneration_ = generation;
}

ModelService::Taught ModelService::teachOn (const TaughtClasses& classes, const Base& base, LessonOutcome& outcome)
{
    auto& lesson = lessonOn (base);
    teach::LessonSettings settings;
    settings.hits = classes.hits;
    settings.unknownBelow = classes.unknownBelow;
    lesson.setSettings (settings);

    // Each example's embedding (hits: each of its hits'), the ones embedded before kept.
    std::vector<teach::TaughtClass> taught;
    std::vector<std::vector<std::uint64_t>> ids; // per taught class, the sound each of its examples came from
    std::set<std::uint64_t> all;
    for (const auto& c : classes.classes)
    {
        teach::TaughtClass t { c.name, {} };
        std::vector<std::uint64_t> from;
        for (const auto& example : c.examples)
        {
            all.insert (example.id);
            for (const auto& e : lesson.examplesOfSound (example.id, example.sound->samples, classes.sampleRate))
            {
                t.examples.push_back (e);
                from.push_back (example.id);
            }
        }
        if (threadShouldExit())
            return {};
        if (t.examples.empty())
            continue; // no examples yet, or (hits) no hit found in them: the view says so
        taught.push_back (std::move (t));
        ids.push_back (std::move (from));
    }
    lesson.keepOnly (all);
    outcome.heardAs.clear();
    if (taught.empty())
    {
        outcome.labels.clear();
        outcome.head.reset();
        outcome.error = "No hits found in the examples: record or add sounds with clear attacks, or switch off \"Examples are hits\"";
        return {};
    }
    const auto learned = lesson.learn (taught);
    teach::ChosenNotes notes; // written into the model, so that it plays them wherever it runs
    for (const auto& c : classes.classes)
        if (c.note >= 0)
            notes[c.name] = c.note;
    auto built = lesson.build (learned.head, {}, notes);
    for (std::size_t c = 0; c < ids.size(); ++c)
        for (std::size_t i = 0; i < ids[c].size(); ++i)
            outcome.heardAs[ids[c][i]].push_back (learned.confusion.predicted[c][i]);
    for (const auto id : all)
        outcome.heardAs.try_emplace (id); // checked, no hit found in it
    outcome.hits = classes.hits;
    outcome.labels = learned.head.labels;
    outcome.head = learned.head;
    outcome.extendedFile = lesson.extendedFile();
    outcome.baseName = lesson.baseName();
    outcome.learnedOn = lesson.baseIdentity();
    Taught result { std::move (built.model), {}, 0 };
    for (const auto& t : taught)
    {
        result.names.add (text (t.name));
        result.examples += static_cast<int> (t.examples.size());
    }
    return result;
}

teach::Lesson& ModelService::lessonOn (const Base& base)
{
    // One lesson per base model: its file read once, its embeddings kept from one learning to
    // the next (the same model swapped in again keeps them).
    if (lesson_ != nullptr && lessonBase_ == base.model)
        return *lesson_;
    std::vector<std::uint8_t> bytes;
    if (base.description.builtin)
    {
        const auto file = resources::builtinModelFile();
        bytes.assign (file.begin(), file.end());
    }
    else
    {
        juce::MemoryBlock block;
        if (! base.description.file.loadFileAsData (block))
            throw std::runtime_error ("cannot read " + base.description.file.getFullPathName().toStdString() + " again");
        const auto* data = static_cast<const std::uint8_t*> (block.getData());
        bytes.assign (data, data + block.getSize());
    }
    lesson_.reset();
    lesson_ = std::make_unique<teach::Lesson> (std::move (bytes), base.model, base.description.name.toStdString());
    lessonBase_ = base.model;
    return *lesson_;
}

void ModelService::giveUp (bool wasLearning)
{
    if (! wasLearning)
        return;
    try
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        learnedClasses_ = classes_;
        learnedGeneration_ = baseGeneration_;
        auto outcome = std::make_shared<LessonOutcome> (outcome_ != nullptr ? *outcome_ : LessonOutcome {});
        outcome->version = classes_->version;
        outcome->error = "Learning failed (out of memory?)";
        outcome->serial = ++outcomes_;
        outcome_ = std::move (outcome);
    }
    catch (...)
    {
        // Nothing more can be done: the next edit learns again.
    }
}

} // namespace sonotype::plugin
