#include "gui/TransportBar.h"

#include "formats/AudioFormats.h"
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

    constexpr const char* kNoDeviceTip = "No audio device is open: files are analyzed but not played. Choose a device in Options > "
                                         "Audio/MIDI Settings.";
} // namespace

TransportBar::TransportBar (plugin::SonotypeProcessor& processor) : processor_ (processor), player_ (processor.filePlayer())
{
    openButton_.onClick = [this] { chooseFiles(); };
    openButton_.setTooltip ("Analyze audio files (WAV, AIFF, FLAC, Ogg, MP3, Opus) in place of those open, as dropping them on the window does; "
                            "with an audio device, play them too");
    addButton_.onClick = [this] { chooseFilesToAdd(); };
    addButton_.setTooltip ("Add audio files to those open: the files analyzed stay, the new ones are analyzed");
    playButton_.onClick = [this] {
        if (player_.isPlaying())
            player_.pause();
        else
            player_.play();
        refresh();
    };
    loopButton_.onClick = [this] { player_.setLooping (loopButton_.getToggleState()); };
    inputButton_.onClick = [this] { processor_.setListeningToInput (inputButton_.getToggleState()); };
    inputButton_.setTooltip ("Analyze the audio input while no file plays (it is never sent to the speakers)");
    position_.setRange (0.0, 1.0);
    position_.onDragEnd = [this] { player_.seek (position_.getValue()); };
    name_.setColour (juce::Label::textColourId, Colours::dimText);
    time_.setJustificationType (juce::Justification::centredRight);
    for (auto* component : std::initializer_list<juce::Component*> { &openButton_, &addButton_, &playButton_, &loopButton_, &position_, &time_, &name_, &inputButton_ })
        addAndMakeVisible (component);
    refresh();
}

juce::String TransportBar::load (const juce::File& file)
{
    const auto error = player_.load (file);
    if (error.isNotEmpty())
        player_.unload(); // never the previous file's audio under this file's name
    else if (processor_.isAudioDeviceAvailable())
        player_.play();
    refresh();
    return error;
}

void TransportBar::refresh()
{
    const bool has = player_.hasFile();
    const bool device = processor_.isAudioDeviceAvailable();
    playButton_.setEnabled (has && device);
    playButton_.setTooltip (device ? juce::String() : juce::String (kNoDeviceTip));
    position_.setEnabled (has);
    playButton_.setButtonText (player_.isPlaying() ? "Pause" : "Play");
    loopButton_.setToggleState (player_.isLooping(), juce::dontSendNotification);
    inputButton_.setEnabled (device);
    inputButton_.setToggleState (processor_.isListeningToInput(), juce::dontSendNotification);
    const double length = std::max (player_.lengthSeconds(), 0.001);
    if (position_.getMaximum() != length)
        position_.setRange (0.0, length);
    if (! position_.isMouseButtonDown())
        position_.setValue (player_.positionSeconds(), juce::dontSendNotification);
    time_.setText (has ? clock (player_.positionSeconds()) + " / " + clock (player_.lengthSeconds()) : juce::String(), juce::dontSendNotification);
    juce::String name;
    if (has)
        name = player_.fileName(); // (no device: the message strip says so, the tooltip how to choose one; the name keeps its room)
    else
        name = device ? "No file: drop audio files here" : "No audio device";
    name_.setText (name, juce::dontSendNotification);
    name_.setTooltip (device ? juce::String() : juce::String (kNoDeviceTip));
}

void TransportBar::chooseFiles()
{
    chooser_ = std::make_unique<PurposeChooser> (ChooserPurpose::audio, "Analyze audio files with Sonotype", formats::audioFilePatterns(), PurposeChooser::openFiles);
    chooser_->launch ([this] (const juce::Array<juce::File>& files) {
        if (onOpenFiles)
            onOpenFiles (files);
        return true; // a file that cannot be read is the analysis' to report: its folder is still the user's
    });
}

void TransportBar::chooseFilesToAdd()
{
    chooser_ = std::make_unique<PurposeChooser> (ChooserPurpose::audio, "Add audio files to those open in Sonotype", formats::audioFilePatterns(),
                                                 PurposeChooser::openFiles);
    chooser_->launch ([this] (const juce::Array<juce::File>& files) {
        if (onAddFiles)
            onAddFiles (files);
        return true; // as for Open: the folder is the user's even when a file in it cannot be read
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
    openButton_.setBounds (area.removeFromLeft (h * 5));
    area.removeFromLeft (4);
    addButton_.setBounds (area.removeFromLeft (h * 3));
    area.removeFromLeft (6);
    playButton_.setBounds (area.removeFromLeft (h * 2));
    area.removeFromLeft (6);
    loopButton_.setBounds (area.removeFromLeft (h * 2));
    inputButton_.setBounds (area.removeFromRight (h * 2));
    time_.setBounds (area.removeFromRight (h * 3));
    name_.setBounds (area.removeFromRight (area.getWidth() * 45 / 100));
    position_.setBounds (area);
}

} // namespace sonotype::gui
