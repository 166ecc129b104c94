#include "gui/ControlsPanel.h"

#include "gui/Theme.h"
#include "plugin/PluginParameters.h"

namespace sonotype::gui
{

ControlsPanel::ControlsPanel (plugin::SonotypeProcessor& processor) : processor_ (processor)
{
    using namespace plugin;
    setUp (hop_, "Update every", ParameterIds::hop);
    setUp (smoothing_, "Smoothing", ParameterIds::smoothing);
    setUp (threshold_, "Threshold", ParameterIds::threshold);
    setUp (baseNote_, "Base note", ParameterIds::baseNote);
    midiAttachment_ = std::make_unique<juce::AudioProcessorValueTreeState::ButtonAttachment> (processor.parameters, ParameterIds::midiOut, midiOut_);
    addAndMakeVisible (midiOut_);
    setUp (onsetThreshold_, "Hit threshold", ParameterIds::onsetThreshold);
    setUp (onsetGap_, "Minimum gap", ParameterIds::onsetGap);
    setUp (onsetSilence_, "Silence below", ParameterIds::onsetSilence);
    hitModeAttachment_ = std::make_unique<juce::AudioProcessorValueTreeState::ButtonAttachment> (processor.parameters, ParameterIds::hitMode, hitMode_);
    hitMode_.setTooltip ("One note per hit (an onset detector finds them) instead of notes from the windows; the plugin then reports a latency "
                         "and delays its audio by it, so that in a bounce each note lands on its hit");
    addAndMakeVisible (hitMode_);
    hitResponse_.addItemList (processor.parameters.getParameter (ParameterIds::hitResponse)->getAllValueStrings(), 1);
    hitResponseAttachment_ = std::make_unique<juce::AudioProcessorValueTreeState::ComboBoxAttachment> (processor.parameters, ParameterIds::hitResponse, hitResponse_);
    hitResponse_.setTooltip ("Live: each hit found and named from its first 6 ms by the kit you taught from hits (a latency under 10 ms, to play "
                             "through). Exact: each hit named by the model from a longer clip (the latency of that clip, 0.1 s or more). A model "
                             "not taught from hits is always exact.");
    addAndMakeVisible (hitResponse_);
    hitMode_.onStateChange = [this] {
        // The onset detector's settings matter only in per-hit mode.
        for (auto* s : { &onsetThreshold_, &onsetGap_, &onsetSilence_ })
            for (auto* component : std::initializer_list<juce::Component*> { &s->label, &s->slider })
                component->setEnabled (hitMode_.getToggleState());
        hitResponse_.setEnabled (hitMode_.getToggleState());
    };
    hitMode_.onStateChange();

    const auto target = processor.osc().target();
    oscEnabled_.setToggleState (target.enabled, juce::dontSendNotification);
    oscHost_.setText (target.host, false);
    oscPort_.setText (juce::String (target.port), false);
    oscPort_.setInputRestrictions (5, "0123456789");
    oscHost_.setTooltip ("OSC host");
    oscPort_.setTooltip ("OSC port");
    oscEnabled_.setTooltip ("Send /sonotype/top <label> <confidence> and /sonotype/probs <floats...> each window");
    oscEnabled_.onClick = [this] { applyOsc(); };
    oscHost_.onReturnKey = oscHost_.onFocusLost = [this] { applyOsc(); };
    oscPort_.onReturnKey = oscPort_.onFocusLost = [this] { applyOsc(); };
    for (auto* component : std::initializer_list<juce::Component*> { &oscEnabled_, &oscHost_, &oscPort_ })
        addAndMakeVisible (component);
}

void ControlsPanel::setUp (LabelledSlider& s, const juce::String& name, const char* parameterId)
{
    s.label.setText (name, juce::dontSendNotification);
    s.label.setColour (juce::Label::textColourId, Colours::dimText);
    s.attachment = std::make_unique<juce::AudioProcessorValueTreeState::SliderAttachment> (processor_.parameters, parameterId, s.slider);
    addAndMakeVisible (s.label);
    addAndMakeVisible (s.slider);
}

void ControlsPanel::applyOsc()
{
    plugin::OscOutput::Target target;
    target.enabled = oscEnabled_.getToggleState();
    target.host = oscHost_.getText().trim();
    target.port = oscPort_.getText().getIntValue();
    const auto current = processor_.osc().target();
    if (current.enabled == target.enabled && current.host == target.host && current.port == target.port)
        return;
    const auto error = processor_.osc().setTarget (target);
    if (onOscResult)
        onOscResult (error);
}

void ControlsPanel::paint (juce::Graphics& g)
{
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (getLocalBounds().toFloat(), 6.0f);
}

void ControlsPanel::resized()
{
    auto area = getLocalBounds().reduced (8, 4);
    const int rowHeight = area.getHeight() / 5;
    auto place = [] (LabelledSlider& s, juce::Rectangle<int> cell) {
        s.label.setBounds (cell.removeFromLeft (cell.getWidth() * 40 / 100)); // the names in full at the larger label font
        s.slider.setTextBoxStyle (juce::Slider::TextBoxRight, false, cell.getWidth() * 36 / 100, cell.getHeight());
        s.slider.setBounds (cell);
    };
    auto row = area.removeFromTop (rowHeight);
    place (hop_, row.removeFromLeft (row.getWidth() / 2).reduced (2));
    place (smoothing_, row.reduced (2));
    row = area.removeFromTop (rowHeight);
    place (threshold_, row.removeFromLeft (row.getWidth() / 2).reduced (2));
    place (baseNote_, row.reduced (2));
    row = area.removeFromTop (rowHeight);
    auto modeCell = row.removeFromLeft (row.getWidth() / 2);
    hitMode_.setBounds (modeCell.removeFromLeft (modeCell.getWidth() * 45 / 100).reduced (2));
    hitResponse_.setBounds (modeCell.reduced (2, 3));
    place (onsetThreshold_, row.reduced (2));
    row = area.removeFromTop (rowHeight);
    place (onsetGap_, row.removeFromLeft (row.getWidth() / 2).reduced (2));
    place (onsetSilence_, row.reduced (2));
    row = area.removeFromTop (rowHeight);
    midiOut_.setBounds (row.removeFromLeft (row.getWidth() / 4).reduced (2));
    oscEnabled_.setBounds (row.removeFromLeft (row.getWidth() / 3).reduced (2));
    oscPort_.setBounds (row.removeFromRight (row.getWidth() / 3).reduced (3));
    oscHost_.setBounds (row.reduced (3));
    for (auto* editor : { &oscHost_, &oscPort_ })
        editor->applyFontToAllText (juce::Font (static_cast<float> (editor->getHeight()) * 0.6f));
}

} // namespace sonotype::gui
