#include "plugin/SonotypeProcessor.h"

#include "plugin/SavedStateText.h"

#include "plugin/PluginParameters.h"
#include "resources/BuiltinModel.h"

#include <algorithm>
#include <utility>

namespace sonotype::plugin
{
namespace
{
    const juce::Identifier kStateType ("SonotypeState");
    const juce::Identifier kModelPath ("modelPath");
    const juce::Identifier kDisabledClasses ("disabledClasses");
    const juce::Identifier kOscEnabled ("oscEnabled");
    const juce::Identifier kOscHost ("oscHost");
    const juce::Identifier kOscPort ("oscPort");

    ModelDescription builtinDescription()
    {
        return { resources::kBuiltinModelName, {}, true };
    }

    /** Audio thread: a MIDI buffer without room reserved makes JUCE allocate, which can throw
        std::bad_alloc; inside a noexcept function that would end the host. The event is lost instead. */
    void addMidi (juce::MidiBuffer& midi, const juce::MidiMessage& message, int position) noexcept
    {
        try
        {
            midi.addEvent (message, position);
        }
        catch (...)
        {
        }
    }

    /** juce::AudioProcessor::getXmlFromBinary, refusing text that is not what the plugin writes
        (SavedStateText.h): JUCE 7's XML parser reads past the end of its string on malformed UTF-8
        and never returns on some valid texts (both found by Tests/fuzz/PluginStateFuzzer.cpp). */
    std::unique_ptr<juce::XmlElement> xmlFromState (const void* data, int sizeInBytes)
    {
        constexpr juce::uint32 kMagicXmlNumber = 0x21324356; // as copyXmlToBinary writes it
        if (data == nullptr || sizeInBytes <= 8 || juce::ByteOrder::littleEndianInt (data) != kMagicXmlNumber)
            return {};
        const auto* text = static_cast<const char*> (data) + 8;
        const auto length = static_cast<int> (std::min<juce::uint32> (juce::ByteOrder::littleEndianInt (static_cast<const char*> (data) + 4),
                                                                      static_cast<juce::uint32> (sizeInBytes - 8)));
        // JUCE's text ends at the first NUL (copyXmlToBinary stores one); so does the check.
        auto view = std::string_view (text, static_cast<std::size_t> (std::max (length, 0)));
        view = view.substr (0, view.find ('\0'));
        if (view.empty() || ! isPlainStateXml (view))
            return {};
        auto xml = juce::parseXML (juce::String::fromUTF8 (view.data(), static_cast<int> (view.size())));
        // The attributes read as numbers must be plain numbers before JUCE converts them.
        const auto plain = [] (const juce::XmlElement& element, const char* name) {
            return ! element.hasAttribute (name) || isPlainNumber (element.getStringAttribute (name).toStdString());
        };
        if (xml == nullptr || ! plain (*xml, "oscEnabled") || ! plain (*xml, "oscPort"))
            return {};
        for (const auto* child : xml->getChildIterator())
            if (! plain (*child, "value"))
                return {};
        return xml;
    }
} // namespace

juce::AudioProcessor::BusesProperties SonotypeProcessor::defaultBuses()
{
    return BusesProperties()
        .withInput ("Input", juce::AudioChannelSet::stereo(), true)
        .withOutput ("Output", juce::AudioChannelSet::stereo(), true);
}

SonotypeProcessor::SonotypeProcessor()
    : juce::AudioProcessor (defaultBuses()), parameters (*this, nullptr, kStateType, createParameterLayout())
{
    hop_ = parameters.getRawParameterValue (ParameterIds::hop);
    smoothing_ = parameters.getRawParameterValue (ParameterIds::smoothing);
    threshold_ = parameters.getRawParameterValue (ParameterIds::threshold);
    midiOut_ = parameters.getRawParameterValue (ParameterIds::midiOut);
    baseNote_ = parameters.getRawParameterValue (ParameterIds::baseNote);

    runtime::RuntimeOptions options;
    options.hopSeconds = appliedHop_ = hop_->load();
    options.smoothingSeconds = appliedSmoothing_ = smoothing_->load();
    options.historySize = 1024;
    runtime_ = std::make_unique<runtime::StreamingRuntime> (resources::builtinModel(), options);
    runtime_->setResultListener ([this] (const runtime::WindowResult& result, const runtime::AnalysisInfo& info) { onResult (result, info); });
    model_ = requested_ = builtinDescription();
    loader_ = std::thread ([this] { loaderLoop(); });
    startTimerHz (10);
}

SonotypeProcessor::~SonotypeProcessor()
{
    stopTimer();
    {
        const std::lock_guard<std::mutex> lock (loaderMutex_);
        loaderExit_ = true;
        latestRequest_.fetch_add (1); // whatever is loading is no longer wanted
    }
    loaderWake_.notify_all();
    loader_.join(); // a load under way ends first (the engine bounds its time and memory)
    runtime_->stop();
}

// ----- audio ------------------------------------------------------------------------------------

void SonotypeProcessor::prepareToPlay (double sampleRate, int)
{
    applyAnalysisParameters();
    try
    {
        runtime_->prepare (sampleRate); // stops the worker, rebuilds for the new rate, restarts
        if (std::exchange (analysisRateRefused_, false))
            clearStatus();
    }
    catch (const std::exception& e)
    {
        // A rate the front end cannot work at (a validator tries 1.2 MHz): the runtime stays
        // stopped, the audio still passes through untouched, and the GUI says why.
        analysisRateRefused_ = true;
        setStatus ("No analysis at " + juce::String (sampleRate, 1) + " Hz (" + juce::String::fromUTF8 (e.what())
                       + "); the audio passes through untouched.",
                   true);
    }
    player_.prepare (sampleRate);
    // MIDI from the old stream is stale (the worker was stopped and restarted: nothing new yet).
    // A note still sounding is not forgotten: its note-off goes out at the start of the next block.
    MidiEvent stale;
    while (midiQueue_.read (&stale, 1) == 1)
    {
    }
    numHeld_ = 0;
    streamPosition_ = 0;
    closeActiveNote_ = activeNote_ >= 0;
    wasPlaying_ = false;
    resetDetector_.store (true, std::memory_order_release);
}

void SonotypeProcessor::releaseResources()
{
    runtime_->stop();
}

bool SonotypeProcessor::isBusesLayoutSupported (const BusesLayout& layouts) const
{
    // An analyser passes its input through untouched: as many outputs as inputs, 1 to 8 channels.
    const auto& input = layouts.getMainInputChannelSet();
    const auto& output = layouts.getMainOutputChannelSet();
    return ! input.isDisabled() && input == output && input.size() >= 1 && input.size() <= 8;
}

void SonotypeProcessor::processBlock (juce::AudioBuffer<float>& buffer, juce::MidiBuffer& midi)
{
    const juce::ScopedNoDenormals noDenormals;
    const int numChannels = std::min (getTotalNumInputChannels(), buffer.getNumChannels());
    const int numSamples = buffer.getNumSamples();
    player_.render (buffer, numSamples); // a playing file replaces the input (standalone app)

    float peak = 0.0f;
    for (int c = 0; c < numChannels; ++c)
    {
        const auto range = juce::FloatVectorOperations::findMinAndMax (buffer.getReadPointer (c), numSamples);
        peak = std::max ({ peak, -range.getStart(), range.getEnd() });
    }
    if (std::isfinite (peak) && peak > inputPeak_.load (std::memory_order_relaxed))
        inputPeak_.store (peak, std::memory_order_relaxed); // a lost race only loses a meter peak

    // Offline (export, bounce): every window is analysed, and we wait for it, so that each
    // detection lands on its own sample whatever the block sizes. Real time never waits.
    const bool offline = isNonRealtime();
    runtime_->setNonRealtime (offline);
    runtime_->push (buffer.getArrayOfReadPointers(), numChannels, numSamples);
    if (offline)
        runtime_->waitUntilAnalysed();

    bool transportStopped = false;
    if (auto* host = getPlayHead())
        if (const auto position = host->getPosition())
        {
            const bool playing = position->getIsPlaying();
            transportStopped = wasPlaying_ && ! playing;
            wasPlaying_ = playing;
        }
    midi.clear();
    sendMidi (midi, numSamples, transportStopped, offline);
    streamPosition_ += numSamples;
}

void SonotypeProcessor::processBlockBypassed (juce::AudioBuffer<float>&, juce::MidiBuffer& midi)
{
    // Bypassed: audio passes through untouched (no analysis), and no note is left hanging.
    midi.clear();
    sendMidi (midi, 0, true, false);
}

void SonotypeProcessor::sendMidi (juce::MidiBuffer& midi, int numSamples, bool stopEverything, bool offline) noexcept
{
    const bool enabled = midiOut_->load (std::memory_order_relaxed) >= 0.5f;
    if (std::exchange (closeActiveNote_, false) && activeNote_ >= 0)
    {
        addMidi (midi, juce::MidiMessage::noteOff (1, activeNote_), 0);
        activeNote_ = -1;
    }
    MidiEvent event;
    while (numHeld_ < static_cast<int> (held_.size()) && midiQueue_.read (&event, 1) == 1)
        held_[static_cast<std::size_t> (numHeld_++)] = event;

    // Real time: everything now, at the block's start. Offline: each event on its own sample;
    // the ones for later blocks wait (the worker is ahead of them, never behind).
    const int64_t blockEnd = streamPosition_ + numSamples;
    int kept = 0;
    for (int i = 0; i < numHeld_; ++i)
    {
        const auto& held = held_[static_cast<std::size_t> (i)];
        if (! enabled || stopEverything)
            continue;
        if (offline && held.sample >= blockEnd)
        {
            held_[static_cast<std::size_t> (kept++)] = held;
            continue;
        }
        const int position = offline && numSamples > 0 ? static_cast<int> (juce::jlimit<int64_t> (0, numSamples - 1, held.sample - streamPosition_)) : 0;
        if (held.noteOn)
        {
            if (activeNote_ >= 0)
                addMidi (midi, juce::MidiMessage::noteOff (1, activeNote_), position);
            addMidi (midi, juce::MidiMessage::noteOn (1, held.note, static_cast<juce::uint8> (held.velocity)), position);
            activeNote_ = held.note;
        }
        else if (held.note == activeNote_)
        {
            addMidi (midi, juce::MidiMessage::noteOff (1, activeNote_), position);
            activeNote_ = -1;
        }
    }
    numHeld_ = kept;
    if ((! enabled || stopEverything) && activeNote_ >= 0)
    {
        addMidi (midi, juce::MidiMessage::noteOff (1, activeNote_), 0);
        activeNote_ = -1;
    }
    if (stopEverything)
        resetDetector_.store (true, std::memory_order_release); // starts again from scratch on the worker
}

// ----- worker thread ----------------------------------------------------------------------------

void SonotypeProcessor::onResult (const runtime::WindowResult& result, const runtime::AnalysisInfo& info)
{
    const auto version = filterVersion_.load (std::memory_order_acquire);
    if (version != workerFilterVersion_ || info.generation != detectorGeneration_)
    {
        workerEnabled_ = enabledMask (info.labels);
        workerFilterVersion_ = version;
    }
    runtime::Detector::Events events;
    const bool midiEnabled = midiOut_->load (std::memory_order_relaxed) >= 0.5f;
    if (resetDetector_.exchange (false, std::memory_order_acq_rel) || ! midiEnabled || info.generation != detectorGeneration_)
    {
        events = detector_.reset();
        detectorGeneration_ = info.generation;
    }
    const int numClasses = static_cast<int> (result.probabilities.size());
    if (midiEnabled)
    {
        runtime::DetectorSettings settings;
        settings.threshold = threshold_->load (std::memory_order_relaxed) / 100.0f;
        const auto update = detector_.update (result.probabilities.data(), numClasses, settings, workerEnabled_);
        for (int i = 0; i < update.count && events.count < 2; ++i) // after a reset nothing is active: at most one start follows
            events.items[events.count++] = update.items[i];
    }
    const int base = juce::roundToInt (baseNote_->load (std::memory_order_relaxed));
    auto queue = [this, &result] (bool noteOn, int note, int velocity) {
        const MidiEvent event { noteOn, note, velocity, result.readySample };
        midiQueue_.write (&event, 1);
    };
    for (int i = 0; i < events.count; ++i)
    {
        const auto& detection = events.items[i];
        // A note-off names the note that was turned on (the base note may have changed since).
        if (workerNote_ >= 0)
        {
            queue (false, workerNote_, 0);
            workerNote_ = -1;
        }
        const int note = base + detection.classIndex;
        if (detection.kind == runtime::Detection::Kind::start && note >= 0 && note <= 127)
        {
            queue (true, note, juce::jlimit (1, 127, juce::roundToInt (detection.confidence * 127.0f)));
            workerNote_ = note;
        }
    }
    osc_.send (result, info, runtime::topEnabledClass (result.probabilities.data(), numClasses, workerEnabled_), workerEnabled_);
}

// ----- message thread ---------------------------------------------------------------------------

void SonotypeProcessor::timerCallback()
{
    applyAnalysisParameters();
}

void SonotypeProcessor::applyAnalysisParameters()
{
    const std::lock_guard<std::mutex> lock (parameterMutex_);
    const float hop = hop_->load(), smoothing = smoothing_->load();
    if (hop == appliedHop_ && smoothing == appliedSmoothing_)
        return;
    try
    {
        runtime_->reconfigure (nullptr, hop, smoothing);
        appliedHop_ = hop;
        appliedSmoothing_ = smoothing;
    }
    catch (const std::exception& e)
    {
        setStatus ("Could not apply the analysis settings: " + juce::String::fromUTF8 (e.what()), true);
        appliedHop_ = hop;
        appliedSmoothing_ = smoothing;
    }
}

LiveSnapshot SonotypeProcessor::snapshot() const
{
    LiveSnapshot snapshot;
    snapshot.info = runtime_->info();
    snapshot.stats = runtime_->stats();
    snapshot.hasResult = runtime_->latest (snapshot.result) && snapshot.result.generation == snapshot.info->generation;
    if (snapshot.hasResult)
    {
        snapshot.stale = runtime_->isStale (snapshot.result);
        const auto mask = enabledMask (snapshot.info->labels);
        snapshot.topClass = runtime::topEnabledClass (snapshot.result.probabilities.data(),
                                                      static_cast<int> (snapshot.result.probabilities.size()), mask);
    }
    return snapshot;
}

ModelDescription SonotypeProcessor::modelDescription() const
{
    const std::lock_guard<std::mutex> lock (statusMutex_);
    return model_;
}

void SonotypeProcessor::swapModel (std::shared_ptr<const engine::Model> model, ModelDescription description)
{
    runtime_->reconfigure (std::move (model), hop_->load(), smoothing_->load()); // throws before changing anything
    const std::lock_guard<std::mutex> lock (statusMutex_);
    model_ = std::move (description);
}

void SonotypeProcessor::loadModelFile (const juce::File& file)
{
    requestModelLoad (file, LoadKind::user);
}

void SonotypeProcessor::requestModelLoad (const juce::File& file, LoadKind kind)
{
    const std::lock_guard<std::mutex> swap (swapMutex_); // orders this request against a load finishing now
    {
        const std::lock_guard<std::mutex> lock (statusMutex_);
        requested_ = { file.getFileName(), file, false };
        status_ = "Loading " + file.getFileName() + " ...";
        statusIsError_ = false;
    }
    {
        const std::lock_guard<std::mutex> lock (loaderMutex_);
        nextLoad_ = LoadRequest { latestRequest_.fetch_add (1) + 1, file, kind };
    }
    loaderWake_.notify_all();
}

bool SonotypeProcessor::isLoadingModel() const
{
    return finishedRequest_.load() != latestRequest_.load();
}

void SonotypeProcessor::loaderLoop()
{
    for (;;)
    {
        LoadRequest request;
        {
            std::unique_lock<std::mutex> lock (loaderMutex_);
            loaderWake_.wait (lock, [this] { return loaderExit_ || nextLoad_.has_value(); });
            if (loaderExit_)
                return;
            request = std::move (*nextLoad_);
            nextLoad_.reset();
        }
        try
        {
            finishModelLoad (request.id, request.file, request.kind);
        }
        catch (...)
        {
            // Out of memory even for a message: the request ends unreported rather than let an
            // exception out of this thread (which would end the host).
            if (request.id > finishedRequest_.load())
                finishedRequest_.store (request.id);
        }
    }
}

std::shared_ptr<const engine::Model> SonotypeProcessor::readModelFile (const juce::File& file)
{
    return engine::Model::load (file.getFullPathName().toStdString());
}

void SonotypeProcessor::finishModelLoad (uint64_t request, const juce::File& file, LoadKind kind)
{
    if (request != latestRequest_.load())
        return; // superseded before it started
    juce::String error;
    std::shared_ptr<const engine::Model> model;
    try
    {
        if (! file.existsAsFile())
            throw std::runtime_error ("no such file");
        model = readModelFile (file);
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
                swapModel (std::move (model), { file.getFileName(), file, false }); // throws before changing anything
        }
        catch (const std::exception& e)
        {
            error = juce::String::fromUTF8 (e.what());
        }
        try
        {
            if (error.isNotEmpty() && kind == LoadKind::restore && ! modelDescription().builtin)
                swapModel (resources::builtinModel(), builtinDescription());
        }
        catch (const std::exception&)
        {
            // The running model keeps running; the status below says what failed.
        }
        {
            const std::lock_guard<std::mutex> lock (statusMutex_);
            requested_ = model_;
        }
        if (error.isEmpty())
            setStatus (kind == LoadKind::restore ? juce::String() : "Loaded " + file.getFileName(), false);
        else if (kind == LoadKind::user)
            setStatus ("Could not load " + file.getFullPathName() + ": " + error + ". The running model keeps running.", true);
        else
            setStatus ("The session's model " + file.getFullPathName() + " could not be loaded (" + error + "); using the built-in model instead.", true);
    }
    if (request > finishedRequest_.load())
        finishedRequest_.store (request);
}

