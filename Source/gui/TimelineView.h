// A whole file's timeline (plugin::FileTimelines): a time ruler tied to the file, the segments as
// labelled blocks (what the exports hold), the class probabilities as a heat map (at each time the
// mean of the windows that cover it, as the segments see it), the part not analysed yet shaded with
// the progress, and the player's position. A click or drag seeks there.
// A file analysed hit by hit (per-hit MIDI) shows its hits instead: a tick per hit in the lane,
// in its class's colour and as tall as its note's velocity, its probabilities as a thin column of
// the heat map, and the lane named by the count ("32 hits").
//
// Zoom and scroll, as DAWs do: Ctrl+wheel (Cmd+wheel on a Mac) or a pinch zooms about the pointer
// (the time under it stays under it); the wheel, Shift+wheel or a sideways swipe scrolls; a
// double-click or the Fit button shows the whole file again, and a scroll bar under the heat map
// shows and moves the part shown (TimelineZoom). The ruler's labels keep apart at every zoom
// (TimeRuler). A new file shown is fitted.
//
// The file at a time (momentAt()): under the pointer while it hovers over the plot, else at the
// player's position, else at the last click, else at the start: the mean of the windows that cover
// that time (the heat map's colours there, and what the segments' first step sees), or per hit, the
// hit at or just before. A read-out beside the pointer says its time, top class and confidence; the
// editor's top panel and bars show the same moment. Everything lives on the message thread; the
// windows are FileTimelines' own, copied as they come (update()), their means made once per new
// windows, and a moment is a binary search in them, never a new analysis nor one per paint.
#pragma once

#include "gui/DisplayState.h"
#include "gui/TimeRuler.h"
#include "gui/TimelineZoom.h"

#include <functional>
#include <optional>

namespace sonotype::gui
{

/** What a file is at one time: one window (its column of the heat map), or per hit, one hit. */
struct FileMoment
{
    double seconds = 0.0;             // the time asked for
    std::vector<float> probabilities; // per class, in label order
    int classIndex = -1;              // the top class in play (per hit: the hit's class), or -1
    float confidence = 0.0f;          // its probability (per hit: the hit's confidence)
    std::optional<timeline::Hit> hit; // per hit: the hit at or just before `seconds`
};

class TimelineView final : public juce::Component, public juce::TooltipClient, private juce::ScrollBar::Listener
{
public:
    TimelineView();

    /** One frame: file `index` of the analyzer (its new windows are copied, nothing else), the
        player's position in seconds (negative: none), the classes enabled. */
    void update (const plugin::FileTimelines& analyzer, std::size_t index, double playheadSeconds, const std::vector<bool>& enabled);

    void paint (juce::Graphics&) override;
    void resized() override;
    void mouseDown (const juce::MouseEvent&) override;
    void mouseDrag (const juce::MouseEvent&) override;
    void mouseMove (const juce::MouseEvent&) override;
    void mouseExit (const juce::MouseEvent&) override;
    void mouseDoubleClick (const juce::MouseEvent&) override;
    void mouseWheelMove (const juce::MouseEvent&, const juce::MouseWheelDetails&) override;
    void mouseMagnify (const juce::MouseEvent&, float scaleFactor) override;

    /** A click or drag on the timeline: the time under the mouse. */
    std::function<void (double seconds)> onSeek;
    /** A right-click (or the platform's popup-menu click) on the timeline: the time under the mouse. */
    std::function<void (double seconds)> onContextMenu;

    const plugin::FileStatus& status() const noexcept { return status_; }
    std::size_t numWindows() const noexcept { return windows_.size(); }
    /** The file's length: the seconds shown from the left edge to the right edge when fitted. */
    double spanSeconds() const noexcept;
    /** The seconds shown from the left edge to the right edge of the time axis. */
    juce::Range<double> visibleRange() const noexcept { return zoom_.visible(); }
    bool isFitted() const noexcept { return zoom_.isFitted(); }
    /** Shows the whole file (a double-click, the Fit button). */
    void fitToFile();
    /** The time at x (in this component's coordinates), within the file. */
    double secondsAt (float x) const noexcept;
    /** The x of a time (in this component's coordinates). */
    float xOf (double seconds) const noexcept;
    /** Where the time axis is drawn, left to right (the ruler, lane and heat map share it). */
    juce::Rectangle<float> plotArea() const noexcept;

