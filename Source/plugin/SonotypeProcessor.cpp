#include "plugin/SonotypeProcessor.h"

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

    /** juce::AudioProcessor::getXmlFromBinary, refusing text that is not valid UTF-8: JUCE 7's XML
        parser reads past the end of its string on a malformed multi-byte sequence (a heap overflow
        found by Tests/fuzz/PluginStateFuzzer.cpp). */
    std::unique_ptr<juce::XmlElement> xmlFromState (const void* data, int sizeInBytes)
    {
        constexpr juce::uint32 kMagicXmlNumber = 0x21324356; // as copyXmlToBinary writes it
        if (data == nullptr || sizeInBytes <= 8 || juce::ByteOrder::littleEndianInt (data) != kMagicXmlNumber)
            return {};
        const auto* text = static_cast<const char*> (data) + 8;
        const auto length = static_cast<int> (std::min<juce::uint32> (juce::ByteOrder::littleEndianInt (static_cast<const char*> (data) + 4),
                                                                      static_cast<juce::uint32> (sizeInBytes - 8)));
        if (length <= 0 || ! juce::CharPointer_UTF8::isValidString (text, length))
            return {};
        return juce::parseXML (juce::String::fromUTF8 (text, length));
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
    model_ = builtinDescription();
    startTimerHz (10);
}

SonotypeProcessor::~SonotypeProcessor()
{
    stopTimer();
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
        setStatus ("No analysis at " + juce::String (sampleRate, 1) + " Hz (" + juce::String (e.what())
                       + "); the audio passes through untouched.",
                   true);
    }
    player_.prepare (sampleRate);
    activeNote_ = -1;
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

    runtime_->push (buffer.getArrayOfReadPointers(), numChannels, numSamples);

    bool transportStopped = false;
    if (auto* host = getPlayHead())
        if (const auto position = host->getPosition())
        {
            const bool playing = position->getIsPlaying();
            transportStopped = wasPlaying_ && ! playing;
            wasPlaying_ = playing;
        }
    midi.clear();
    sendMidi (midi, transportStopped);
}

void SonotypeProcessor::processBlockBypassed (juce::AudioBuffer<float>&, juce::MidiBuffer& midi)
{
    // Bypassed: audio passes through untouched (no analysis), and no note is left hanging.
    midi.clear();
    sendMidi (midi, true);
}

void SonotypeProcessor::sendMidi (juce::MidiBuffer& midi, bool stopEverything) noexcept
{
    const bool enabled = midiOut_->load (std::memory_order_relaxed) >= 0.5f;
    MidiEvent event;
    while (midiQueue_.read (&event, 1) == 1)
    {
        if (! enabled || stopEverything)
            continue;
        if (event.noteOn)
        {
            if (activeNote_ >= 0)
                midi.addEvent (juce::MidiMessage::noteOff (1, activeNote_), 0);
            midi.addEvent (juce::MidiMessage::noteOn (1, event.note, static_cast<juce::uint8> (event.velocity)), 0);
            activeNote_ = event.note;
        }
        else if (event.note == activeNote_)
        {
            midi.addEvent (juce::MidiMessage::noteOff (1, activeNote_), 0);
            activeNote_ = -1;
        }
    }
    if ((! enabled || stopEverything) && activeNote_ >= 0)
    {
        midi.addEvent (juce::MidiMessage::noteOff (1, activeNote_), 0);
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
    for (int i = 0; i < events.count; ++i)
    {
        const auto& detection = events.items[i];
        const int note = base + detection.classIndex;
        if (note < 0 || note > 127)
            continue;
        const MidiEvent event { detection.kind == runtime::Detection::Kind::start, note,
                                juce::jlimit (1, 127, juce::roundToInt (detection.confidence * 127.0f)) };
        midiQueue_.write (&event, 1);
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
        setStatus ("Could not apply the analysis settings: " + juce::String (e.what()), true);
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

bool SonotypeProcessor::loadModelFile (const juce::File& file)
{
    try
    {
        if (! file.existsAsFile())
            throw std::runtime_error ("no such file");
        swapModel (engine::Model::load (file.getFullPathName().toStdString()), { file.getFileName(), file, false });
        setStatus ("Loaded " + file.getFileName(), false);
        return true;
    }
    catch (const std::exception& e)
    {
        setStatus ("Could not load " + file.getFullPathName() + ": " + juce::String (e.what()) + ". The running model keeps running.", true);
        return false;
    }
}

void SonotypeProcessor::useBuiltinModel()
{
    swapModel (resources::builtinModel(), builtinDescription());
    setStatus ("Using the built-in model", false);
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
    const auto model = modelDescription();
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
    const auto current = modelDescription();
    if (path.isEmpty())
    {
        if (! current.builtin)
            useBuiltinModel();
        clearStatus();
    }
    else if (current.builtin || current.file != juce::File (path))
    {
        const juce::File file (path);
        if (loadModelFile (file))
            clearStatus();
        else
        {
            const auto reason = statusMessage();
            if (! current.builtin)
                useBuiltinModel();
            setStatus ("The session's model " + path + " could not be loaded (" + reason.fromFirstOccurrenceOf (": ", false, false).upToLastOccurrenceOf (".", false, false)
                           + "); using the built-in model instead.",
                       true);
        }
    }
    if (oscError.isNotEmpty())
        setStatus (oscError, true);
    applyAnalysisParameters();
}

} // namespace sonotype::plugin
