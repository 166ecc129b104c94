#include "plugin/FileTimelines.h"

#include "runtime/WindowAnalyzer.h"
#include "timeline/AnalysisWarnings.h"

#include <algorithm>
#include <optional>

namespace sonotype::plugin
{
namespace
{
    /** What `sonotype classify` prints as warnings for a file it classified, on one line. */
    juce::String warningLine (const std::vector<std::string>& found)
    {
        juce::StringArray warnings;
        for (const auto& warning : found)
            warnings.add (juce::String::fromUTF8 (warning.c_str()));
        return warnings.joinIntoString ("; ");
    }

    /** What `analyze` returns, or nothing and its exception's message in `error` (a file that cannot
        be analysed is a failed entry, never an error of the thread). */
    template <typename Analyze>
    auto caught (juce::String& error, Analyze&& analyze) -> std::optional<decltype (analyze())>
    {
        try
        {
            return analyze();
        }
        catch (const std::exception& e)
        {
            error = juce::String::fromUTF8 (e.what());
            return std::nullopt;
        }
    }
} // namespace

FileTimelines::FileTimelines() : juce::Thread ("Sonotype file analysis")
{
    // The thread starts with the first files (a DAW full of instances that never analyse a file
    // has no thread idling for it).
}

FileTimelines::~FileTimelines()
{
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        ++request_; // an analysis under way stops at its next block
    }
    stopThread (-1);
}

// ----- message thread ---------------------------------------------------------------------------

void FileTimelines::analyze (const juce::Array<juce::File>& files, Settings settings)
{
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        entries_.clear();
        for (const auto& file : files)
        {
            Entry entry;
            entry.status.file = file;
            entries_.push_back (std::move (entry));
        }
        restart (std::move (settings));
    }
    startThread(); // (once: a no-op while it runs)
    notify();
}

void FileTimelines::add (const juce::Array<juce::File>& files, Settings settings)
{
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        const bool again = settings.analyzesDifferently (settings_);
        for (const auto& file : files)
        {
            const bool there = std::any_of (entries_.begin(), entries_.end(), [&file] (const Entry& entry) { return entry.status.file == file; });
            if (there)
                continue;
            Entry entry;
            entry.status.file = file;
            entry.status.version = ++version_;
            entries_.push_back (std::move (entry)); // (the analysis thread finds entries by index: those there keep theirs)
        }
        if (again)
        {
            for (auto& entry : entries_)
            {
                const auto file = entry.status.file;
                entry = {};
                entry.status.file = file;
            }
            restart (std::move (settings));
        }
        else
            ++version_;
    }
    startThread(); // (once: a no-op while it runs)
    notify();
}

void FileTimelines::reanalyze (Settings settings)
{
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        for (auto& entry : entries_)
        {
            const auto file = entry.status.file;
            entry = {};
            entry.status.file = file;
        }
        restart (std::move (settings));
    }
    startThread(); // (once: a no-op while it runs)
    notify();
}

void FileTimelines::restart (Settings settings)
{
    settings_ = std::move (settings);
    ++request_;
    ++version_;
    for (auto& entry : entries_)
        entry.status.version = version_;
}

void FileTimelines::clear()
{
    const std::lock_guard<std::mutex> lock (mutex_);
    entries_.clear();
    ++request_;
    ++version_;
}

// ----- readers ----------------------------------------------------------------------------------

std::size_t FileTimelines::numFiles() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return entries_.size();
}

FileStatus FileTimelines::status (std::size_t index) const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return index < entries_.size() ? entries_[index].status : FileStatus {};
}

std::size_t FileTimelines::copyWindows (std::size_t index, std::size_t from, std::vector<TimelineWindow>& out) const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (index >= entries_.size() || from >= entries_[index].windows.size())
        return 0;
    const auto& windows = entries_[index].windows;
    out.insert (out.end(), windows.begin() + static_cast<std::ptrdiff_t> (from), windows.end());
    return windows.size() - from;
}

FileTimelines::Settings FileTimelines::settings() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return settings_;
}

juce::Array<juce::File> FileTimelines::files() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    juce::Array<juce::File> files;
    for (const auto& entry : entries_)
        files.add (entry.status.file);
    return files;
}

uint64_t FileTimelines::version() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return version_;
}

bool FileTimelines::isBusy() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    for (const auto& entry : entries_)
        if (entry.status.state == FileState::queued || entry.status.state == FileState::analyzing)
            return true;
    return false;
}

// ----- the analysis thread ----------------------------------------------------------------------

void FileTimelines::run()
{
    while (! threadShouldExit())
    {
        std::size_t next = 0;
        uint64_t request = 0;
        Settings settings;
        bool found = false;
        {
            const std::lock_guard<std::mutex> lock (mutex_);
            for (std::size_t i = 0; i < entries_.size() && ! found; ++i)
                if (entries_[i].status.state == FileState::queued)
                {
                    next = i;
                    found = true;
                }
            request = request_;
            settings = settings_;
        }
        if (! found || settings.model == nullptr)
        {
            analyzers_.clear(); // idle: the analyzer's memory goes back
            wait (-1);          // notify() wakes it: new files or settings, or the end
            continue;
        }
        analyzeOne (next, request, settings);
    }
}