void SonotypeProcessor::useBuiltinModel()
{
    const std::lock_guard<std::mutex> swap (swapMutex_);
    const auto request = latestRequest_.fetch_add (1) + 1; // supersedes any load under way
    {
        const std::lock_guard<std::mutex> lock (loaderMutex_);
        nextLoad_.reset();
    }
    swapModel (resources::builtinModel(), builtinDescription());
    {
        const std::lock_guard<std::mutex> lock (statusMutex_);
        requested_ = model_;
    }
    setStatus ("Using the built-in model", false);
    if (request > finishedRequest_.load())
        finishedRequest_.store (request);
}

void SonotypeProcessor::setStatus (juce::String message, bool isError)
{
    const std::lock_guard<std::mutex> lock (statusMutex_);
    status_ = std::move (message);
    statusIsError_ = isError;
}

juce::String SonotypeProcessor::statusMessage() const
{
    const std::lock_guard<std::mutex> lock (statusMutex_);
    return status_;
}

bool SonotypeProcessor::statusIsError() const
{
    const std::lock_guard<std::mutex> lock (statusMutex_);
    return statusIsError_;
}

void SonotypeProcessor::clearStatus()
{
    setStatus ({}, false);
}

void SonotypeProcessor::setClassEnabled (const juce::String& label, bool enabled)
{
    {
        const std::lock_guard<std::mutex> lock (filterMutex_);
        if (enabled)
            disabledClasses_.erase (label);
        else
            disabledClasses_.insert (label);
    }
    filterVersion_.fetch_add (1, std::memory_order_acq_rel);
}

