#include "plugin/Teaching.h"

#include "dsp/Resampler.h"
#include "engine/file/Text.h"
#include "formats/AudioFileReader.h"
#include "formats/AudioFormats.h"
#include "plugin/FileWriting.h"
#include "runtime/WindowAnalyzer.h"
#include "teach/TaughtModel.h"
#include "timeline/FileBlocks.h"
#include "timeline/NoteMap.h"

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
} // namespace

Teaching::Teaching (ModelService& service, std::function<void (juce::String, bool)> setStatus)
    : service_ (service), setStatus_ (std::move (setStatus))
{
}

// ----- edits (message thread) -------------------------------------------------------------------

juce::String Teaching::addClass (const juce::String& name)
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
    if (classes_.empty())
        sampleRate_ = sampleRateLocked (*service_.base().model); // the examples to come are kept at the model's rate
    classes_.push_back ({ trimmed, {}, -1 });
    edited();
    return {};
}

void Teaching::removeClass (int classIndex)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (classIndex < 0 || classIndex >= static_cast<int> (classes_.size()))
        return;
    classes_.erase (classes_.begin() + classIndex);
    edited();
}

juce::String Teaching::addSound (int classIndex, const std::vector<float>& samples, double sampleRate, const juce::String& source)
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

juce::String Teaching::addFiles (int classIndex, const juce::Array<juce::File>& files, double startSeconds, double endSeconds)
{
    juce::Array<juce::File> audio;
    for (const auto& file : files)
    {
        if (file.isDirectory())
        {
            auto found = file.findChildFiles (juce::File::findFiles, true, "*", juce::File::FollowSymlinks::noCycles);
            found.sort();
            for (const auto& f : found)
                if (formats::isReadableAudioFile (f.getFullPathName().toStdString()) && audio.size() <= teach::ExampleSet::kMaxExamplesPerClass)
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
    {
        FileJob job { classes_[static_cast<std::size_t> (classIndex)].name, file, startSeconds, endSeconds };
        service_.post ([this, job = std::move (job), epoch = readEpoch_] { readFile (job, epoch); });
        ++pendingFiles_;
    }
    ++version_;
    return {};
}

void Teaching::removeExample (int classIndex, int exampleIndex)
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

void Teaching::setEnabled (bool enabled)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (enabled_ == enabled)
        return;
    enabled_ = enabled;
    edited();
}

bool Teaching::isEnabled() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return enabled_;
}

void Teaching::setHits (bool hits)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (hitsChosen_ && hits_ == hits)
        return;
    hits_ = hits; // (the service embeds them the other way, and the view shows no check until then)
    hitsChosen_ = true;
    edited();
}

void Teaching::setUnknownBelow (double threshold)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    const auto clamped = std::clamp (threshold, -1.0, 1.0);
    if (clamped == unknownBelow_)
        return;
    unknownBelow_ = clamped;
    edited();
}

void Teaching::setNote (int classIndex, int note)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (classIndex < 0 || classIndex >= static_cast<int> (classes_.size()))
        return;
    auto& chosen = classes_[static_cast<std::size_t> (classIndex)].note;
    const int clamped = note < 0 ? -1 : std::min (note, 127);
    if (chosen == clamped)
        return;
    chosen = clamped;
    edited(); // learned again (the embeddings kept): the model runs and exports with the note
}

juce::String Teaching::addLocked (const std::string& className, teach::ExampleSound sound)
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
            total += static_cast<int64_t> (example.sound->samples.size());
    if (static_cast<double> (total + static_cast<int64_t> (sound.samples.size())) > teach::ExampleSet::kMaxTotalSeconds * sampleRate_)
        return "The examples hold " + juce::String (static_cast<int> (teach::ExampleSet::kMaxTotalSeconds))
               + " s of sound at most (a saved session stays small): remove some to add " + text (sound.source);
    // Kept as the saved state keeps it (16-bit samples), so what is learned now is what a reopened
    // session learns.
    for (auto& x : sound.samples)
        x = std::isfinite (x) ? static_cast<float> (std::lround (std::clamp (x, -1.0f, 1.0f) * 32767.0f)) / 32767.0f : 0.0f;
    found->examples.push_back ({ nextId_++, std::make_shared<const teach::ExampleSound> (std::move (sound)) });
    edited();
    return {};
}

void Teaching::edited()
{
    ++edits_;
    ++version_;
    // The service learns a copy of the classes (the sounds shared): nothing here waits for it.
    auto taught = std::make_shared<TaughtClasses>();
    taught->version = edits_;
    taught->sampleRate = sampleRate_;
    taught->unknownBelow = unknownBelow_;
    taught->hits = hitsLocked();
    taught->enabled = enabled_;
    taught->learnedOn = learnedOnLocked (service_.outcome().get());
    for (const auto& c : classes_)
    {
        TaughtClasses::Class copy { c.name, {}, c.note };
        for (const auto& example : c.examples)
            copy.examples.push_back ({ example.id, example.sound });
        taught->classes.push_back (std::move (copy));
    }
    service_.teach (std::move (taught));
}

