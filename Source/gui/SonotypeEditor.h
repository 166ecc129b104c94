// The plugin's editor: the current top class, a bar per class, a 30 s heat-map history ("Live"),
// the timelines of whole audio files ("Files": opened or dropped, analysed in the background, no
// audio device needed) or the user's own classes ("Teach": TeachPanel), export of either as Audacity labels, REAPER regions, a MIDI file or CSV, an
// input meter, model info and live stats, the parameters, model loading (button or drag-and-drop)
// a message strip under the header (never over the views), and the version in the header, which
// opens the about box (AboutBox.h). Repaints from a 30 Hz timer reading the processor's lock-free
// snapshots; it never touches audio-thread state, so it can be closed and reopened while audio runs.
#pragma once

#include "gui/AboutBox.h"
#include "gui/ClassBars.h"
#include "gui/ControlsPanel.h"
#include "gui/FileChoosers.h"
#include "gui/HistoryView.h"
#include "gui/InfoPanel.h"
#include "gui/LevelMeter.h"
#include "gui/MessageStrip.h"
#include "gui/TeachPanel.h"
#include "gui/Theme.h"
#include "gui/TimelineView.h"
#include "gui/TopClassView.h"
#include "gui/TransportBar.h"
#include "timeline/TimelineExport.h"

#include <optional>

namespace sonotype::gui
{

class SonotypeEditor final : public juce::AudioProcessorEditor, public juce::FileDragAndDropTarget, private juce::Timer
{
public:
    static constexpr int kBaseWidth = 900, kBaseHeight = 600;

    /** withFilePlayer: show the file transport (the standalone app does; in a DAW the track
        already is the input). Defaults to whether the processor runs as the standalone app. */
    explicit SonotypeEditor (plugin::SonotypeProcessor& owner, std::optional<bool> withFilePlayer = std::nullopt);
    ~SonotypeEditor() override;

    void paint (juce::Graphics&) override;
    void resized() override;

    bool isInterestedInFileDrag (const juce::StringArray& files) override;
    void filesDropped (const juce::StringArray& files, int x, int y) override;
    void fileDragExit (const juce::StringArray& files) override;

    /** One frame's update (the timer calls it; tests call it directly). */
    void refresh();

    /** Analyses audio files (and, in the app, loads the first into the player) and shows their
        timelines. */
    void openAudioFiles (const juce::Array<juce::File>& files);
    /** Adds audio files to those opened (the analysed ones stay, a file already there is not added
        twice) and shows the first of them (in the app, the player loads it). */
    void addAudioFiles (const juce::Array<juce::File>& files);
    /** Shows the files' timelines (true) or the live history (false). */
    void showFiles (bool shouldShowFiles);
    bool isShowingFiles() const noexcept { return showingFiles_; }
    /** Shows the Teach view (true) or goes back to the view before. */
    void showTeach (bool shouldShowTeach);
    bool isShowingTeach() const noexcept { return showingTeach_; }
    TeachPanel& teachPanel() noexcept { return teach_; }
    /** The menu a right-click on a file's timeline opens: teach the segment there, or the whole
        file, as one of the taught classes. Returns the menu (tests pick from it by item id). */
    juce::PopupMenu teachMenu (double seconds);
    /** Shows file `index` of those opened (in the app, the player loads it). */
    void selectFile (std::size_t index);

    /** Writes the segments on show (the file's, or the live session's) to `destination` in `format`
        (timeline::exportSegments, as `sonotype classify` writes them), or a file's hits when it was
        analysed hit by hit (timeline::exportHits, as `classify --onsets`); returns the error, empty
        on success (the status says what was written either way). */
    juce::String exportTimeline (timeline::ExportFormat format, const juce::File& destination);
    /** Opens the chooser of the file to export to in `format` (what the Export menu's items do): it
        starts in the folder of the last export, else the shown file's folder (gui/FileChoosers.h). */
    void chooseExportFile (timeline::ExportFormat format);
    /** Opens the chooser of a model file to load (what "Load model..." does). */
    void chooseModelFile();

    /** What the top panel and bars show: the live input's, or in the Files view the file's at the
        timeline's time (TimelineView::focusSeconds). */
    const DisplayState& displayState() const noexcept { return state_; }
    const HistoryView& history() const noexcept { return history_; }
    const MessageStrip& messageStrip() const noexcept { return messages_; }
    TransportBar* transport() noexcept { return transport_.get(); }
    const TimelineView& timeline() const noexcept { return timeline_; }
    TimelineView& timeline() noexcept { return timeline_; }
    const TopClassView& topClass() const noexcept { return topClass_; }
    const ClassBars& bars() const noexcept { return bars_; }
    /** Shows the about box over the editor (true) or takes it down (the standalone's Options menu
        and the header's version tag open it). */
    void showAbout (bool shouldShow);
    AboutBox* aboutBox() noexcept { return about_.get(); }
    VersionTag& versionTag() noexcept { return version_; }

private:
    void timerCallback() override { refresh(); }
    /** What the top panel and bars show in the Files view: the file on show at the timeline's time. */
    DisplayState fileState (const DisplayState& live) const;
    void chooseExport();
    void updateFileList();
    void loadIntoPlayer (const juce::File& file);

    plugin::SonotypeProcessor& processor_;
    SonotypeLookAndFeel lookAndFeel_;
    DisplayState state_;
    TopClassView topClass_;
    ClassBars bars_;
    HistoryView history_;
    TimelineView timeline_;
    TeachPanel teach_;
    juce::TextButton liveButton_ { "Live" }, filesButton_ { "Files" }, teachButton_ { "Teach" }, exportButton_ { "Export..." };
    juce::ComboBox fileList_;
    bool showingFiles_ = false, showingTeach_ = false;
    std::size_t shownFile_ = 0;
    juce::Array<juce::File> listedFiles_;
    LevelMeter meter_;
    InfoPanel info_;
    ControlsPanel controls_;
    MessageStrip messages_;
    juce::TextButton loadButton_ { "Load model..." }, builtinButton_ { "Built-in model" };
    std::unique_ptr<TransportBar> transport_;
    std::unique_ptr<PurposeChooser> chooser_;
    VersionTag version_;
    std::unique_ptr<AboutBox> about_;
    juce::TooltipWindow tooltips_ { this, 700 }; // the controls' tooltips, inside the editor (a plugin owns no desktop window)
    bool dragging_ = false;
};

} // namespace sonotype::gui