void FileTimelines::analyzeOne (std::size_t index, uint64_t request, const Settings& settings)
{
    juce::File file;
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        if (request != request_)
            return;
        auto& status = entries_[index].status;
        file = status.file;
        status.state = FileState::analyzing;
        status.analysis = request;
        status.perHit = settings.hits.has_value();
        status.labels = runtime::classLabels (*settings.model);
        status.hopSeconds = settings.analysis.hopSeconds;
        const auto& frontend = settings.model->info().frontend;
        status.windowSeconds = frontend.has_value() && frontend->sampleRate > 0.0 ? frontend->windowSamples / frontend->sampleRate : 0.0;
        status.version = ++version_;
    }
    // Every step checks that its request is still the newest: the files or settings may have
    // changed meanwhile, and entries_ with them.
    if (settings.hits.has_value())
        analyzeAsHits (index, request, settings, file);
    else
        analyzeAsWindows (index, request, settings, file);
}

void FileTimelines::analyzeAsWindows (std::size_t index, uint64_t request, const Settings& settings, const juce::File& file)
{
    timeline::FileAnalysisCallbacks callbacks;
    callbacks.onOpen = [&] (double lengthSeconds, const std::string&) { opened (index, request, lengthSeconds); };
    callbacks.onWindow = [&] (const runtime::WindowResult& result, timeline::WindowFlags) {
        TimelineWindow window { result.startSeconds, result.endSeconds, result.probabilities };
        const std::lock_guard<std::mutex> lock (mutex_);
        if (request == request_)
            entries_[index].windows.push_back (std::move (window));
    };
    callbacks.onProgress = [&] (double fraction) {
        const std::lock_guard<std::mutex> lock (mutex_);
        if (request != request_ || threadShouldExit())
            return false;
        auto& status = entries_[index].status;
        status.progress = fraction;
        status.numWindows = entries_[index].windows.size();
        status.version = ++version_;
        return true;
    };

    juce::String error;
    auto result = caught (error, [&] {
        return timeline::analyzeFile (file.getFullPathName().toStdString(), settings.model, settings.analysis, callbacks, analyzers_);
    });

    const std::lock_guard<std::mutex> lock (mutex_);
    if (request != request_ || (result.has_value() && result->stopped))
        return; // superseded: the newer request analyses the file again
    auto& entry = entries_[index];
    if (result.has_value())
    {
        auto& status = entry.status;
        status.durationSeconds = result->durationSeconds;
        status.labels = result->labels;
        status.windowSeconds = result->windowSeconds;
        status.hopSeconds = result->hopSeconds;
        status.warning = warningLine (timeline::warningsOf (*result));
        status.segments = result->segments;
    }
    finish (entry, result.has_value(), error);
}

void FileTimelines::analyzeAsHits (std::size_t index, uint64_t request, const Settings& settings, const juce::File& file)
{
    // The hits as `classify --onsets` finds them, shown as they come.
    timeline::HitAnalysisCallbacks callbacks;
    callbacks.onOpen = [&] (double lengthSeconds) { opened (index, request, lengthSeconds); };
    callbacks.onHit = [&] (const timeline::Hit& hit, std::span<const float>) {
        const std::lock_guard<std::mutex> lock (mutex_);
        if (request == request_)
        {
            entries_[index].status.hits.push_back (hit);
            entries_[index].status.version = ++version_;
        }
    };
    callbacks.onProgress = [&] (double fraction) {
        const std::lock_guard<std::mutex> lock (mutex_);
        if (request != request_ || threadShouldExit())
            return false;
        entries_[index].status.progress = fraction;
        entries_[index].status.version = ++version_;
        return true;
    };

    juce::String error;
    analyzers_.clear(); // (the window analyzer a pass of segments kept is not needed here)
    auto result = caught (error, [&] { return timeline::analyzeHits (file.getFullPathName().toStdString(), settings.model, *settings.hits, callbacks); });

    const std::lock_guard<std::mutex> lock (mutex_);
    if (request != request_ || (result.has_value() && result->stopped))
        return; // superseded: the newer request analyses the file again
    auto& entry = entries_[index];
    if (result.has_value())
    {
        auto& status = entry.status;
        status.durationSeconds = result->durationSeconds;
        status.labels = result->labels;
        status.warning = warningLine (timeline::warningsOf (*result));
        status.hits = std::move (result->hits); // the same hits, whole: what the exports write
    }
    else
        entry.status.hits.clear();
    finish (entry, result.has_value(), error);
}

void FileTimelines::opened (std::size_t index, uint64_t request, double lengthSeconds)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (request == request_)
    {
        entries_[index].status.durationSeconds = lengthSeconds;
        entries_[index].status.version = ++version_;
    }
}

void FileTimelines::finish (Entry& entry, bool done, const juce::String& error)
{
    auto& status = entry.status;
    if (done)
    {
        status.state = FileState::done;
        status.progress = 1.0;
    }
    else
    {
        status.state = FileState::failed;
        status.error = error;
        entry.windows.clear();
    }
    status.numWindows = entry.windows.size();
    status.version = ++version_;
}

} // namespace sonotype::plugin