bool Teaching::hitsLocked() const
{
    if (hitsChosen_)
        return hits_;
    // One-shots are hits, as `sonotype learn` decides: every example shorter than the base's window.
    const auto& frontend = runtime::frontendOf (*service_.base().model);
    const auto window = static_cast<double> (frontend.windowSamples) / frontend.sampleRate;
    bool any = false;
    for (const auto& c : classes_)
        for (const auto& example : c.examples)
        {
            if (static_cast<double> (example.sound->samples.size()) >= window * sampleRate_)
                return false;
            any = true;
        }
    return any;
}

double Teaching::sampleRateLocked (const engine::Model& base) const
{
    return classes_.empty() ? storageRateFor (base) : sampleRate_;
}

std::string Teaching::learnedOnLocked (const LessonOutcome* outcome) const
{
    // What the service learned these classes on, else what they were restored with.
    return outcome != nullptr && outcome->version >= restoredAt_ ? outcome->learnedOn : learnedOn_;
}

bool Teaching::busyLocked() const
{
    return pendingFiles_ > 0 || service_.isBusy();
}

// ----- views and files (message thread) ---------------------------------------------------------

Teaching::View Teaching::view() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    const auto outcome = service_.outcome();
    const auto base = service_.base();
    // What the service learned of these classes (an outcome from before a restore is of others).
    const bool learned = outcome != nullptr && outcome->version >= restoredAt_;
    View v;
    v.version = version_ + (outcome != nullptr ? outcome->serial : 0);
    v.enabled = enabled_;
    v.hits = hitsLocked();
    v.hitsAutomatic = ! hitsChosen_;
    v.pendingFiles = pendingFiles_;
    v.busy = busyLocked();
    v.runningTaught = service_.isRunningTaught();
    v.learnMilliseconds = outcome != nullptr ? outcome->milliseconds : 0.0;
    v.sampleRate = sampleRateLocked (*base.model);
    v.baseName = base.description.name;
    v.error = learned && outcome->version > readErrorAt_ ? outcome->error : readError_;
    if (outcome != nullptr)
        for (const auto& label : outcome->labels)
            v.labels.add (text (label));
    const auto baseLabels = runtime::classLabels (*base.model);
    // The checks are shown when they were made the way the examples are taught now (hits or not).
    const bool hits = hitsLocked();
    const auto* heardAs = learned && outcome->hits == hits ? &outcome->heardAs : nullptr;
    int64_t total = 0;
    for (const auto& taught : classes_)
    {
        ClassView c;
        c.name = text (taught.name);
        c.note = taught.note;
        c.baseClass = std::find (baseLabels.begin(), baseLabels.end(), taught.name) != baseLabels.end();
        for (const auto& example : taught.examples)
        {
            ExampleView e;
            e.source = text (example.sound->source);
            e.seconds = static_cast<double> (example.sound->samples.size()) / v.sampleRate;
            total += static_cast<int64_t> (example.sound->samples.size());
            const auto heard = heardAs != nullptr ? heardAs->find (example.id) : std::map<uint64_t, std::vector<int>>::const_iterator();
            if (heardAs != nullptr && heard != heardAs->end())
            {
                e.checked = true;
                for (const int label : heard->second)
                {
                    const bool right = label >= 0 && label < v.labels.size() && v.labels[label] == c.name;
                    e.hitsRecognised += right ? 1 : 0;
                    if (! hits)
                        e.heardAs = label;
                }
                if (hits)
                    e.hits = static_cast<int> (heard->second.size());
                c.recognised += e.hitsRecognised;
                c.hits += e.hits;
            }
            c.examples.push_back (e);
        }
        v.classes.push_back (std::move (c));
    }
    v.storedSeconds = static_cast<double> (total) / v.sampleRate;
    return v;
}

std::vector<int> Teaching::playedNotes (const View& view, int baseNote)
{
    // The running model's classes: the learned ones and "unknown"; before any learning, the rows.
    std::vector<std::string> labels, rows;
    for (const auto& c : view.classes)
        rows.push_back (c.name.toStdString());
    for (const auto& label : view.labels)
        labels.push_back (label.toStdString());
    if (labels.empty())
        labels = rows;
    const auto notesOf = [&view, baseNote] (const std::vector<std::string>& names) {
        std::vector<int> chosen (names.size(), timeline::kNoNote);
        for (std::size_t i = 0; i < names.size(); ++i)
            for (const auto& c : view.classes)
                if (c.name.toStdString() == names[i])
                    chosen[i] = c.note;
        return timeline::noteMap (names, chosen, baseNote);
    };
    const auto running = notesOf (labels), unlearned = notesOf (rows);
    std::vector<int> notes;
    for (std::size_t r = 0; r < rows.size(); ++r)
    {
        const auto found = std::find (labels.begin(), labels.end(), rows[r]);
        notes.push_back (found != labels.end() ? running.noteOf (static_cast<int> (found - labels.begin())) : unlearned.noteOf (static_cast<int> (r)));
    }
    return notes;
}

