// A whole file's timeline (plugin::FileTimelines): a time ruler tied to the file, the segments as
// labelled blocks (what the exports hold), the class probabilities as a heat map, the part not
// analysed yet shaded with the progress, and the player's position. A click or drag seeks there.
// A file analysed hit by hit (per-hit MIDI) shows its hits instead: a tick per hit in the lane,
// in its class's colour and as tall as its note's velocity, its probabilities as a thin column of
// the heat map, the lane named by the count ("32 hits"), and the hit under the mouse as a tooltip.
#pragma once

#include "gui/DisplayState.h"

#include <functional>

namespace sonotype::gui
{

class TimelineView final : public juce::Component, public juce::TooltipClient
{
public:
    /** One frame: file `index` of the analyzer (its new windows are copied, nothing else), the
        player's position in seconds (negative: none), the classes enabled. */
    void update (const plugin::FileTimelines& analyzer, std::size_t index, double playheadSeconds, const std::vector<bool>& enabled);

    void paint (juce::Graphics&) override;
    void mouseDown (const juce::MouseEvent&) override;
    void mouseDrag (const juce::MouseEvent&) override;

    /** A click or drag on the timeline: the time under the mouse. */
    std::function<void (double seconds)> onSeek;
    /** A right-click (or the platform's popup-menu click) on the timeline: the time under the mouse. */
    std::function<void (double seconds)> onContextMenu;

    const plugin::FileStatus& status() const noexcept { return status_; }
    std::size_t numWindows() const noexcept { return windows_.size(); }
    /** The seconds shown from the left edge to the right edge of the time axis. */
    double spanSeconds() const noexcept;
    /** The time at x (in this component's coordinates), within the file. */
    double secondsAt (float x) const noexcept;
    /** The x of a time (in this component's coordinates). */
    float xOf (double seconds) const noexcept;

    /** The hit drawn nearest to x, if one is within a few pixels (a file analysed hit by hit). */
    const timeline::Hit* hitNear (float x) const noexcept;
    /** What the tooltip says of a hit: its class, time, velocity and level, confidence. */
    juce::String describe (const timeline::Hit& hit) const;
    /** The lane's name: "segments", or the number of hits ("32 hits"). */
    juce::String laneName() const;
    /** The hit under the mouse (per hit), else nothing. */
    juce::String getTooltip() override;

private:
    /** Where paint() draws each part, for the component's size and the file's classes. */
    struct Layout
    {
        juce::Rectangle<float> labels, ruler, lane, heat; // class names | time ruler, segment lane, heat map
        float fontSize = 11.0f, rowHeight = 0.0f;         // rowHeight: one class's row of the heat map
        int numClasses = 0;
    };

    juce::Rectangle<float> plotArea() const noexcept;
    bool isClassEnabled (std::size_t classIndex) const noexcept;

    // paint()'s steps, in the order they are drawn (each one over the ones before).
    Layout layout() const;
    void drawRuler (juce::Graphics& g, const Layout& layout) const;
    void drawLabels (juce::Graphics& g, const Layout& layout) const;
    void drawHeatMap (juce::Graphics& g, const Layout& layout) const;
    void drawSegments (juce::Graphics& g, const Layout& layout) const;
    void drawHits (juce::Graphics& g, const Layout& layout) const; // per hit: instead of the segments
    void drawProgress (juce::Graphics& g, const Layout& layout) const;
    void drawPlayhead (juce::Graphics& g, const Layout& layout) const;

    plugin::FileStatus status_;
    std::vector<plugin::TimelineWindow> windows_;
    std::size_t index_ = 0;
    uint64_t version_ = ~uint64_t (0);
    double playhead_ = -1.0;
    std::vector<bool> enabled_;
};

} // namespace sonotype::gui