bool SonotypeProcessor::isClassEnabled (const juce::String& label) const
{
    const std::lock_guard<std::mutex> lock (filterMutex_);
    return disabledClasses_.count (label) == 0;
}

std::vector<bool> SonotypeProcessor::enabledMask (const std::vector<std::string>& labels) const
{
    const std::lock_guard<std::mutex> lock (filterMutex_);
    std::vector<bool> mask (labels.size(), true);
    for (std::size_t c = 0; c < labels.size(); ++c)
        mask[c] = disabledClasses_.count (juce::String (labels[c])) == 0;
    return mask;
}

// ----- state ------------------------------------------------------------------------------------

void SonotypeProcessor::getStateInformation (juce::MemoryBlock& destData)
{
    auto state = parameters.copyState();
    ModelDescription model;
    {
        const std::lock_guard<std::mutex> lock (statusMutex_);
        model = requested_; // the running model, or the one being loaded (the user's choice)
    }
    state.setProperty (kModelPath, model.builtin ? juce::String() : model.file.getFullPathName(), nullptr);
    juce::StringArray disabled;
    {
        const std::lock_guard<std::mutex> lock (filterMutex_);
        for (const auto& label : disabledClasses_)
            disabled.add (label);
    }
    state.setProperty (kDisabledClasses, disabled.joinIntoString ("\n"), nullptr);
    const auto osc = osc_.target();
    state.setProperty (kOscEnabled, osc.enabled, nullptr);
    state.setProperty (kOscHost, osc.host, nullptr);
    state.setProperty (kOscPort, osc.port, nullptr);
    if (const auto xml = state.createXml())
        copyXmlToBinary (*xml, destData);
}

