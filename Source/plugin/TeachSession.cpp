#include "plugin/TeachSession.h"

#include "dsp/Resampler.h"
#include "engine/file/Text.h"
#include "formats/AudioFileReader.h"
#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"
#include "teach/HitEmbedding.h"
#include "teach/TaughtModel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <utility>

namespace sonotype::plugin
{
namespace
{
    juce::String text (const std::string& s)
    {
        return juce::String::fromUTF8 (s.c_str());
    }

    /** `samples` at `fromRate` as mono at `toRate`, cut to `maxSamples` of the result. */
    std::vector<float> resampled (const float* samples, std::size_t count, double fromRate, double toRate, std::size_t maxSamples)
    {
        std::vector<float> out;
        if (fromRate == toRate)
            out.assign (samples, samples + std::min (count, maxSamples));
        else
        {
            dsp::Resampler resampler (fromRate, toRate);
            resampler.process (samples, std::min (count, static_cast<std::size_t> (std::ceil (static_cast<double> (maxSamples) * fromRate / toRate)) + 64),
                               out);
            resampler.flush (out);
        }
        if (out.size() > maxSamples)
            out.resize (maxSamples);
        return out;
    }

    double storageRateFor (const engine::Model& model)
    {
        try
        {
            return std::clamp (runtime::frontendOf (model).sampleRate, teach::ExampleSet::kMinSampleRate, teach::ExampleSet::kMaxSampleRate);
        }
        catch (const std::exception&)
        {
            return 16000.0;
        }
    }

    bool isAudioFile (const juce::File& file)
    {
        return file.hasFileExtension (formats::kAudioFileExtensions);
    }
} // namespace

TeachSession::TeachSession (Callbacks callbacks) : juce::Thread ("Sonotype teacher"), callbacks_ (std::move (callbacks))
{
    // The thread starts with the first class or example (wake()): an instance that is never
    // taught anything has no thread idling for it.
}

TeachSession::~TeachSession()
{
    stop();
}

void TeachSession::stop()
{
    stopped_.store (true);
    signalThreadShouldExit();
    notify();
    stopThread (-1);
}

// ----- edits (message thread) -------------------------------------------------------------------

juce::String TeachSession::addClass (const juce::String& name)
{
    const auto trimmed = name.trim().toStdString();
    if (trimmed.empty())
        return "Give the class a name";
    if (trimmed == "unknown")
        return "'unknown' is the answer when no taught class is close; give the class another name";
    try
    {
        engine::checkDisplayText (trimmed, 256, "class name");
    }
    catch (const std::exception& e)
    {
        return text (e.what());
    }
    const std::lock_guard<std::mutex> lock (mutex_);
    for (const auto& taught : classes_)
        if (taught.name == trimmed)
            return "There is a class '" + text (trimmed) + "' already";
    if (classes_.size() >= static_cast<std::size_t> (teach::ExampleSet::kMaxClasses))
        return "At most " + juce::String (teach::ExampleSet::kMaxClasses) + " classes can be taught";
    classes_.push_back ({ trimmed, {} });
    edited();
    return {};
}

void TeachSession::removeClass (int classIndex)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (classIndex < 0 || classIndex >= static_cast<int> (classes_.size()))
        return;
    classes_.erase (classes_.begin() + classIndex);
    edited();
}

juce::String TeachSession::addSound (int classIndex, const std::vector<float>& samples, double sampleRate, const juce::String& source)
{
    if (samples.empty())
        return "The recording is empty";
    double rate = 0.0;
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        rate = sampleRate_;
    }
    std::vector<float> sound;
    try
    {
        sound = resampled (samples.data(), samples.size(), sampleRate, rate, static_cast<std::size_t> (teach::ExampleSet::kMaxExampleSeconds * rate));
    }
    catch (const std::exception& e)
    {
        return "Cannot use the recording: " + text (e.what());
    }
    const std::lock_guard<std::mutex> lock (mutex_);
    if (classIndex < 0 || classIndex >= static_cast<int> (classes_.size()))
        return "No such class";
    return addLocked (classes_[static_cast<std::size_t> (classIndex)].name, { source.toStdString(), std::move (sound) });
}

