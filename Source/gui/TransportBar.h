// The standalone app's file player: open (or drop) a WAV/AIFF/FLAC/Ogg/MP3 file, play/pause, loop,
// position. The file plays through the classifier in place of the audio input.
#pragma once

#include "plugin/SonotypeProcessor.h"

#include <functional>

namespace sonotype::gui
{

class TransportBar final : public juce::Component
{
public:
    explicit TransportBar (plugin::FilePlayer& player);

    /** Loads and starts a file; reports an error through onError. */
    void open (const juce::File& file);
    void refresh();
    void resized() override;
    void paint (juce::Graphics&) override;

    std::function<void (const juce::String& message, bool isError)> onStatus;

private:
    void chooseFile();

    plugin::FilePlayer& player_;
    juce::TextButton openButton_ { "Open audio file..." }, playButton_ { "Play" };
    juce::ToggleButton loopButton_ { "Loop" };
    juce::Slider position_ { juce::Slider::LinearHorizontal, juce::Slider::NoTextBox };
    juce::Label time_, name_;
    std::unique_ptr<juce::FileChooser> chooser_;
};

} // namespace sonotype::gui