void SonotypeProcessor::setStateInformation (const void* data, int sizeInBytes)
{
    // Never fails to load a session: what cannot be restored is reported and left at its default.
    const auto xml = xmlFromState (data, sizeInBytes);
    if (xml == nullptr || ! xml->hasTagName (parameters.state.getType()))
    {
        setStatus ("The saved state could not be read; using defaults", true);
        return;
    }
    const auto state = juce::ValueTree::fromXml (*xml);
    parameters.replaceState (state);
    {
        const std::lock_guard<std::mutex> lock (filterMutex_);
        disabledClasses_.clear();
        for (const auto& label : juce::StringArray::fromLines (state.getProperty (kDisabledClasses).toString()))
            if (label.isNotEmpty())
                disabledClasses_.insert (label);
    }
    filterVersion_.fetch_add (1, std::memory_order_acq_rel);

    OscOutput::Target osc;
    osc.enabled = state.getProperty (kOscEnabled, false);
    osc.host = state.getProperty (kOscHost, "127.0.0.1").toString();
    osc.port = state.getProperty (kOscPort, 9000);
    const auto oscError = osc_.setTarget (osc);

    const auto path = state.getProperty (kModelPath).toString();
    ModelDescription wanted;
    {
        const std::lock_guard<std::mutex> lock (statusMutex_);
        wanted = requested_;
    }
    if (path.isEmpty())
    {
        if (! wanted.builtin || isLoadingModel())
            useBuiltinModel();
        clearStatus();
    }
    else if (wanted.builtin || wanted.file != juce::File (path))
        requestModelLoad (juce::File (path), LoadKind::restore); // off the message thread, as a user's load
    else
        clearStatus();
    if (oscError.isNotEmpty())
        setStatus (oscError, true);
    applyAnalysisParameters();
}

} // namespace sonotype::plugin