juce::String TeachSession::addFiles (int classIndex, const juce::Array<juce::File>& files, double startSeconds, double endSeconds)
{
    juce::Array<juce::File> audio;
    for (const auto& file : files)
    {
        if (file.isDirectory())
        {
            auto found = file.findChildFiles (juce::File::findFiles, true, "*", juce::File::FollowSymlinks::noCycles);
            found.sort();
            for (const auto& f : found)
                if (isAudioFile (f) && audio.size() <= teach::ExampleSet::kMaxExamplesPerClass)
                    audio.add (f);
        }
        else if (audio.size() <= teach::ExampleSet::kMaxExamplesPerClass)
            audio.add (file);
    }
    if (audio.isEmpty())
        return "No audio files there";
    const std::lock_guard<std::mutex> lock (mutex_);
    if (classIndex < 0 || classIndex >= static_cast<int> (classes_.size()))
        return "No such class";
    for (const auto& file : audio)
        jobs_.push_back ({ classes_[static_cast<std::size_t> (classIndex)].name, file, startSeconds, endSeconds });
    ++version_;
    wake();
    return {};
}

void TeachSession::removeExample (int classIndex, int exampleIndex)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (classIndex < 0 || classIndex >= static_cast<int> (classes_.size()))
        return;
    auto& examples = classes_[static_cast<std::size_t> (classIndex)].examples;
    if (exampleIndex < 0 || exampleIndex >= static_cast<int> (examples.size()))
        return;
    examples.erase (examples.begin() + exampleIndex);
    edited();
}

void TeachSession::setEnabled (bool enabled)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (enabled_ == enabled)
        return;
    enabled_ = enabled;
    edited();
}

bool TeachSession::isEnabled() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return enabled_;
}

void TeachSession::setHits (bool hits)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (hits_ == hits)
        return;
    hits_ = hits;
    embedded_.clear(); // embedded the other way
    heardAs_.clear();
    edited();
}

void TeachSession::setUnknownBelow (double threshold)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    const auto clamped = std::clamp (threshold, -1.0, 1.0);
    if (clamped == unknownBelow_)
        return;
    unknownBelow_ = clamped;
    edited();
}

juce::String TeachSession::addLocked (const std::string& className, teach::ExampleSound sound)
{
    const auto found = std::find_if (classes_.begin(), classes_.end(), [&] (const StoredClass& c) { return c.name == className; });
    if (found == classes_.end())
        return "The class '" + text (className) + "' is gone";
    if (sound.samples.empty())
        return "No sound in " + text (sound.source);
    if (found->examples.size() >= static_cast<std::size_t> (teach::ExampleSet::kMaxExamplesPerClass))
        return "A class holds " + juce::String (teach::ExampleSet::kMaxExamplesPerClass) + " examples at most";
    int64_t total = 0;
    for (const auto& taught : classes_)
        for (const auto& example : taught.examples)
            total += static_cast<int64_t> (example.sound.samples.size());
    if (static_cast<double> (total + static_cast<int64_t> (sound.samples.size())) > teach::ExampleSet::kMaxTotalSeconds * sampleRate_)
        return "The examples hold " + juce::String (static_cast<int> (teach::ExampleSet::kMaxTotalSeconds))
               + " s of sound at most (a saved session stays small): remove some to add " + text (sound.source);
    // Kept as the saved state keeps it (16-bit samples), so what is learned now is what a reopened
    // session learns.
    for (auto& x : sound.samples)
        x = std::isfinite (x) ? static_cast<float> (std::lround (std::clamp (x, -1.0f, 1.0f) * 32767.0f)) / 32767.0f : 0.0f;
    found->examples.push_back ({ nextId_++, std::move (sound) });
    edited();
    return {};
}

void TeachSession::edited()
{
    ++edits_;
    ++version_;
    wake();
}

void TeachSession::wake()
{
    if (! stopped_.load())
        startThread(); // (once: a no-op while it runs)
    notify();
}

// ----- views and files (message thread) ---------------------------------------------------------

