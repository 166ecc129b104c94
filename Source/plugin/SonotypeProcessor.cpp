#include "plugin/SonotypeProcessor.h"

#include "plugin/PluginParameters.h"
#include "plugin/SavedStateText.h"
#include "resources/BuiltinModel.h"

#include <algorithm>
#include <utility>

namespace sonotype::plugin
{
namespace
{
    /** A seconds parameter (the update interval, the smoothing) as the number its 10 ms steps mean:
        the float the host or a slider leaves (0.25 may arrive as 0.2499999851) would put every
        window's time a hair off the grid, and exports would say 13.249999 where `classify` says
        13.250000 for the same hop. */
    double secondsOnGrid (float seconds)
    {
        return std::round (static_cast<double> (seconds) * 100.0) / 100.0;
    }

    const juce::Identifier kStateType ("SonotypeState");
    const juce::Identifier kModelPath ("modelPath");
    const juce::Identifier kDisabledClasses ("disabledClasses");
    const juce::Identifier kOscEnabled ("oscEnabled");
    const juce::Identifier kOscHost ("oscHost");
    const juce::Identifier kOscPort ("oscPort");
    const juce::Identifier kTaught ("taught");
    const juce::Identifier kTaughtEnabled ("taughtEnabled");

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
        if (xml == nullptr || ! plain (*xml, "oscEnabled") || ! plain (*xml, "oscPort") || ! plain (*xml, "taughtEnabled"))
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
    : juce::AudioProcessor (defaultBuses()), parameters (*this, nullptr, kStateType, createParameterLayout()),
      midi_ (*parameters.getRawParameterValue (ParameterIds::midiOut), *parameters.getRawParameterValue (ParameterIds::threshold),
             *parameters.getRawParameterValue (ParameterIds::baseNote)),
      hits_ (parameters),
      service_ ({ [this] (const juce::File& file) { return readModelFile (file); },
                  [this] (std::shared_ptr<const engine::Model> model) {
                      // Under the parameters' mutex, as the timer applies them: a hop or smoothing
                      // the timer applies meanwhile is not overwritten by the values read here.
                      const std::lock_guard<std::mutex> lock (parameterMutex_);
                      runtime_->reconfigure (std::move (model), appliedHop_, appliedSmoothing_); // throws before changing anything
                  },
                  [this] (StatusCause cause, juce::String message, StatusKind kind) { setStatus (cause, std::move (message), kind); } }),
      teach_ (service_, [this] (juce::String message, bool isError) {
          setStatus (StatusCause::teaching, std::move (message), isError ? StatusKind::error : StatusKind::info);
      })
{
    hop_ = parameters.getRawParameterValue (ParameterIds::hop);
    smoothing_ = parameters.getRawParameterValue (ParameterIds::smoothing);

    runtime::RuntimeOptions options;
    options.hopSeconds = appliedHop_ = secondsOnGrid (hop_->load());
    options.smoothingSeconds = appliedSmoothing_ = secondsOnGrid (smoothing_->load());
    options.historySize = 1024;
    runtime_ = std::make_unique<runtime::StreamingRuntime> (resources::builtinModel(), options);
    runtime_->setResultListener ([this] (const runtime::WindowResult& result, const runtime::AnalysisInfo& info) { onResult (result, info); });
    runtime_->setClassSelector ([this] (const runtime::AnalysisInfo& info) -> const std::vector<bool>& { return classes_.workerMask (info); });
    runtime_->setHitListener ([this] (const runtime::HitResult& hit, int64_t onsetSample, const runtime::AnalysisInfo& info) {
        hits_.queueHit (hit, onsetSample, classes_.workerMask (info), info);
    });
    startTimerHz (10);
}

timeline::ExportSettings SonotypeProcessor::exportSettings (const std::string& source, const std::vector<std::string>& labels) const
{
    timeline::ExportSettings settings;
    settings.source = source;
    settings.baseNote = juce::roundToInt (parameters.getRawParameterValue (ParameterIds::baseNote)->load());
    if (const auto info = runtime_->info(); info != nullptr && info->model != nullptr && info->labels == labels)
        settings.chosenNotes = info->model->info().classNotes;
    return settings;
}

SonotypeProcessor::~SonotypeProcessor()
{
    stopTimer();
    service_.stop(); // whatever is loading or learning is no longer wanted; a command under way ends first
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
            clearStatus (StatusCause::sampleRate);
    }
    catch (const std::exception& e)
    {
        // A rate the front end cannot work at (a validator tries 1.2 MHz): the runtime stays
        // stopped, the audio still passes through untouched, and the GUI says why.
        analysisRateRefused_ = true;
        setStatus (StatusCause::sampleRate,
                   "No analysis at " + juce::String (sampleRate, 1) + " Hz (" + juce::String::fromUTF8 (e.what())
                       + "); the audio passes through untouched.",
                   StatusKind::error);
    }
    player_.prepare (sampleRate);
    midi_.reset(); // stale MIDI from the old stream goes; a sounding note is closed in the next block
    hits_.prepare (sampleRate, std::max (getTotalNumInputChannels(), getTotalNumOutputChannels()));
    {
        const std::lock_guard<std::mutex> lock (parameterMutex_);
        applyHitParameters (sampleRate, true); // the latency at this rate
    }
    wasPlaying_ = false;
}

void SonotypeProcessor::releaseResources()
{
    runtime_->stop();
}

bool SonotypeProcessor::isBusesLayoutSupported (const BusesLayout& layouts) const
{
    // An analyzer passes its input through untouched: as many outputs as inputs, 1 to 8 channels.
    const auto& input = layouts.getMainInputChannelSet();
    const auto& output = layouts.getMainOutputChannelSet();
    return ! input.isDisabled() && input == output && input.size() >= 1 && input.size() <= 8;
}

void SonotypeProcessor::processBlock (juce::AudioBuffer<float>& buffer, juce::MidiBuffer& midi)
{
    // One chain, the plugin's and the standalone app's: source -> input gate -> peak -> analysis
    // -> the per-hit mode's delay -> MIDI.
    const juce::ScopedNoDenormals noDenormals;
    const int numChannels = std::min (getTotalNumInputChannels(), buffer.getNumChannels());
    const int numSamples = buffer.getNumSamples();
    const bool playingFile = player_.render (buffer, numSamples); // a playing file replaces the input (standalone app)
    const auto route = gate_.route (wrapperType == wrapperType_Standalone && ! playingFile);

    // Offline (export, bounce): every window is analyzed, and we wait for it, so that each
    // detection lands on its own sample whatever the block sizes. Real time never waits.
    const bool offline = isNonRealtime();
    if (route.analysed)
    {
        meterPeak (buffer, numChannels, numSamples);
        hits_.listen (buffer, numChannels, numSamples); // the live per-hit path, here on the audio thread
        runtime_->setNonRealtime (offline);
        runtime_->push (buffer.getArrayOfReadPointers(), numChannels, numSamples);
        recorder_.write (buffer.getArrayOfReadPointers(), numChannels, numSamples);
        if (offline)
            runtime_->waitUntilAnalyzed();
    }
    if (route.silenced)
        buffer.clear();
    // Per-hit mode: the pass-through by the latency reported, after the analysis took the input
    // (silence in the app keeps the delay line in step).
    hits_.delayAudio (buffer, numChannels, numSamples);
    writeNotes (midi, numSamples, route.analysed, transportStopped() || route.analysisStopped, offline);
}

void SonotypeProcessor::processBlockBypassed (juce::AudioBuffer<float>& buffer, juce::MidiBuffer& midi)
{
    // Bypassed: audio passes through untouched (no analysis; in per-hit mode delayed by the latency
    // reported, which the host still compensates), and no note is left hanging.
    hits_.delayAudio (buffer, std::min (getTotalNumInputChannels(), buffer.getNumChannels()), buffer.getNumSamples());
    writeNotes (midi, 0, false, true, false);
}

void SonotypeProcessor::meterPeak (const juce::AudioBuffer<float>& buffer, int numChannels, int numSamples) noexcept
{
    float peak = 0.0f;
    for (int c = 0; c < numChannels; ++c)
    {
        const auto range = juce::FloatVectorOperations::findMinAndMax (buffer.getReadPointer (c), numSamples);
        peak = std::max ({ peak, -range.getStart(), range.getEnd() });
    }
    if (std::isfinite (peak) && peak > inputPeak_.load (std::memory_order_relaxed))
        inputPeak_.store (peak, std::memory_order_relaxed); // a lost race only loses a meter peak
}

bool SonotypeProcessor::transportStopped() noexcept
{
    bool stopped = false;
    if (auto* host = getPlayHead())
        if (const auto position = host->getPosition())
        {
            const bool playing = position->getIsPlaying();
            stopped = wasPlaying_ && ! playing;
            wasPlaying_ = playing;
        }
    return stopped;
}

void SonotypeProcessor::writeNotes (juce::MidiBuffer& midi, int numSamples, bool analysed, bool stopped, bool offline) noexcept
{
    // The windows' notes, or the hits' (per-hit mode); `stopped` ends the ones sounding. The hits'
    // stream is the samples analysed: it moves on only with them, and drops its queue without them.
    midi.clear();
    const bool perHit = hits_.isOn();
    midi_.writeBlock (midi, numSamples, stopped || perHit, offline);
    hits_.writeBlock (midi, analysed ? numSamples : 0, stopped || ! analysed || ! perHit);
}

// ----- worker thread ----------------------------------------------------------------------------

void SonotypeProcessor::onResult (const runtime::WindowResult& result, const runtime::AnalysisInfo& info)
{
    const auto& enabled = classes_.workerMask (info);
    if (! hits_.isOn()) // (per-hit mode: the hits' notes instead)
        midi_.queueEvents (result, info, enabled);
    const int numClasses = static_cast<int> (result.probabilities.size());
    osc_.send (result, info, runtime::topEnabledClass (result.probabilities.data(), numClasses, enabled), enabled);
    history_.add (result, info, detectionThreshold());
}

// ----- message thread ---------------------------------------------------------------------------

void SonotypeProcessor::timerCallback()
{
    applyAnalysisParameters();
    updateFileAnalysis();
}

float SonotypeProcessor::detectionThreshold() const noexcept
{
    return parameters.getRawParameterValue (ParameterIds::threshold)->load() / 100.0f;
}

FileTimelines::Settings SonotypeProcessor::fileAnalysisSettings() const
{
    // The model the live analysis runs and its classes in play; the hop, smoothing and segment rules
    // are the file analysis's own defaults, the command line's (the live controls are for the live
    // analysis): a file gives the same timeline here as in `sonotype classify --segments`, or, with
    // per-hit MIDI on, the same hits as `classify --onsets`.
    const auto info = runtime_->info();
    FileTimelines::Settings settings;
    settings.model = info->model;
    const auto mask = classes_.mask (info->labels); // the classes in play, as the live analysis has them
    if (std::find (mask.begin(), mask.end(), false) != mask.end() && std::find (mask.begin(), mask.end(), true) != mask.end())
        for (std::size_t c = 0; c < mask.size(); ++c)
            if (mask[c])
                settings.analysis.classes.push_back (info->labels[c]);
    if (hits_.isOn() && settings.model != nullptr)
    {
        // Per-hit MIDI: the files' hits, as `classify --onsets [--response live]` finds them with the
        // onset settings on screen: Live where it is chosen and the model has a kit, else the model's clip.
        const auto exact = runtime::hitSettingsFor (*settings.model, hits_.onsetSettings());
        settings.hits = timeline::HitAnalysisSettings { exact.onsets, exact.clipSeconds, exact.preRollSeconds, settings.analysis.classes };
        if (settings.model != fileKitModel_)
        {
            fileKitModel_ = settings.model;
            try
            {
                fileModelHasKit_ = runtime::liveHitKitOf (*settings.model).has_value();
            }
            catch (const std::exception&)
            {
                fileModelHasKit_ = false; // (a broken kit: the exact hits, and the status says why)
            }
        }
        settings.hits->live = hits_.response() == HitResponse::live && fileModelHasKit_;
    }
    return settings;
}

void SonotypeProcessor::analyzeFiles (const juce::Array<juce::File>& files)
{
    reportedFailures_.clear();
    reportedVersion_ = 0;
    fileErrorIsOld_ = true; // what the status says of files is of those opened before
    newFilesFrom_ = 0;
    files_.analyze (files, fileAnalysisSettings());
}

void SonotypeProcessor::addFilesToAnalyze (const juce::Array<juce::File>& files)
{
    // Only a file added now takes an earlier file's error down (the ones analysed before are done
    // already and say nothing new).
    fileErrorIsOld_ = true;
    newFilesFrom_ = files_.numFiles();
    files_.add (files, fileAnalysisSettings());
}

void SonotypeProcessor::updateFileAnalysis()
{
    if (files_.numFiles() == 0)
        return;
    auto settings = fileAnalysisSettings();
    const auto current = files_.settings();
    if (settings.analyzesDifferently (current))
        files_.reanalyze (std::move (settings)); // a new model or other classes in play: another timeline
    // A file that cannot be analysed is said once, in the message channel (the editor's message
    // strip); the first file of a later open that is analysed takes the message down. Files opened
    // together keep it: the user has not yet moved on from them.
    const auto version = files_.version();
    if (version == reportedVersion_)
        return;
    reportedVersion_ = version;
    for (std::size_t i = 0; i < files_.numFiles(); ++i)
    {
        const auto status = files_.status (i);
        const auto key = status.file.getFullPathName();
        if (status.state == FileState::failed && ! reportedFailures_.contains (key))
        {
            reportedFailures_.add (key);
            fileErrorIsOld_ = false;
            // The player reads files as the analysis does: its "Cannot play" of the file just opened
            // says the same as this message, which stays until the next file.
            clearStatus (StatusCause::playback);
            setStatus (StatusCause::fileAnalysis, "Cannot analyze " + status.file.getFileName() + ": " + status.error, StatusKind::error);
        }
        else if (status.state == FileState::done && i >= newFilesFrom_ && std::exchange (fileErrorIsOld_, false))
            clearStatus (StatusCause::fileAnalysis);
    }
}

void SonotypeProcessor::applyHitParameters (double sampleRate, bool force)
{
    // Live: the model's kit on the audio thread (HitNotes::listen), where the model has one;
    // otherwise (Exact chosen, or a model not taught from hits) the worker's clips.
    const auto model = runtime_->info()->model;
    if (model != liveModel_)
    {
        liveModel_ = model;
        try
        {
            liveClassifier_ = runtime::liveHitClassifierFor (*model);
            modelHasKit_.store (liveClassifier_ != nullptr, std::memory_order_relaxed);
            clearStatus (StatusCause::hitKit); // (a model without a kit is no error: the exact path runs)
        }
        catch (const std::exception& e)
        {
            liveClassifier_ = nullptr;
            modelHasKit_.store (false, std::memory_order_relaxed);
            setStatus (StatusCause::hitKit, "This model's live hit kit cannot be used: " + juce::String::fromUTF8 (e.what()), StatusKind::error);
        }
    }
    const auto classifier = hits_.isOn() && hits_.response() == HitResponse::live ? liveClassifier_ : nullptr;
    std::optional<dsp::OnsetSettings> wanted;
    if (hits_.isOn())
        wanted = hits_.onsetSettings();
    const auto exact = classifier == nullptr ? wanted : std::nullopt;
    if (exact != appliedOnsets_)
    {
        appliedOnsets_ = exact;
        try
        {
            runtime_->setHitAnalysis (exact);
            clearStatus (StatusCause::hitSettings);
        }
        catch (const std::exception& e)
        {
            setStatus (StatusCause::hitSettings, "Could not apply the onset settings: " + juce::String::fromUTF8 (e.what()), StatusKind::error);
        }
    }
    const LiveKey liveKey { classifier, wanted.value_or (dsp::OnsetSettings {}), sampleRate };
    if (hits_.isPrepared() && (force || ! (liveKey == appliedLive_)))
    {
        appliedLive_ = liveKey;
        std::unique_ptr<runtime::LiveHits> live;
        if (classifier != nullptr && sampleRate > 0.0)
            try
            {
                live = std::make_unique<runtime::LiveHits> (classifier, sampleRate, *wanted, classifier->kit().afterSeconds);
            }
            catch (const std::exception& e)
            {
                setStatus (StatusCause::hitSettings, "Could not start the live hits: " + juce::String::fromUTF8 (e.what()), StatusKind::error);
            }
        hits_.setLive (std::move (live), model);
    }
    hits_.setClassesInPlay (classes_.mask (runtime_->info()->labels));
    // The latency: the live path's, or the running model's hits at this rate (none when off).
    int64_t latency = 0;
    if (const auto* live = hits_.live())
        latency = live->latencySamples();
    else if (wanted.has_value() && sampleRate > 0.0)
        try
        {
            latency = runtime::HitClassifier::latencySamples (*model, sampleRate, runtime::hitSettingsFor (*model, *wanted));
        }
        catch (const std::exception&)
        {
            // A rate the detector cannot work at: the analysis says why; nothing to wait for.
        }
    if (! hits_.isPrepared() || (! force && latency == appliedHitLatency_))
        return; // (before prepareToPlay: it sets the latency)
    appliedHitLatency_ = latency;
    setLatencySamples (hits_.setLatency (latency));
    const auto shortfall = hits_.latencyShortfall();
    if (std::exchange (hitShortfallShown_, shortfall > 0) && shortfall == 0)
        clearStatus (StatusCause::hitLatency); // the message below is out of date
    if (shortfall > 0)
        setStatus (StatusCause::hitLatency,
                   "Per-hit MIDI: this model's hits are known " + juce::String (static_cast<double> (latency) / sampleRate, 2)
                       + " s after their onset, more than the plugin delays its audio (" + juce::String (HitNotes::kMaxLatencySeconds, 1)
                       + " s): their notes land " + juce::String (static_cast<double> (shortfall) / sampleRate * 1000.0, 0) + " ms late in a bounce.",
                   StatusKind::error);
}

void SonotypeProcessor::applyAnalysisParameters()
{
    const std::lock_guard<std::mutex> lock (parameterMutex_);
    applyHitParameters (getSampleRate(), false);
    const double hop = secondsOnGrid (hop_->load()), smoothing = secondsOnGrid (smoothing_->load());
    if (hop == appliedHop_ && smoothing == appliedSmoothing_)
        return;
    try
    {
        runtime_->reconfigure (nullptr, hop, smoothing);
        appliedHop_ = hop;
        appliedSmoothing_ = smoothing;
        clearStatus (StatusCause::analysisSettings);
    }
    catch (const std::exception& e)
    {
        setStatus (StatusCause::analysisSettings, "Could not apply the analysis settings: " + juce::String::fromUTF8 (e.what()), StatusKind::error);
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
        const auto mask = classes_.mask (snapshot.info->labels);
        snapshot.topClass = runtime::topEnabledClass (snapshot.result.probabilities.data(),
                                                      static_cast<int> (snapshot.result.probabilities.size()), mask);
    }
    snapshot.hits = hits_.status (*snapshot.info->model, getSampleRate());
    if (! snapshot.hits.live)
        snapshot.hits.hits = snapshot.stats.hits; // (the live path counts its own)
    snapshot.hits.kit = modelHasKit_.load (std::memory_order_relaxed);
    return snapshot;
}

ModelDescription SonotypeProcessor::modelDescription() const
{
    auto description = service_.running();
    if (service_.isRunningTaught())
        description.name += " + taught";
    return description;
}

std::shared_ptr<const engine::Model> SonotypeProcessor::readModelFile (const juce::File& file)
{
    return engine::Model::load (file.getFullPathName().toStdString());
}

void SonotypeProcessor::setStatus (juce::String message, bool isError)
{
    status_.post (StatusCause::general, std::move (message), isError ? StatusKind::error : StatusKind::info);
}

// ----- state ------------------------------------------------------------------------------------

void SonotypeProcessor::getStateInformation (juce::MemoryBlock& destData)
{
    auto state = parameters.copyState();
    const auto model = service_.requested(); // the running model, or the one being loaded (the user's choice)
    state.setProperty (kModelPath, model.builtin ? juce::String() : model.file.getFullPathName(), nullptr);
    state.setProperty (kDisabledClasses, classes_.disabledLabels().joinIntoString ("\n"), nullptr);
    const auto osc = osc_.target();
    state.setProperty (kOscEnabled, osc.enabled, nullptr);
    state.setProperty (kOscHost, osc.host, nullptr);
    state.setProperty (kOscPort, osc.port, nullptr);
    const auto taught = teach_.examples();
    if (! taught.classes.empty())
    {
        state.setProperty (kTaught, juce::String::fromUTF8 (teach::encodeExampleSet (taught).c_str()), nullptr);
        state.setProperty (kTaughtEnabled, teach_.isEnabled(), nullptr);
    }
    if (const auto xml = state.createXml())
        copyXmlToBinary (*xml, destData);
}

void SonotypeProcessor::setStateInformation (const void* data, int sizeInBytes)
{
    // Never fails to load a session: what cannot be restored is reported and left at its default.
    const auto xml = xmlFromState (data, sizeInBytes);
    if (xml == nullptr || ! xml->hasTagName (parameters.state.getType()))
    {
        setStatus (StatusCause::savedState, "The saved state could not be read; using defaults", StatusKind::error);
        return;
    }
    clearStatus (StatusCause::savedState);
    const auto state = juce::ValueTree::fromXml (*xml);
    parameters.replaceState (state);
    classes_.setDisabledLabels (juce::StringArray::fromLines (state.getProperty (kDisabledClasses).toString()));

    OscOutput::Target osc;
    osc.enabled = state.getProperty (kOscEnabled, false);
    osc.host = state.getProperty (kOscHost, "127.0.0.1").toString();
    osc.port = state.getProperty (kOscPort, 9000);
    const auto oscError = osc_.setTarget (osc);

    // The taught classes: learned again on the session's model once it runs (and the user told
    // if that is not the model they were taught on).
    juce::String taughtError;
    teach::ExampleSet taught;
    if (state.hasProperty (kTaught))
        try
        {
            taught = teach::decodeExampleSet (state.getProperty (kTaught).toString().toStdString());
        }
        catch (const std::exception& e)
        {
            taughtError = "The session's taught classes could not be read (" + juce::String::fromUTF8 (e.what()) + "); they are left out.";
        }
    const bool taughtEnabled = ! state.hasProperty (kTaughtEnabled) || static_cast<bool> (state.getProperty (kTaughtEnabled));

    // The session's model first, then its taught classes: the service runs its commands in
    // order, so they are learned on the session's model once it runs, not on the one running now.
    const auto path = state.getProperty (kModelPath).toString();
    const auto wanted = service_.requested();
    if (path.isEmpty())
    {
        if (! wanted.builtin || isLoadingModel())
            service_.restore ({}); // the built-in model, silently
        clearStatus (StatusCause::model);
    }
    else if (wanted.builtin || wanted.file != juce::File (path))
        service_.restore (juce::File (path)); // off the message thread, as a user's load
    else
        clearStatus (StatusCause::model);
    teach_.restore (std::move (taught), taughtEnabled);
    setStatus (StatusCause::osc, oscError, StatusKind::error); // (none: an earlier OSC error is out of date)
    setStatus (StatusCause::learning, taughtError, StatusKind::error);
    applyAnalysisParameters();
}

} // namespace sonotype::plugin
