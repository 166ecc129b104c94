#include "gui/TimelineView.h"

#include "gui/Theme.h"
#include "timeline/MidiNotes.h"

#include <cmath>

namespace sonotype::gui
{
namespace
{
    juce::String clock (double seconds, bool tenths)
    {
        const auto total = std::max (0.0, seconds);
        const int minutes = static_cast<int> (total / 60.0);
        const double rest = total - 60.0 * minutes;
        return juce::String (minutes) + ":"
               + (tenths ? juce::String (rest, 1).paddedLeft ('0', 4) : juce::String (static_cast<int> (rest)).paddedLeft ('0', 2));
    }

    /** A ruler step (seconds) that puts at least minGap pixels between labels. */
    double rulerStep (double span, float width, float minGap)
    {
        for (const double step : { 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0 })
            if (static_cast<float> (step / span) * width >= minGap)
                return step;
        return 7200.0;
    }

    // Heights of the ruler and segment lanes, relative to the component's height.
    constexpr float kRulerShare = 0.09f, kSegmentShare = 0.13f;
} // namespace

void TimelineView::update (const plugin::FileTimelines& analyzer, std::size_t index, double playheadSeconds, const std::vector<bool>& enabled)
{
    auto status = analyzer.status (index);
    const bool sameAnalysis = index == index_ && status.file == status_.file && status.analysis == status_.analysis;
    if (! sameAnalysis || status.state == plugin::FileState::failed)
        windows_.clear();
    if (! sameAnalysis || status.version != version_)
    {
        analyzer.copyWindows (index, windows_.size(), windows_);
        index_ = index;
        version_ = status.version;
        status_ = std::move (status);
        repaint();
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
    return area.getX() + static_cast<float> (seconds / spanSeconds()) * area.getWidth();
}

double TimelineView::secondsAt (float x) const noexcept
{
    const auto area = plotArea();
    return juce::jlimit (0.0, spanSeconds(), static_cast<double> ((x - area.getX()) / std::max (area.getWidth(), 1.0f)) * spanSeconds());
}

void TimelineView::mouseDown (const juce::MouseEvent& event)
{
    if (event.mods.isPopupMenu())
    {
        if (onContextMenu && status_.file != juce::File())
            onContextMenu (secondsAt (event.position.x));
        return;
    }
    if (onSeek && status_.file != juce::File() && plotArea().getHorizontalRange().contains (event.position.x))
        onSeek (secondsAt (event.position.x));
}

void TimelineView::mouseDrag (const juce::MouseEvent& event)
{
    if (onSeek && ! event.mods.isPopupMenu() && status_.file != juce::File())
        onSeek (secondsAt (event.position.x));
}

TimelineView::Layout TimelineView::layout() const
{
    // Labels on the left; on the right, from the top: the ruler, the segment lane, the heat map.
    Layout layout;
    const auto bounds = getLocalBounds().toFloat();
    layout.fontSize = std::max (11.0f, bounds.getHeight() * 0.055f);
    auto area = bounds.reduced (6.0f);
    layout.labels = area.removeFromLeft (area.getWidth() * 0.14f);
    layout.ruler = area.removeFromTop (bounds.getHeight() * kRulerShare);
    layout.labels.removeFromTop (layout.ruler.getHeight());
    layout.lane = area.removeFromTop (bounds.getHeight() * kSegmentShare);
    layout.labels.removeFromTop (layout.lane.getHeight());
    area.removeFromTop (3.0f);
    layout.labels.removeFromTop (3.0f);
    layout.heat = area;
    layout.numClasses = static_cast<int> (status_.labels.size());
    layout.rowHeight = layout.numClasses > 0 ? layout.heat.getHeight() / static_cast<float> (layout.numClasses) : layout.heat.getHeight();
    return layout;
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
    drawRuler (g, parts);
    drawLabels (g, parts);
    drawHeatMap (g, parts);
    if (status_.perHit)
        drawHits (g, parts);
    else
        drawSegments (g, parts);
    drawProgress (g, parts);
    drawPlayhead (g, parts);
}

bool TimelineView::isClassEnabled (std::size_t classIndex) const noexcept
{
    return classIndex >= enabled_.size() || enabled_[classIndex];
}

void TimelineView::drawRuler (juce::Graphics& g, const Layout& layout) const
{
    // m:ss at a step that keeps labels apart, ticks across the plot (none for a file that could
    // not be read: it has no length).
    const auto& ruler = layout.ruler;
    const double span = spanSeconds();
    g.setFont (layout.fontSize);
    const double step = rulerStep (span, ruler.getWidth(), layout.fontSize * 5.0f);
    for (double t = 0.0; status_.state != plugin::FileState::failed && t <= span + 1e-9; t += step)
    {
        const float x = xOf (t);
        g.setColour (Colours::panelEdge);
        g.drawVerticalLine (juce::roundToInt (x), ruler.getBottom(), layout.heat.getBottom());
        const auto text = clock (t, step < 1.0);
        const float width = g.getCurrentFont().getStringWidthFloat (text) + 4.0f;
        if (x + 3.0f + width > ruler.getRight())
            break; // a label cut by the edge says nothing
        g.setColour (Colours::dimText);
        g.drawText (text, juce::Rectangle<float> (x + 3.0f, ruler.getY(), width, ruler.getHeight()), juce::Justification::centredLeft);
    }
}

void TimelineView::drawLabels (juce::Graphics& g, const Layout& layout) const
{
    // The class names beside the heat map's rows (a disabled class greyed), "segments" beside the lane.
    g.setFont (std::min (layout.rowHeight * 0.8f, layout.fontSize));
    for (int c = 0; c < layout.numClasses; ++c)
    {
        g.setColour (isClassEnabled (static_cast<std::size_t> (c)) ? classColour (c) : Colours::dimText.withAlpha (0.5f));
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
    // Each window up to one hop past its middle (the last one to its end), one column after
    // another; where windows are narrower than a pixel, one window per pixel is drawn.
    const auto& heat = layout.heat;
    g.setColour (juce::Colour (0xff161a2a));
    g.fillRect (heat);
    const double hop = status_.hopSeconds > 0.0 ? status_.hopSeconds : 0.25;
    float drawnTo = heat.getX();
    for (std::size_t w = 0; w < windows_.size(); ++w)
    {
        const auto& window = windows_[w];
        const bool last = w + 1 == windows_.size();
        const double to = last ? window.endSeconds : 0.5 * (window.startSeconds + window.endSeconds) + 0.5 * hop;
        const float x0 = drawnTo, x1 = std::min (heat.getRight(), xOf (to));
        if (x1 < x0 + 1.0f && ! last)
            continue;
        drawnTo = x1;
        for (int c = 0; c < layout.numClasses && c < static_cast<int> (window.probabilities.size()); ++c)
        {
            g.setColour (heatColour (window.probabilities[static_cast<std::size_t> (c)]));
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
        const auto colour = isClassEnabled (c) ? classColour (segment.classIndex) : Colours::dimText.withAlpha (0.4f);
        g.setColour (colour.withAlpha (0.85f));
        g.fillRoundedRectangle (block, 3.0f);
        g.setColour (colour.getPerceivedBrightness() > 0.55f ? juce::Colours::black : juce::Colours::white);
        g.setFont (std::min (layout.fontSize, lane.getHeight() * 0.7f));
        g.drawText (juce::String::fromUTF8 (status_.labels[c].c_str()), block.reduced (3.0f, 0.0f), juce::Justification::centredLeft, true);
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
        const auto colour = known && isClassEnabled (static_cast<std::size_t> (hit.classIndex)) ? classColour (hit.classIndex) : Colours::dimText.withAlpha (0.5f);
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

const timeline::Hit* TimelineView::hitNear (float x) const noexcept
{
    const timeline::Hit* nearest = nullptr;
    float distance = 5.0f; // pixels: a tick is 2-3 wide
    for (const auto& hit : status_.hits)
        if (const float d = std::abs (xOf (hit.seconds) - x); d <= distance)
        {
            distance = d;
            nearest = &hit;
        }
    return status_.perHit ? nearest : nullptr;
}

juce::String TimelineView::describe (const timeline::Hit& hit) const
{
    const bool known = hit.classIndex >= 0 && hit.classIndex < static_cast<int> (status_.labels.size());
    return (known ? juce::String::fromUTF8 (status_.labels[static_cast<std::size_t> (hit.classIndex)].c_str()) : juce::String ("?")) + " at "
           + juce::String (hit.seconds, 3) + " s: velocity " + juce::String (timeline::hitVelocity (hit.levelDb)) + " (" + juce::String (hit.levelDb, 1)
           + " dBFS), confidence " + juce::String (hit.confidence, 2);
}

juce::String TimelineView::getTooltip()
{
    const auto* hit = hitNear (static_cast<float> (getMouseXYRelative().x));
    return hit != nullptr ? describe (*hit) : juce::String();
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
    // The player's position, across ruler, lane and heat map.
    if (! (playhead_ >= 0.0 && playhead_ <= spanSeconds()))
        return;
    const float x = xOf (playhead_);
    g.setColour (juce::Colours::white);
    g.fillRect (juce::Rectangle<float> (x - 1.0f, layout.ruler.getY(), 2.0f, layout.heat.getBottom() - layout.ruler.getY()));
}

} // namespace sonotype::gui
