// The standalone app's transport: open (or drop) audio files, or add them to those open, which are
// analysed at once (no device needed) and, with an audio device, played through the live analysis: play/pause, loop, position.
// "Input" lets the live analysis hear the audio input when no file plays (off at first; the input
// never reaches the speakers).
#pragma once

#include "gui/FileChoosers.h"
#include "plugin/SonotypeProcessor.h"

#include <functional>

namespace sonotype::gui
{

class TransportBar final : public juce::Component
{
public:
    explicit TransportBar (plugin::SonotypeProcessor& processor);

    /** Loads a file into the player (starts it when a device can play it); returns the player's
        error (empty: none), and then the player holds no file. */
    juce::String load (const juce::File& file);
    void refresh();
    void resized() override;
    void paint (juce::Graphics&) override;

    /** The user chose files to open (the editor analyses them and loads the first). */
    std::function<void (const juce::Array<juce::File>& files)> onOpenFiles;
    /** The user chose files to add to those open (the editor adds them to the analysed ones). */
    std::function<void (const juce::Array<juce::File>& files)> onAddFiles;

    /** Opens the chooser of audio files (what the Open button does): it starts in the folder audio
        files were last opened from (gui/FileChoosers.h). */
    void chooseFiles();
    /** Opens the same chooser for files to add to those open (the Add button). */
    void chooseFilesToAdd();

private:
    plugin::SonotypeProcessor& processor_;
    plugin::FilePlayer& player_;
    juce::TextButton openButton_ { "Open audio files..." }, addButton_ { "Add files..." }, playButton_ { "Play" };
    juce::ToggleButton loopButton_ { "Loop" }, inputButton_ { "Input" };
    juce::Slider position_ { juce::Slider::LinearHorizontal, juce::Slider::NoTextBox };
    juce::Label time_, name_;
    std::unique_ptr<PurposeChooser> chooser_;
};

} // namespace sonotype::gui