TeachSession::View TeachSession::view() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    View v;
    v.version = version_;
    v.enabled = enabled_;
    v.hits = hits_;
    v.pendingFiles = static_cast<int> (jobs_.size());
    v.busy = learning_ || waitingForBase_ || ! jobs_.empty() || learnedEdits_ != edits_ || learnedGeneration_ != baseGeneration_;
    v.runningTaught = runningTaught_;
    v.learnMilliseconds = learnMilliseconds_;
    v.sampleRate = sampleRate_;
    v.baseName = baseDescription_.name;
    v.error = error_;
    for (const auto& label : learnedLabels_)
        v.labels.add (text (label));
    std::vector<std::string> baseLabels;
    if (base_ != nullptr)
        baseLabels = runtime::classLabels (*base_);
    int64_t total = 0;
    for (const auto& taught : classes_)
    {
        ClassView c;
        c.name = text (taught.name);
        c.baseClass = std::find (baseLabels.begin(), baseLabels.end(), taught.name) != baseLabels.end();
        for (const auto& example : taught.examples)
        {
            ExampleView e;
            e.source = text (example.sound.source);
            e.seconds = static_cast<double> (example.sound.samples.size()) / sampleRate_;
            total += static_cast<int64_t> (example.sound.samples.size());
            if (const auto heard = heardAs_.find (example.id); heard != heardAs_.end())
            {
                e.checked = true;
                for (const int label : heard->second)
                {
                    const bool right = label >= 0 && label < v.labels.size() && v.labels[label] == c.name;
                    e.hitsRecognised += right ? 1 : 0;
                    if (! hits_)
                        e.heardAs = label;
                }
                if (hits_)
                    e.hits = static_cast<int> (heard->second.size());
                c.recognised += e.hitsRecognised;
                c.hits += e.hits;
            }
            c.examples.push_back (e);
        }
        v.classes.push_back (std::move (c));
    }
    v.storedSeconds = static_cast<double> (total) / sampleRate_;
    return v;
}

juce::String TeachSession::exportModel (const juce::File& file) const
{
    teach::Head head;
    std::shared_ptr<const std::vector<std::uint8_t>> baseBytes;
    std::string baseName;
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        if (! head_.has_value() || headBytes_ == nullptr)
            return "Nothing taught yet: give a class an example first";
        head = *head_;
        baseBytes = headBytes_;
        baseName = baseDescription_.name.toStdString();
    }
    try
    {
        const auto built = teach::buildTaughtModel (*baseBytes, baseName, head, teach::encodeExampleSet (examples()));
        if (! file.replaceWithData (built.bytes.data(), built.bytes.size()))
            return "Could not write " + file.getFullPathName();
    }
    catch (const std::exception& e)
    {
        return "Could not export the taught model: " + text (e.what());
    }
    return {};
}

juce::String TeachSession::importModel (const juce::File& file)
{
    try
    {
        const auto model = engine::Model::load (file.getFullPathName().toStdString());
        const auto json = teach::taughtExamplesOf (*model);
        if (json.empty())
            return file.getFileName() + " holds no taught examples (only a model a Teach panel exported does); load it with Load model... to run it";
        restore (teach::decodeExampleSet (json), true);
    }
    catch (const std::exception& e)
    {
        return "Could not import " + file.getFileName() + ": " + text (e.what());
    }
    return {};
}

teach::ExampleSet TeachSession::examples() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    teach::ExampleSet set;
    set.sampleRate = sampleRate_;
    set.unknownBelow = unknownBelow_;
    set.hits = hits_;
    set.learnedOn = learnedOn_;
    for (const auto& taught : classes_)
    {
        teach::ClassSounds c { taught.name, {} };
        for (const auto& example : taught.examples)
            c.examples.push_back (example.sound);
        set.classes.push_back (std::move (c));
    }
    return set;
}

void TeachSession::resume()
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (std::exchange (waitingForBase_, false))
        edited();
}

void TeachSession::restore (teach::ExampleSet set, bool enabled, bool waitForBase)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    waitingForBase_ = waitForBase;
    classes_.clear();
    jobs_.clear();
    heardAs_.clear();
    sampleRate_ = set.classes.empty() && base_ != nullptr ? storageRateFor (*base_) : set.sampleRate;
    unknownBelow_ = set.unknownBelow;
    hits_ = set.hits;
    embedded_.clear();
    learnedOn_ = set.learnedOn;
    enabled_ = enabled;
    error_.clear();
    for (auto& taught : set.classes)
    {
        StoredClass c { taught.name, {} };
        for (auto& sound : taught.examples)
            c.examples.push_back ({ nextId_++, std::move (sound) });
        classes_.push_back (std::move (c));
    }
    edited();
}

