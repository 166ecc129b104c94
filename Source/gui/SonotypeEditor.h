// The plugin's editor: the current top class, a bar per class, a 30 s heat-map history, an input
// meter, model info and live stats, the parameters, model loading (button or drag-and-drop) and an
// inline status panel. Repaints from a 30 Hz timer reading the processor's lock-free snapshots;
// it never touches audio-thread state, so it can be closed and reopened while audio runs.
#pragma once

#include "gui/ClassBars.h"
#include "gui/ControlsPanel.h"
#include "gui/HistoryView.h"
#include "gui/InfoPanel.h"
#include "gui/LevelMeter.h"
#include "gui/StatusBanner.h"
#include "gui/Theme.h"
#include "gui/TopClassView.h"
#include "gui/TransportBar.h"

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

    const DisplayState& displayState() const noexcept { return state_; }
    const HistoryView& history() const noexcept { return history_; }
    const StatusBanner& banner() const noexcept { return banner_; }
    TransportBar* transport() noexcept { return transport_.get(); }

private:
    void timerCallback() override { refresh(); }
    void chooseModelFile();

    plugin::SonotypeProcessor& processor_;
    SonotypeLookAndFeel lookAndFeel_;
    DisplayState state_;
    TopClassView topClass_;
    ClassBars bars_;
    HistoryView history_;
    LevelMeter meter_;
    InfoPanel info_;
    ControlsPanel controls_;
    StatusBanner banner_;
    juce::TextButton loadButton_ { "Load model..." }, builtinButton_ { "Built-in model" };
    std::unique_ptr<TransportBar> transport_;
    std::unique_ptr<juce::FileChooser> chooser_;
    bool dragging_ = false;
};

} // namespace sonotype::gui
