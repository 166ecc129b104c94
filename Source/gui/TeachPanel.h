// The Teach view: the user's own classes. Add a class by name (new, like "kick", or one of the
// model's, like "piano", to adapt it), then give it examples: record a few seconds of what the
// analysis hears, add audio files or folders (the buttons, or drop them on the class), or teach a
// segment of an analysed file (the Files view's right-click menu). Each example shows its length
// and the leave-one-out check (whether the other examples recognise it, else what they hear it
// as) and can be removed. With "Examples are hits" each hit found in an example teaches (drum
// pieces from the user's kit, for per-hit MIDI), and each example shows its hits. Learning happens
// on the model service's thread (plugin::ModelService); the class bars beside show the taught
// classes live. Export writes one model file (the base model plus what was learned, with its
// examples) that the CLI and other instances run; Import takes one back.
// Message thread only; refresh() is called by the editor's timer.
#pragma once

#include "gui/FileChoosers.h"
#include "plugin/SonotypeProcessor.h"

#include <juce_gui_basics/juce_gui_basics.h>

namespace sonotype::gui
{

class TeachPanel final : public juce::Component, public juce::FileDragAndDropTarget
{
public:
    explicit TeachPanel (plugin::SonotypeProcessor& processor);
    ~TeachPanel() override;

    /** One frame: the session's view (rebuilt when it changed) and a recording under way. */
    void refresh();

    void paint (juce::Graphics&) override;
    void resized() override;
    bool isInterestedInFileDrag (const juce::StringArray& files) override;
    void filesDropped (const juce::StringArray& files, int x, int y) override;

    /** Why Record is off while no audio device is open (the standalone app without one). */
    static constexpr const char* kNoInputReason = "No audio input: choose one in Audio/MIDI settings, or add a file / drop one / select a region";

    /** Records `seconds` of the input for class `index` (what the Record button does); with no
        audio device it records nothing and says why. */
    void startRecording (int classIndex, double seconds);
    /** Ends the recording under way (what the Stop button does): what arrived so far teaches,
        and nothing stays armed when nothing arrived. */
    void stopRecording();
    bool isRecording() const noexcept { return recordingClass_ >= 0; }
    /** Whether Record can work: an audio device is open (in a plugin, always: the host's). */
    bool canRecord() const noexcept;
    /** Class `index`'s Record (or, while it records, Stop) button; nullptr when there is no such class. */
    juce::Button* recordButton (int classIndex) const noexcept;
    /** Adds a class named as the name field says (the Add button, or Return in the field). */
    void addClassFromField();
    juce::TextEditor& nameField() noexcept { return name_; }
    /** Class `classIndex`'s note menu: "By name" (its note as its name says, or base note + index)
        or a note 0-127 (tests, screenshots); nullptr for no such class. */
    juce::ComboBox* noteMenu (int classIndex) noexcept;
    juce::ToggleButton& hitsToggle() noexcept { return hitsToggle_; }

    /** The status line's text (tests, screenshots). */
    juce::String statusText() const;

    /** The choosers (gui/FileChoosers.h) of class `classIndex`'s "Add files...", of "Export..."
        and of "Import...": each starts in the folder last used for its purpose. */
    void chooseFiles (int classIndex);
    void chooseExport();
    void chooseImport();

private:
    class ClassList;
    void rebuild();
    void report (const juce::String& error);
    juce::String idleStatusText() const; // the status line when nothing records

    plugin::SonotypeProcessor& processor_;
    plugin::Teaching::View view_;
    juce::TextEditor name_;
    juce::TextButton addButton_ { "Add class" }, exportButton_ { "Export..." }, importButton_ { "Import..." };
    juce::ComboBox recordLength_;
    juce::ToggleButton enabledToggle_ { "Answer with taught classes" };
    juce::ToggleButton hitsToggle_ { "Examples are hits (drum pieces, for per-hit MIDI)" };
    juce::Rectangle<int> statusArea_, reasonArea_; // reasonArea_: why Record is off (empty while it is on)
    float scale_ = 1.0f;                           // the editor's (SonotypeLookAndFeel::scale)
    std::unique_ptr<ClassList> list_;
    juce::Viewport viewport_;
    std::unique_ptr<PurposeChooser> chooser_;
    int recordingClass_ = -1, recordings_ = 0;
    bool couldRecord_ = true, showsReason_ = false; // as the layout has them
    juce::String recordingName_;
    int dropTarget_ = -1;
    int shownBaseNote_ = -1; // the Base note the class rows' notes were shown at
};

} // namespace sonotype::gui