    /** The time the file is shown at: the pointer's while it hovers over the plot, else the player's,
        else the last click's, else 0. */
    double focusSeconds() const noexcept;
    bool isHovering() const noexcept { return hover_.has_value(); }
    /** The file at `seconds`, or nothing where it has no result yet (not analysed that far, failed,
        or per hit, before its first hit). */
    std::optional<FileMoment> momentAt (double seconds) const;
    /** Below this a window's top class is uncertain (the segments' threshold: a gap). */
    float uncertainBelow() const noexcept { return threshold_; }
    /** What the read-out at the pointer says, line by line (empty when the pointer is not over the plot). */
    juce::StringArray readoutLines() const;
    /** Where the read-out is drawn (empty when it is not), always inside this component. */
    juce::Rectangle<float> readoutBounds() const;
    juce::Font readoutFont() const;

    /** The ruler as drawn at this size and zoom, and its font. */
    RulerMarks rulerMarks() const;
    juce::Font rulerFont() const;

    /** The hit drawn nearest to x, if one is within a few pixels (a file analysed hit by hit). */
    const timeline::Hit* hitNear (float x) const noexcept;
    /** What the read-out says of a hit: its class, time, velocity and level, confidence. */
    juce::String describe (const timeline::Hit& hit) const;
    /** The lane's name: "segments", or the number of hits ("32 hits"). */
    juce::String laneName() const;
    /** Over the ruler: how to zoom and scroll (over the results the read-out speaks instead). */
    juce::String getTooltip() override;

    /** How the timeline zooms and scrolls, as its tooltips say. */
    static const char* const kZoomHelp;

private:
    /** Where paint() draws each part, for the component's size and the file's classes. */
    struct Layout
    {
        juce::Rectangle<float> labels, ruler, lane, heat; // class names | time ruler, segment lane, heat map
        float fontSize = 11.0f, rowHeight = 0.0f;         // rowHeight: one class's row of the heat map
        int numClasses = 0;
    };

    bool isClassEnabled (std::size_t classIndex) const noexcept;
    /** moments_ from windows_ (each time windows come). */
    void buildMoments();
    /** Zoom and scroll changed: the scroll bar, the Fit button and the picture follow. */
    void zoomChanged();
    void scrollBarMoved (juce::ScrollBar*, double newRangeStart) override;
    void hoverAt (juce::Point<float> position);

    // paint()'s steps, in the order they are drawn (each one over the ones before).
    Layout layout() const;
    void drawRuler (juce::Graphics& g, const Layout& layout) const;
    void drawLabels (juce::Graphics& g, const Layout& layout) const;
    /** Class `classIndex`'s colour (gui::classColour, from its label). */
    juce::Colour colourOf (int classIndex) const;
    void drawHeatMap (juce::Graphics& g, const Layout& layout) const;
    void drawSegments (juce::Graphics& g, const Layout& layout) const;
    void drawHits (juce::Graphics& g, const Layout& layout) const; // per hit: instead of the segments
    void drawProgress (juce::Graphics& g, const Layout& layout) const;
    void drawPlayhead (juce::Graphics& g, const Layout& layout) const;
    void drawReadout (juce::Graphics& g) const;

    plugin::FileStatus status_;
    std::vector<plugin::TimelineWindow> windows_;
    // The file's moments: each stretch between two window edges, with the mean of the windows that
    // cover it (what the segments' first step sees); the heat map, the read-out, the top panel and
    // the bars show these.
    std::vector<plugin::TimelineWindow> moments_;
    std::size_t index_ = 0;
    uint64_t version_ = ~uint64_t (0);
    double playhead_ = -1.0;
    std::vector<bool> enabled_;
    float threshold_ = 0.0f;
    TimelineZoom zoom_;
    std::optional<juce::Point<float>> hover_; // the pointer, while it is over the plot
    double clicked_ = -1.0;                   // the last click's time (the focus where no player plays the file)
    juce::TextButton fitButton_ { "Fit" };
    juce::ScrollBar scrollBar_ { false };
};

} // namespace sonotype::gui