juce::String Teaching::exportModel (const juce::File& file) const
{
    // The head last learned, built again on the file it extends, with the examples this time.
    const auto outcome = service_.outcome();
    if (outcome == nullptr || ! outcome->head.has_value() || outcome->extendedFile == nullptr)
        return "Nothing taught yet: give a class an example first";
    try
    {
        const auto set = examples();
        teach::ChosenNotes notes;
        for (const auto& c : set.classes)
            if (c.note >= 0)
                notes[c.name] = c.note;
        const auto built = teach::buildTaughtModel (*outcome->extendedFile, outcome->baseName, *outcome->head, teach::encodeExampleSet (set), notes);
        if (auto error = writeFile (file, built.bytes.data(), built.bytes.size()); error.isNotEmpty())
            return error;
    }
    catch (const std::exception& e)
    {
        return "Could not export the taught model: " + text (e.what());
    }
    return {};
}

juce::String Teaching::importModel (const juce::File& file)
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

teach::ExampleSet Teaching::examples() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    teach::ExampleSet set;
    set.sampleRate = sampleRateLocked (*service_.base().model);
    set.unknownBelow = unknownBelow_;
    set.hits = hitsChosen_ ? hits_ : hitsLocked();
    set.hitsChosen = hitsChosen_;
    set.learnedOn = learnedOnLocked (service_.outcome().get());
    for (const auto& taught : classes_)
    {
        teach::ClassSounds c { taught.name, {}, taught.note };
        for (const auto& example : taught.examples)
            c.examples.push_back (*example.sound);
        set.classes.push_back (std::move (c));
    }
    return set;
}

void Teaching::restore (teach::ExampleSet set, bool enabled)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    ++readEpoch_; // files still to read were for the classes before
    pendingFiles_ = 0;
    classes_.clear();
    sampleRate_ = set.sampleRate;
    unknownBelow_ = set.unknownBelow;
    hits_ = set.hits;
    hitsChosen_ = set.hitsChosen;
    learnedOn_ = set.learnedOn;
    enabled_ = enabled;
    readError_.clear();
    readErrorAt_ = 0;
    for (auto& taught : set.classes)
    {
        StoredClass c { taught.name, {}, taught.note };
        for (auto& sound : taught.examples)
            c.examples.push_back ({ nextId_++, std::make_shared<const teach::ExampleSound> (std::move (sound)) });
        classes_.push_back (std::move (c));
    }
    restoredAt_ = edits_ + 1; // the edit below
    edited();
}

bool Teaching::isRunningTaught() const
{
    return service_.isRunningTaught();
}

bool Teaching::waitUntilIdle (int timeoutMs) const
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds (timeoutMs);
    while (std::chrono::steady_clock::now() < deadline)
    {
        {
            const std::lock_guard<std::mutex> lock (mutex_);
            if (! busyLocked())
                return true;
        }
        std::this_thread::sleep_for (std::chrono::milliseconds (2));
    }
    return false;
}

// ----- service thread ---------------------------------------------------------------------------

void Teaching::readFile (const FileJob& job, uint64_t epoch)
{
    const auto name = job.file.getFileName();
    juce::String error;
    teach::ExampleSound sound;
    double rate = 0.0;
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        if (epoch != readEpoch_)
            return; // restored meanwhile: not for these classes
        rate = sampleRate_;
    }
    try
    {
        formats::AudioFileReader reader (job.file.getFullPathName().toStdString());
        const double fileRate = reader.sampleRate();
        const bool region = job.end > job.start;
        const auto skip = static_cast<int64_t> (std::max (0.0, job.start) * fileRate);
        const auto wanted = static_cast<std::size_t> (std::ceil ((region ? std::min (job.end - job.start, teach::ExampleSet::kMaxExampleSeconds)
                                                                         : teach::ExampleSet::kMaxExampleSeconds)
                                                                 * fileRate));
        timeline::forEachBlock (reader, {}, skip); // to the region's start
        std::vector<float> samples;
        samples.reserve (wanted);
        timeline::forEachBlock (
            reader, [&samples] (std::span<const float> block) {
                samples.insert (samples.end(), block.begin(), block.end());
                return true;
            },
            static_cast<int64_t> (wanted));
        const auto count = samples.size();
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
        if (epoch != readEpoch_)
            return;
        --pendingFiles_; // first: read, whatever adding it does (an exception leaves the view not busy)
        ++version_;
        if (error.isEmpty() && rate != sampleRate_)
            error = "Could not add " + name + ": the classes were started again at another sample rate while it was read";
        if (error.isEmpty())
            error = addLocked (job.className, std::move (sound)); // (an edit: the service learns it once the files are read)
        if (error.isNotEmpty())
        {
            readError_ = error;
            readErrorAt_ = edits_;
        }
    }
    if (error.isNotEmpty())
        setStatus_ (error, true);
}

} // namespace sonotype::plugin