// ----- base model -------------------------------------------------------------------------------

uint64_t TeachSession::setBase (std::shared_ptr<const engine::Model> model, const ModelDescription& description)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    const bool empty = std::all_of (classes_.begin(), classes_.end(), [] (const StoredClass& c) { return c.examples.empty(); });
    if (empty && classes_.empty())
        sampleRate_ = storageRateFor (*model); // the examples to come are kept at the model's rate
    base_ = std::move (model);
    baseDescription_ = description;
    runningTaught_ = false;
    waitingForBase_ = false;
    ++version_;
    if (classes_.empty() && jobs_.empty())
        notify(); // nothing taught: nothing to learn on the new base (the thread, if any, looks anyway)
    else
        wake();
    return ++baseGeneration_;
}

bool TeachSession::isCurrentBase (uint64_t generation) const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return generation == baseGeneration_;
}

bool TeachSession::isRunningTaught() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return runningTaught_;
}

bool TeachSession::waitUntilIdle (int timeoutMs) const
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds (timeoutMs);
    while (std::chrono::steady_clock::now() < deadline)
    {
        if (! view().busy)
            return true;
        std::this_thread::sleep_for (std::chrono::milliseconds (2));
    }
    return false;
}

// ----- teacher thread ---------------------------------------------------------------------------

void TeachSession::run()
{
    while (! threadShouldExit())
    {
        std::optional<FileJob> job;
        bool needsLearning = false;
        {
            const std::lock_guard<std::mutex> lock (mutex_);
            if (! jobs_.empty())
            {
                job = jobs_.front();
                jobs_.erase (jobs_.begin());
            }
            needsLearning = base_ != nullptr && ! waitingForBase_ && (learnedEdits_ != edits_ || learnedGeneration_ != baseGeneration_);
            learning_ = job.has_value() || needsLearning;
        }
        try
        {
            if (job.has_value())
                readFile (*job);
            else if (needsLearning)
                learn();
            else
                wait (-1);
        }
        catch (...)
        {
            // Out of memory even for a message: this round ends; never let it out into the host.
            const std::lock_guard<std::mutex> lock (mutex_);
            learnedEdits_ = edits_;
            learnedGeneration_ = baseGeneration_;
            error_ = "Learning failed (out of memory?)";
        }
    }
}

void TeachSession::readFile (const FileJob& job)
{
    const auto name = job.file.getFileName();
    juce::String error;
    teach::ExampleSound sound;
    try
    {
        double rate = 0.0;
        {
            const std::lock_guard<std::mutex> lock (mutex_);
            rate = sampleRate_;
        }
        formats::AudioFileReader reader (job.file.getFullPathName().toStdString());
        const double fileRate = reader.sampleRate();
        const bool region = job.end > job.start;
        auto skip = static_cast<int64_t> (std::max (0.0, job.start) * fileRate);
        const auto wanted = static_cast<std::size_t> (std::ceil ((region ? std::min (job.end - job.start, teach::ExampleSet::kMaxExampleSeconds)
                                                                         : teach::ExampleSet::kMaxExampleSeconds)
                                                                 * fileRate));
        std::vector<float> samples (wanted), scratch (65536);
        while (skip > 0)
        {
            const auto got = reader.readMono (scratch.data(), static_cast<std::size_t> (std::min<int64_t> (skip, static_cast<int64_t> (scratch.size()))));
            if (got == 0)
                break;
            skip -= static_cast<int64_t> (got);
        }
        std::size_t count = 0;
        while (count < wanted)
        {
            const auto got = reader.readMono (samples.data() + count, wanted - count);
            if (got == 0)
                break;
            count += got;
        }
        sound.samples = resampled (samples.data(), count, fileRate, rate, static_cast<std::size_t> (teach::ExampleSet::kMaxExampleSeconds * rate));
        char range[64];
        std::snprintf (range, sizeof range, " %.2f-%.2f s", job.start, job.start + static_cast<double> (count) / fileRate);
        sound.source = (name + (region ? juce::String (range) : juce::String())).toStdString();
    }
    catch (const std::exception& e)
    {
        error = "Could not add " + name + ": " + text (e.what());
    }
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        if (error.isEmpty())
            error = addLocked (job.className, std::move (sound));
        if (error.isNotEmpty())
            error_ = error;
        ++version_;
    }
    if (error.isNotEmpty())
        callbacks_.setStatus (error, true);
}

