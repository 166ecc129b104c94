#include "gui/TimelineView.h"

#include "gui/Theme.h"
#include "timeline/MidiNotes.h"

#include <cmath>

namespace sonotype::gui
{
namespace
{
    // Heights of the ruler and segment lanes, relative to the component's height.
    constexpr float kRulerShare = 0.09f, kSegmentShare = 0.13f;
    // A mouse wheel's notch is about 0.2 of JUCE's delta (50/256 on Linux, 60/256 on Windows): one
    // notch zooms by about 1.3x and scrolls about a tenth of the span shown.
    constexpr double kZoomPerDelta = 2.0, kScrollPerDelta = 0.5;
} // namespace

const char* const TimelineView::kZoomHelp = "Zoom: Ctrl+wheel (Cmd+wheel on a Mac) or pinch, about the pointer. Scroll: wheel, Shift+wheel or a "
                                            "sideways swipe. Double-click or Fit: the whole file. Click: play from there. Right-click: teach.";

TimelineView::TimelineView()
{
    fitButton_.setTooltip (kZoomHelp);
    fitButton_.onClick = [this] { fitToFile(); };
    scrollBar_.addListener (this);
    scrollBar_.setAutoHide (false);
    scrollBar_.setColour (juce::ScrollBar::thumbColourId, Colours::dimText.withAlpha (0.6f));
    addChildComponent (fitButton_);
    addChildComponent (scrollBar_);
}

void TimelineView::update (const plugin::FileTimelines& analyzer, std::size_t index, double playheadSeconds, const std::vector<bool>& enabled)
{
    auto status = analyzer.status (index);
    const bool sameFile = index == index_ && status.file == status_.file;
    const bool sameAnalysis = sameFile && status.analysis == status_.analysis;
    if (! sameAnalysis || status.state == plugin::FileState::failed)
        windows_.clear();
    if (! sameAnalysis || status.version != version_)
    {
        if (analyzer.copyWindows (index, windows_.size(), windows_) > 0 || windows_.empty())
            buildMoments();
        index_ = index;
        version_ = status.version;
        status_ = std::move (status);
        threshold_ = status_.perHit ? 0.0f : static_cast<float> (analyzer.settings().analysis.segments.thresholdPercent / 100.0);
        if (! sameFile)
        {
            zoom_.fit(); // another file: shown whole, at its start
            clicked_ = -1.0;
        }
        zoom_.setLength (spanSeconds());
        zoomChanged();
    }
    if (enabled != enabled_ || std::abs (playheadSeconds - playhead_) > 1e-3)
    {
        enabled_ = enabled;
        playhead_ = playheadSeconds;
        repaint();
    }
}

double TimelineView::spanSeconds() const noexcept
{
    double span = status_.durationSeconds;
    if (! windows_.empty())
        span = std::max (span, windows_.back().endSeconds);
    return std::max (span, 1e-3);
}

juce::Rectangle<float> TimelineView::plotArea() const noexcept
{
    auto area = getLocalBounds().toFloat().reduced (6.0f);
    area.removeFromLeft (area.getWidth() * 0.14f); // class labels
    return area;
}

float TimelineView::xOf (double seconds) const noexcept
{
    const auto area = plotArea();
    const auto shown = zoom_.visible();
    return area.getX() + static_cast<float> ((seconds - shown.getStart()) / shown.getLength()) * area.getWidth();
}

double TimelineView::secondsAt (float x) const noexcept
{
    const auto area = plotArea();
    const auto shown = zoom_.visible();
    const double fraction = static_cast<double> ((x - area.getX()) / std::max (area.getWidth(), 1.0f));
    return juce::jlimit (0.0, spanSeconds(), shown.getStart() + fraction * shown.getLength());
}

double TimelineView::focusSeconds() const noexcept
{
    if (hover_.has_value())
        return secondsAt (hover_->x);
    if (playhead_ >= 0.0)
        return playhead_;
    return std::max (clicked_, 0.0);
}

// ----- the mouse ----------------------------------------------------------------------------------

void TimelineView::mouseDown (const juce::MouseEvent& event)
{
    if (event.mods.isPopupMenu())
    {
        if (onContextMenu && status_.file != juce::File())
            onContextMenu (secondsAt (event.position.x));
        return;
    }
    if (status_.file == juce::File() || ! plotArea().getHorizontalRange().contains (event.position.x))
        return;
    clicked_ = secondsAt (event.position.x);
    hoverAt (event.position);
    if (onSeek)
        onSeek (clicked_);
}

void TimelineView::mouseDrag (const juce::MouseEvent& event)
{
    if (event.mods.isPopupMenu() || status_.file == juce::File())
        return;
    clicked_ = secondsAt (event.position.x);
    hoverAt (event.position);
    if (onSeek)
        onSeek (clicked_);
}

void TimelineView::mouseMove (const juce::MouseEvent& event)
{
    hoverAt (event.position);
}

void TimelineView::mouseExit (const juce::MouseEvent&)
{
    hover_.reset();
    repaint();
}

void TimelineView::hoverAt (juce::Point<float> position)
{
    const auto plot = plotArea();
    const bool over = status_.file != juce::File() && plot.getHorizontalRange().contains (position.x) && position.y >= plot.getY()
                      && position.y < plot.getBottom();
    if (over)
        hover_ = position;
    else
        hover_.reset();
    repaint();
}

void TimelineView::mouseDoubleClick (const juce::MouseEvent& event)
{
    if (! event.mods.isPopupMenu())
        fitToFile();
}

void TimelineView::mouseWheelMove (const juce::MouseEvent& event, const juce::MouseWheelDetails& wheel)
{
    if (status_.file == juce::File())
        return;
    if (event.mods.isCommandDown() || event.mods.isCtrlDown())
    {
        // Zoom about the pointer: up (away from the user) zooms in.
        const float delta = wheel.isReversed ? -wheel.deltaY : wheel.deltaY;
        zoom_.zoomAbout (secondsAt (event.position.x), std::pow (2.0, juce::jlimit (-0.5, 0.5, kZoomPerDelta * static_cast<double> (delta))));
    }
    else
    {
        // Scroll, as a viewport does: up, or a swipe to the right, shows earlier times.
        const float delta = wheel.deltaX != 0.0f ? wheel.deltaX : wheel.deltaY;
        zoom_.scrollBy (-kScrollPerDelta * static_cast<double> (delta) * zoom_.visible().getLength());
    }
    hoverAt (event.position);
    zoomChanged();
}

void TimelineView::mouseMagnify (const juce::MouseEvent& event, float scaleFactor)
{
    if (status_.file == juce::File())
        return;
    zoom_.zoomAbout (secondsAt (event.position.x), static_cast<double> (scaleFactor));
    hoverAt (event.position);
    zoomChanged();
}

void TimelineView::fitToFile()
{
    zoom_.fit();
    zoomChanged();
}

void TimelineView::zoomChanged()
{
    const auto shown = zoom_.visible();
    scrollBar_.setRangeLimits (0.0, zoom_.length(), juce::dontSendNotification);
    scrollBar_.setCurrentRange (shown, juce::dontSendNotification);
    const bool zoomed = ! zoom_.isFitted() && status_.file != juce::File();
    if (zoomed != scrollBar_.isVisible() || zoomed != fitButton_.isVisible())
    {
        scrollBar_.setVisible (zoomed);
        fitButton_.setVisible (zoomed);
        resized();
    }
    repaint();
}

void TimelineView::scrollBarMoved (juce::ScrollBar*, double newRangeStart)
{
    zoom_.scrollTo (newRangeStart);
    repaint();
}

juce::String TimelineView::getTooltip()
{
    // Over the ruler (and the Fit button): how to zoom. Over the results, the read-out says what is there.
    const auto mouse = getMouseXYRelative().toFloat();
    return status_.file != juce::File() && layout().ruler.withLeft (0.0f).contains (mouse) ? juce::String (kZoomHelp) : juce::String();
}

// ----- painting -------------------------------------------------------------------------------------

TimelineView::Layout TimelineView::layout() const
{
    // Labels on the left; on the right, from the top: the ruler, the segment lane, the heat map, and
    // while zoomed, the scroll bar.
    Layout layout;
    const auto bounds = getLocalBounds().toFloat();
    layout.fontSize = std::max (11.0f, bounds.getHeight() * 0.055f);
    auto area = bounds.reduced (6.0f);
    layout.labels = area.removeFromLeft (area.getWidth() * 0.14f);
    layout.ruler = area.removeFromTop (std::max (bounds.getHeight() * kRulerShare, layout.fontSize * 1.5f));
    layout.labels.removeFromTop (layout.ruler.getHeight());
    layout.lane = area.removeFromTop (bounds.getHeight() * kSegmentShare);
    layout.labels.removeFromTop (layout.lane.getHeight());
    area.removeFromTop (3.0f);
    layout.labels.removeFromTop (3.0f);
    if (scrollBar_.isVisible())
    {
        const float bar = std::max (8.0f, layout.fontSize * 0.8f);
        area.removeFromBottom (bar + 2.0f);
        layout.labels.removeFromBottom (bar + 2.0f);
    }
    layout.heat = area;
    layout.numClasses = static_cast<int> (status_.labels.size());
    layout.rowHeight = layout.numClasses > 0 ? layout.heat.getHeight() / static_cast<float> (layout.numClasses) : layout.heat.getHeight();
    return layout;
}

void TimelineView::resized()
{
    const auto parts = layout();
    fitButton_.setBounds (parts.labels.withY (parts.ruler.getY()).withHeight (parts.ruler.getHeight()).reduced (2.0f, 1.0f).toNearestInt());
    const float bar = std::max (8.0f, parts.fontSize * 0.8f);
    scrollBar_.setBounds (juce::Rectangle<float> (parts.heat.getX(), parts.heat.getBottom() + 2.0f, parts.heat.getWidth(), bar).toNearestInt());
}

void TimelineView::paint (juce::Graphics& g)
{
    const auto bounds = getLocalBounds().toFloat();
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (bounds, 6.0f);
    const auto parts = layout();
    if (status_.file == juce::File())
    {
        g.setColour (Colours::dimText);
        g.setFont (parts.fontSize * 1.2f);
        g.drawFittedText ("Open or drop audio files (WAV, AIFF, FLAC, Ogg, MP3, Opus) to see their timeline.\nNo audio device is needed.",
                          bounds.reduced (12.0f).toNearestInt(), juce::Justification::centred, 3);
        return;
    }
    drawLabels (g, parts);
    {
        // What lies outside the time shown (zoomed in) is not drawn over the labels.
        const juce::Graphics::ScopedSaveState clip (g);
        g.reduceClipRegion (parts.ruler.getUnion (parts.heat).expanded (1.0f, 0.0f).toNearestInt());
        drawRuler (g, parts);
        drawHeatMap (g, parts);
        if (status_.perHit)
            drawHits (g, parts);
        else
            drawSegments (g, parts);
        drawProgress (g, parts);
        drawPlayhead (g, parts);
    }
    drawReadout (g);
}

bool TimelineView::isClassEnabled (std::size_t classIndex) const noexcept
{
    return classIndex >= enabled_.size() || enabled_[classIndex];
}

juce::Font TimelineView::rulerFont() const
{
    return juce::Font (layout().fontSize);
}

RulerMarks TimelineView::rulerMarks() const
{
    const auto ruler = layout().ruler;
    return gui::rulerMarks (zoom_.visible(), ruler.getHorizontalRange(), rulerFont(), rulerFont().getHeight());
}

void TimelineView::drawRuler (juce::Graphics& g, const Layout& layout) const
{
    // Labelled ticks at a step that keeps the labels apart (TimeRuler), a line from each across the
    // plot, short ticks between; none for a file that could not be read (it has no length).
    if (status_.state == plugin::FileState::failed)
        return;
    const auto& ruler = layout.ruler;
    const auto marks = rulerMarks();
    const auto shown = zoom_.visible();
    if (marks.minorStepSeconds > 0.0)
    {
        g.setColour (Colours::panelEdge.brighter (0.3f));
        for (auto k = static_cast<int64_t> (std::ceil (shown.getStart() / marks.minorStepSeconds)); k * marks.minorStepSeconds <= shown.getEnd(); ++k)
            g.drawVerticalLine (juce::roundToInt (xOf (static_cast<double> (k) * marks.minorStepSeconds)), ruler.getBottom() - ruler.getHeight() * 0.25f,
                                ruler.getBottom());
    }
    g.setFont (rulerFont());
    for (const auto& label : marks.labels)
    {
        const float x = xOf (label.seconds);
        g.setColour (Colours::panelEdge);
        g.drawVerticalLine (juce::roundToInt (x), ruler.getBottom(), layout.heat.getBottom());
        g.setColour (Colours::dimText.withAlpha (0.7f));
        g.drawVerticalLine (juce::roundToInt (x), ruler.getBottom() - ruler.getHeight() * 0.45f, ruler.getBottom());
        g.setColour (Colours::dimText);
        g.drawText (label.text, juce::Rectangle<float> (label.x.getStart(), ruler.getY(), label.x.getLength() + 2.0f, ruler.getHeight()),
                    juce::Justification::centredLeft, false);
    }
}

juce::Colour TimelineView::colourOf (int classIndex) const
{
    const bool named = classIndex >= 0 && classIndex < static_cast<int> (status_.labels.size());
    return classColour (classIndex, named ? juce::String::fromUTF8 (status_.labels[static_cast<std::size_t> (classIndex)].c_str()) : juce::String());
}

void TimelineView::drawLabels (juce::Graphics& g, const Layout& layout) const
{
    // The class names beside the heat map's rows (a disabled class greyed), "segments" beside the lane.
    g.setFont (std::min (layout.rowHeight * 0.8f, layout.fontSize));
    for (int c = 0; c < layout.numClasses; ++c)
    {
        g.setColour (isClassEnabled (static_cast<std::size_t> (c)) ? colourOf (c) : Colours::dimText.withAlpha (0.5f));
        g.drawText (juce::String::fromUTF8 (status_.labels[static_cast<std::size_t> (c)].c_str()),
                    layout.labels.withY (layout.heat.getY() + layout.rowHeight * static_cast<float> (c)).withHeight (layout.rowHeight).reduced (2.0f, 0.0f),
                    juce::Justification::centredRight);
    }
    g.setColour (Colours::dimText);
    g.setFont (layout.fontSize);
    g.drawText (laneName(), layout.labels.withY (layout.lane.getY()).withHeight (layout.lane.getHeight()).reduced (2.0f, 0.0f),
                juce::Justification::centredRight);
}

void TimelineView::drawHeatMap (juce::Graphics& g, const Layout& layout) const
{
    // The file's moments (each stretch between window edges, the mean of the windows that cover it),
    // one after another; where they are narrower than a pixel, one per pixel is drawn.
    const auto& heat = layout.heat;
    g.setColour (juce::Colour (0xff161a2a));
    g.fillRect (heat);
    float drawnTo = heat.getX();
    for (std::size_t m = 0; m < moments_.size(); ++m)
    {
        const auto& moment = moments_[m];
        const bool last = m + 1 == moments_.size();
        const float x0 = std::max (drawnTo, xOf (moment.startSeconds)), x1 = std::min (heat.getRight(), xOf (moment.endSeconds));
        if ((x1 < x0 + 1.0f && ! last) || x1 <= x0)
            continue;
        drawnTo = x1;
        for (int c = 0; c < layout.numClasses && c < static_cast<int> (moment.probabilities.size()); ++c)
        {
            g.setColour (heatColour (moment.probabilities[static_cast<std::size_t> (c)]));
            g.fillRect (juce::Rectangle<float> (x0, heat.getY() + layout.rowHeight * static_cast<float> (c), x1 - x0 + 0.5f, layout.rowHeight + 0.5f));
        }
    }
}

void TimelineView::drawSegments (juce::Graphics& g, const Layout& layout) const
{
    // Labelled blocks in the class's colour (a disabled class greyed): what the exports hold.
    const auto& lane = layout.lane;
    for (const auto& segment : status_.segments)
    {
        if (segment.classIndex < 0 || segment.classIndex >= layout.numClasses)
            continue;
        const auto block = juce::Rectangle<float> (xOf (segment.startSeconds), lane.getY() + 2.0f,
                                                   std::max (1.0f, xOf (segment.endSeconds) - xOf (segment.startSeconds)), lane.getHeight() - 4.0f);
        const auto c = static_cast<std::size_t> (segment.classIndex);
        const auto colour = isClassEnabled (c) ? colourOf (segment.classIndex) : Colours::dimText.withAlpha (0.4f);
        g.setColour (colour.withAlpha (0.85f));
        g.fillRoundedRectangle (block, 3.0f);
        g.setColour (colour.getPerceivedBrightness() > 0.55f ? juce::Colours::black : juce::Colours::white);
        g.setFont (std::min (layout.fontSize, lane.getHeight() * 0.7f));
        // The name where the block is shown (zoomed in, a long segment's start may be out of view).
        g.drawText (juce::String::fromUTF8 (status_.labels[c].c_str()), block.getIntersection (lane).reduced (3.0f, 0.0f), juce::Justification::centredLeft,
                    true);
    }
}

void TimelineView::drawHits (juce::Graphics& g, const Layout& layout) const
{
    // A tick per hit across the lane, from its foot up as far as its note's velocity, in its class's
    // colour (a disabled class greyed), and the hit's probabilities as a thin column of the heat map.
    const auto& lane = layout.lane;
    const float width = std::max (2.0f, lane.getWidth() / 900.0f);
    g.setColour (Colours::panelEdge);
    g.drawHorizontalLine (juce::roundToInt (lane.getBottom() - 2.0f), lane.getX(), lane.getRight());
    for (const auto& hit : status_.hits)
    {
        const float x = xOf (hit.seconds) - 0.5f * width;
        for (int c = 0; c < layout.numClasses && c < static_cast<int> (hit.probabilities.size()); ++c)
        {
            g.setColour (heatColour (hit.probabilities[static_cast<std::size_t> (c)]));
            g.fillRect (juce::Rectangle<float> (x, layout.heat.getY() + layout.rowHeight * static_cast<float> (c), width, layout.rowHeight + 0.5f));
        }
        const bool known = hit.classIndex >= 0 && hit.classIndex < layout.numClasses;
        const auto colour = known && isClassEnabled (static_cast<std::size_t> (hit.classIndex)) ? colourOf (hit.classIndex) : Colours::dimText.withAlpha (0.5f);
        const float height = (lane.getHeight() - 4.0f) * static_cast<float> (std::max (timeline::hitVelocity (hit.levelDb), 8)) / 127.0f;
        g.setColour (colour);
        g.fillRect (juce::Rectangle<float> (x, lane.getBottom() - 2.0f - height, width, height));
    }
}

juce::String TimelineView::laneName() const
{
    if (! status_.perHit)
        return "segments";
    return juce::String (static_cast<int> (status_.hits.size())) + (status_.hits.size() == 1 ? " hit" : " hits");
}

void TimelineView::drawProgress (juce::Graphics& g, const Layout& layout) const
{
    // What is not analysed yet: shaded, with the progress; a failure: its message.
    const auto plot = layout.lane.getUnion (layout.heat);
    if (status_.state == plugin::FileState::queued || status_.state == plugin::FileState::analyzing)
    {
        const float done = status_.perHit     ? xOf (status_.progress * status_.durationSeconds)
                           : windows_.empty() ? plot.getX()
                                              : std::min (plot.getRight(), xOf (windows_.back().endSeconds));
        g.setColour (Colours::background.withAlpha (0.75f));
        g.fillRect (plot.withLeft (done));
        g.setColour (Colours::text);
        g.setFont (layout.fontSize * 1.2f);
        const auto text = status_.state == plugin::FileState::queued ? juce::String ("Waiting to analyze...")
                                                                     : "Analyzing... " + juce::String (juce::roundToInt (status_.progress * 100.0)) + "%";
        g.drawText (text, plot.withLeft (done).reduced (8.0f), juce::Justification::centred);
    }
    else if (status_.state == plugin::FileState::failed)
    {
        g.setColour (Colours::background.withAlpha (0.85f));
        g.fillRect (plot);
        g.setColour (Colours::error);
        g.setFont (layout.fontSize * 1.2f);
        g.drawFittedText ("Cannot analyze " + status_.file.getFileName() + ": " + status_.error, plot.reduced (12.0f).toNearestInt(),
                          juce::Justification::centred, 4);
    }
}

void TimelineView::drawPlayhead (juce::Graphics& g, const Layout& layout) const
{
    // The player's position (or, with no player on this file, the last click), across ruler, lane
    // and heat map; the pointer's time as a thinner line.
    const double at = playhead_ >= 0.0 ? playhead_ : clicked_;
    if (at >= 0.0 && at <= spanSeconds())
    {
        g.setColour (juce::Colours::white);
        g.fillRect (juce::Rectangle<float> (xOf (at) - 1.0f, layout.ruler.getY(), 2.0f, layout.heat.getBottom() - layout.ruler.getY()));
    }
    if (hover_.has_value())
    {
        g.setColour (juce::Colours::white.withAlpha (0.55f));
        g.fillRect (juce::Rectangle<float> (hover_->x - 0.5f, layout.ruler.getY(), 1.0f, layout.heat.getBottom() - layout.ruler.getY()));
    }
}

} // namespace sonotype::gui
