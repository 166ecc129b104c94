#include "gui/SonotypeEditor.h"

#include "plugin/PluginParameters.h"

namespace sonotype::gui
{

namespace
{
    bool isAudioFile (const juce::File& file)
    {
        return file.hasFileExtension ("wav;aif;aiff;flac;ogg");
    }
} // namespace

SonotypeEditor::SonotypeEditor (plugin::SonotypeProcessor& owner, std::optional<bool> withFilePlayer)
    : juce::AudioProcessorEditor (owner), processor_ (owner), controls_ (owner)
{
    if (withFilePlayer.value_or (owner.wrapperType == juce::AudioProcessor::wrapperType_Standalone))
    {
        transport_ = std::make_unique<TransportBar> (owner.filePlayer());
        transport_->onStatus = [this] (const juce::String& message, bool isError) { processor_.setStatus (message, isError); };
        addAndMakeVisible (*transport_);
    }
    setLookAndFeel (&lookAndFeel_);
    for (auto* component : std::initializer_list<juce::Component*> { &topClass_, &bars_, &history_, &meter_, &info_, &controls_, &loadButton_, &builtinButton_ })
        addAndMakeVisible (component);
    addChildComponent (banner_);

    bars_.onToggle = [this] (const juce::String& label, bool enabled) {
        processor_.setClassEnabled (label, enabled);
        refresh();
    };
    banner_.onDismiss = [this] {
        processor_.clearStatus();
        refresh();
    };
    controls_.onOscError = [this] (const juce::String& error) { processor_.setStatus (error, true); };
    loadButton_.onClick = [this] { chooseModelFile(); };
    loadButton_.setTooltip ("Load a .safetensors model exported with sonotype.export (or drop one here)");
    builtinButton_.onClick = [this] {
        processor_.useBuiltinModel();
        refresh();
    };

    setResizable (true, true);
    setResizeLimits (600, 400, 3840, 2560);
    getConstrainer()->setFixedAspectRatio (static_cast<double> (kBaseWidth) / kBaseHeight);
    setSize (kBaseWidth, kBaseHeight);
    refresh();
    startTimerHz (30);
}

SonotypeEditor::~SonotypeEditor()
{
    stopTimer();
    setLookAndFeel (nullptr);
}

void SonotypeEditor::refresh()
{
    const auto snapshot = processor_.snapshot();
    const auto& info = *snapshot.info;
    DisplayState state;
    state.generation = info.generation;
    for (const auto& label : info.labels)
    {
        state.labels.emplace_back (label);
        state.enabled.push_back (processor_.isClassEnabled (label));
    }
    if (snapshot.hasResult)
    {
        state.probabilities = snapshot.result.probabilities;
        state.topClass = snapshot.topClass;
        state.stale = snapshot.stale;
        if (const auto* threshold = processor_.parameters.getRawParameterValue (plugin::ParameterIds::threshold))
            state.threshold = threshold->load() / 100.0f;
    }
    state_ = state;

    topClass_.update (state_);
    bars_.update (state_);
    const auto newest = processor_.analysis().history (static_cast<std::size_t> (std::ceil (HistoryView::kSpanSeconds / info.hopSeconds)) + 2);
    history_.update (newest, state_, info.hopSeconds);
    meter_.push (processor_.takeInputPeak(), 1.0 / 30.0);
    info_.update (processor_.modelDescription(), snapshot);
    if (transport_ != nullptr)
        transport_->refresh();
    const auto status = processor_.statusMessage();
    if (status != banner_.message())
    {
        banner_.show (status, processor_.statusIsError());
        resized();
    }
}

void SonotypeEditor::paint (juce::Graphics& g)
{
    g.fillAll (Colours::background);
    const float scale = static_cast<float> (getWidth()) / kBaseWidth;
    auto header = getLocalBounds().removeFromTop (juce::roundToInt (48 * scale)).reduced (juce::roundToInt (12 * scale), 0);
    g.setColour (Colours::accent);
    g.setFont (juce::Font (26.0f * scale, juce::Font::bold));
    g.drawText ("SONOTYPE", header, juce::Justification::centredLeft);
    g.setColour (Colours::dimText);
    g.setFont (14.0f * scale);
    g.drawText ("what it hears, live", header.withTrimmedLeft (juce::roundToInt (150 * scale)), juce::Justification::centredLeft);
    if (dragging_)
    {
        g.setColour (Colours::accent.withAlpha (0.2f));
        g.fillAll();
        g.setColour (Colours::accent);
        g.setFont (28.0f * scale);
        g.drawText (transport_ != nullptr ? "Drop a .safetensors model, or an audio file to play" : "Drop a .safetensors model to load it", getLocalBounds(),
                    juce::Justification::centred);
    }
}

void SonotypeEditor::resized()
{
    const float scale = static_cast<float> (getWidth()) / kBaseWidth;
    lookAndFeel_.setScale (scale);
    auto s = [scale] (float v) { return juce::roundToInt (v * scale); };
    auto area = getLocalBounds().reduced (s (12), 0);
    auto header = area.removeFromTop (s (48));
    builtinButton_.setBounds (header.removeFromRight (s (130)).reduced (0, s (9)));
    header.removeFromRight (s (8));
    loadButton_.setBounds (header.removeFromRight (s (130)).reduced (0, s (9)));
    if (banner_.isVisible())
    {
        // Over the views below (the layout does not move), as tall as the wrapped message needs.
        const auto bannerWidth = area.getWidth();
        banner_.setFontHeight (15.0f * scale);
        banner_.setBounds (area.getX(), area.getY(), bannerWidth, std::min (banner_.heightForWidth (bannerWidth, 15.0f * scale), area.getHeight() / 2));
        banner_.toFront (false);
    }
    area.removeFromBottom (s (12));
    auto bottom = area.removeFromBottom (s (110));
    if (transport_ != nullptr)
    {
        area.removeFromBottom (s (8));
        transport_->setBounds (area.removeFromBottom (s (36)));
    }
    info_.setBounds (bottom.removeFromRight (bottom.getWidth() * 40 / 100));
    bottom.removeFromRight (s (8));
    controls_.setBounds (bottom);
    area.removeFromBottom (s (8));

    meter_.setBounds (area.removeFromRight (s (14)));
    area.removeFromRight (s (8));
    auto right = area.removeFromRight (area.getWidth() * 36 / 100);
    bars_.setBounds (right);
    area.removeFromRight (s (8));
    topClass_.setBounds (area.removeFromTop (area.getHeight() * 30 / 100));
    area.removeFromTop (s (8));
    history_.setBounds (area);
}

bool SonotypeEditor::isInterestedInFileDrag (const juce::StringArray& files)
{
    const bool interested = files.size() == 1
                            && (juce::File (files[0]).hasFileExtension ("safetensors") || (transport_ != nullptr && isAudioFile (juce::File (files[0]))));
    if (interested != dragging_)
    {
        dragging_ = interested;
        repaint();
    }
    return interested;
}

void SonotypeEditor::filesDropped (const juce::StringArray& files, int, int)
{
    dragging_ = false;
    repaint();
    if (files.size() == 1 && transport_ != nullptr && isAudioFile (juce::File (files[0])))
        transport_->open (juce::File (files[0]));
    else if (files.size() == 1)
        processor_.loadModelFile (juce::File (files[0]));
    refresh();
}

void SonotypeEditor::fileDragExit (const juce::StringArray&)
{
    dragging_ = false;
    repaint();
}

void SonotypeEditor::chooseModelFile()
{
    chooser_ = std::make_unique<juce::FileChooser> ("Load a Sonotype model", juce::File(), "*.safetensors");
    chooser_->launchAsync (juce::FileBrowserComponent::openMode | juce::FileBrowserComponent::canSelectFiles, [this] (const juce::FileChooser& chooser) {
        const auto file = chooser.getResult();
        if (file != juce::File())
            processor_.loadModelFile (file);
        refresh();
    });
}

} // namespace sonotype::gui