void TeachSession::learn()
{
    const auto started = std::chrono::steady_clock::now();
    // What to learn, copied (the sounds are shared by value: at most a few megabytes).
    std::vector<StoredClass> classes;
    std::shared_ptr<const engine::Model> base;
    ModelDescription description;
    uint64_t generation = 0, edits = 0;
    bool enabled = true, wasRunningTaught = false;
    double rate = 16000.0, unknownBelow = 0.5;
    std::string learnedOn;
    std::map<uint64_t, std::vector<teach::Example>> embedded;
    std::shared_ptr<const std::vector<std::uint8_t>> baseBytes, hitBytes;
    std::shared_ptr<const engine::Model> hitEmbedder;
    bool hits = false;
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        classes = classes_;
        base = base_;
        description = baseDescription_;
        generation = baseGeneration_;
        edits = edits_;
        enabled = enabled_;
        rate = sampleRate_;
        unknownBelow = unknownBelow_;
        learnedOn = learnedOn_;
        wasRunningTaught = runningTaught_;
        hits = hits_;
        if (embeddedGeneration_ == generation)
            embedded = embedded_;
        if (bytesGeneration_ == generation)
            baseBytes = baseBytes_, hitBytes = hitBytes_, hitEmbedder = hitEmbedder_;
    }
    const auto finish = [&] (juce::String error, std::shared_ptr<const engine::Model> taught) {
        {
            const std::lock_guard<std::mutex> lock (mutex_);
            if (edits != edits_ || generation != baseGeneration_)
                return false; // edited meanwhile: the next round learns again
            learnedEdits_ = edits;
            learnedGeneration_ = generation;
            error_ = error;
            embedded_ = embedded;
            embeddedGeneration_ = generation;
            learnMilliseconds_ = std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now() - started).count();
            ++version_;
        }
        const bool runsTaught = taught != nullptr;
        if (runsTaught || wasRunningTaught)
            callbacks_.install (runsTaught ? std::move (taught) : base, generation);
        const std::lock_guard<std::mutex> lock (mutex_);
        if (generation == baseGeneration_)
            runningTaught_ = runsTaught;
        return true;
    };

    const bool anything = std::any_of (classes.begin(), classes.end(), [] (const StoredClass& c) { return ! c.examples.empty(); });
    if (! anything || ! enabled)
    {
        {
            const std::lock_guard<std::mutex> lock (mutex_);
            if (! anything)
                heardAs_.clear(), learnedLabels_.clear(), head_.reset();
        }
        finish ({}, nullptr);
        return;
    }
    if (! base->info().embeddingOutput.has_value())
    {
        const juce::String error = "The taught classes need a model with an embedding output, and " + description.name
                                   + " has none: the model's own classes answer. The taught examples are kept for a model that has one.";
        if (finish (error, nullptr))
            callbacks_.setStatus (error, true);
        return;
    }
    try
    {
        if (baseBytes == nullptr)
        {
            if (description.builtin)
            {
                const auto file = resources::builtinModelFile();
                baseBytes = std::make_shared<const std::vector<std::uint8_t>> (file.begin(), file.end());
            }
            else
            {
                juce::MemoryBlock block;
                if (! description.file.loadFileAsData (block))
                    throw std::runtime_error ("cannot read " + description.file.getFullPathName().toStdString() + " again");
                const auto* data = static_cast<const std::uint8_t*> (block.getData());
                baseBytes = std::make_shared<const std::vector<std::uint8_t>> (data, data + block.getSize());
            }
        }
        // Hits are embedded as `sonotype learn --hits` embeds them: from the model's token sequence
        // where it has one (teach/HitEmbedding.h), and the taught model extends that file.
        // The hit-embedding file is made once per base model (kept with the base's bytes).
        if (hits && hitBytes == nullptr)
        {
            hitBytes = baseBytes, hitEmbedder = base;
            if (auto tokens = teach::hitEmbeddingModelFile (*baseBytes))
            {
                hitBytes = std::make_shared<const std::vector<std::uint8_t>> (std::move (*tokens));
                hitEmbedder = engine::Model::fromMemory (hitBytes->data(), hitBytes->size(), base->info().name);
            }
        }
        const auto headBytes = hits ? hitBytes : baseBytes;
        const auto embedder = hits ? hitEmbedder : base;
        teach::ExampleSettings settings;
        settings.hits = hits;

        // Each new example's embedding (hits mode: each of its hits') on the base model; the
        // examples already embedded on it are kept.
        std::vector<teach::TaughtClass> taught;
        std::vector<std::vector<uint64_t>> ids; // per taught class, the example each of its examples came from
        for (const auto& c : classes)
        {
            teach::TaughtClass t { c.name, {} };
            std::vector<uint64_t> from;
            for (const auto& example : c.examples)
            {
                auto found = embedded.find (example.id);
                if (found == embedded.end())
                {
                    const auto source = "example " + std::to_string (example.id);
                    auto e = hits ? teach::hitExamplesOfSamples (example.sound.samples, rate, source, embedder, settings)
                                  : std::vector<teach::Example> { teach::exampleOfSamples (example.sound.samples, rate, source, embedder) };
                    found = embedded.emplace (example.id, std::move (e)).first;
                }
                for (const auto& e : found->second)
                {
                    t.examples.push_back (e);
                    from.push_back (example.id);
                }
            }
            if (threadShouldExit())
                return;
            if (t.examples.empty())
                continue; // no examples yet, or (hits) no hit found in them: the view says so
            taught.push_back (std::move (t));
            ids.push_back (std::move (from));
        }
        if (taught.empty())
        {
            const juce::String error = "No hits found in the examples: record or add sounds with clear attacks, or switch off \"Examples are hits\"";
            {
                const std::lock_guard<std::mutex> lock (mutex_);
                if (edits == edits_ && generation == baseGeneration_)
                    heardAs_.clear(), learnedLabels_.clear(), head_.reset();
            }
            finish (error, nullptr);
            return;
        }
        const auto baseLabels = runtime::classLabels (*base);
        auto head = teach::learn (taught, baseLabels, unknownBelow);
        if (hits)
            head.hitClipSeconds = settings.clipSeconds; // the per-hit mode classifies hits as they were taught
        const auto confusion = teach::leaveOneFileOut (taught, baseLabels, unknownBelow);
        const auto built = teach::buildTaughtModel (*headBytes, description.name.toStdString(), head);
        const auto identity = teach::modelIdentity (description.name.toStdString(), baseBytes->data(), baseBytes->size());
        {
            const std::lock_guard<std::mutex> lock (mutex_);
            if (edits != edits_ || generation != baseGeneration_)
                return;
            heardAs_.clear();
            for (std::size_t c = 0; c < ids.size(); ++c)
                for (std::size_t i = 0; i < ids[c].size(); ++i)
                    heardAs_[ids[c][i]].push_back (confusion.predicted[c][i]);
            for (const auto& c : classes)
                for (const auto& example : c.examples)
                    heardAs_.try_emplace (example.id); // checked, no hit found in it
            learnedLabels_ = head.labels;
            head_ = head;
            baseBytes_ = baseBytes;
            headBytes_ = headBytes;
            hitBytes_ = hitBytes;
            hitEmbedder_ = hitEmbedder;
            bytesGeneration_ = generation;
            learnedOn_ = identity;
        }
        if (finish ({}, built.model) && ! learnedOn.empty() && learnedOn != identity)
        {
            int count = 0;
            juce::StringArray names;
            for (const auto& t : taught)
            {
                names.add (text (t.name));
                count += static_cast<int> (t.examples.size());
            }
            const auto old = text (learnedOn.substr (0, learnedOn.rfind ('#')));
            callbacks_.setStatus ("The taught classes (" + names.joinIntoString (", ") + ") were learned again from their " + juce::String (count)
                                      + " examples on " + description.name
                                      + (old == description.name ? juce::String (", a model of that name that differs from the one they were taught on")
                                                                 : " (they were taught on " + old + ")")
                                      + ". Check them in the Teach view.",
                                  false);
        }
    }
    catch (const std::exception& e)
    {
        const auto error = "Could not learn the taught classes on " + description.name + ": " + text (e.what());
        if (finish (error, nullptr))
            callbacks_.setStatus (error, true);
    }
}

} // namespace sonotype::plugin
