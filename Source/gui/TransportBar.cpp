#include "gui/TransportBar.h"

#include "gui/Theme.h"

namespace sonotype::gui
{
namespace
{
    juce::String clock (double seconds)
    {
        const int total = static_cast<int> (seconds);
        return juce::String (total / 60) + ":" + juce::String (total % 60).paddedLeft ('0', 2);
    }
} // namespace

TransportBar::TransportBar (plugin::FilePlayer& player) : player_ (player)
{
    openButton_.onClick = [this] { chooseFile(); };
    playButton_.onClick = [this] {
        if (player_.isPlaying())
            player_.pause();
        else
            player_.play();
        refresh();
    };
    loopButton_.onClick = [this] { player_.setLooping (loopButton_.getToggleState()); };
    position_.setRange (0.0, 1.0);
    position_.onDragEnd = [this] { player_.seek (position_.getValue()); };
    name_.setColour (juce::Label::textColourId, Colours::dimText);
    time_.setJustificationType (juce::Justification::centredRight);
    for (auto* component : std::initializer_list<juce::Component*> { &openButton_, &playButton_, &loopButton_, &position_, &time_, &name_ })
        addAndMakeVisible (component);
    refresh();
}

void TransportBar::open (const juce::File& file)
{
    const auto error = player_.load (file);
    if (error.isNotEmpty())
    {
        if (onStatus)
            onStatus (error, true);
        return;
    }
    player_.play();
    if (onStatus)
        onStatus ("Playing " + file.getFileName() + " through the classifier", false);
    refresh();
}

void TransportBar::refresh()
{
    const bool has = player_.hasFile();
    playButton_.setEnabled (has);
    position_.setEnabled (has);
    playButton_.setButtonText (player_.isPlaying() ? "Pause" : "Play");
    loopButton_.setToggleState (player_.isLooping(), juce::dontSendNotification);
    const double length = std::max (player_.lengthSeconds(), 0.001);
    if (position_.getMaximum() != length)
        position_.setRange (0.0, length);
    if (! position_.isMouseButtonDown())
        position_.setValue (player_.positionSeconds(), juce::dontSendNotification);
    time_.setText (has ? clock (player_.positionSeconds()) + " / " + clock (player_.lengthSeconds()) : juce::String(), juce::dontSendNotification);
    name_.setText (has ? player_.fileName() : juce::String ("No file: the audio input is analyzed (or drop a WAV/AIFF/FLAC here)"), juce::dontSendNotification);
}

void TransportBar::chooseFile()
{
    chooser_ = std::make_unique<juce::FileChooser> ("Play an audio file through Sonotype", juce::File(), "*.wav;*.aif;*.aiff;*.flac;*.ogg");
    chooser_->launchAsync (juce::FileBrowserComponent::openMode | juce::FileBrowserComponent::canSelectFiles, [this] (const juce::FileChooser& chooser) {
        const auto file = chooser.getResult();
        if (file != juce::File())
            open (file);
    });
}

void TransportBar::paint (juce::Graphics& g)
{
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (getLocalBounds().toFloat(), 6.0f);
}

void TransportBar::resized()
{
    auto area = getLocalBounds().reduced (6, 4);
    const int h = area.getHeight();
    openButton_.setBounds (area.removeFromLeft (h * 4));
    area.removeFromLeft (6);
    playButton_.setBounds (area.removeFromLeft (h * 2));
    area.removeFromLeft (6);
    loopButton_.setBounds (area.removeFromLeft (h * 2));
    time_.setBounds (area.removeFromRight (h * 3));
    name_.setBounds (area.removeFromRight (area.getWidth() * 35 / 100));
    position_.setBounds (area);
}

} // namespace sonotype::gui
