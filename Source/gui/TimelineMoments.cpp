// TimelineView's file at a time: the file's moments (each stretch between window edges with the mean
// of the windows that cover it, as segments have it; the heat map draws them), the moment at a time
// (per hit, the hit at or before it), and the read-out beside the pointer that says it.
#include "gui/TimelineView.h"

#include "gui/Theme.h"
#include "runtime/Detector.h"
#include "timeline/MidiNotes.h"
#include "timeline/TimelineSegments.h"

#include <algorithm>
#include <cmath>

namespace sonotype::gui
{

void TimelineView::buildMoments()
{
    // Every stretch between two consecutive window edges that a window covers, with the mean of
    // those windows: the segments' own first step (timeline::windowPieces), once per new windows.
    moments_.clear();
    const std::size_t numClasses = windows_.empty() ? 0 : windows_.front().probabilities.size();
    for (const auto& piece : timeline::windowPieces (windows_, numClasses))
        if (piece.covered)
            moments_.push_back ({ piece.startSeconds, piece.endSeconds, std::vector<float> (piece.mean.begin(), piece.mean.end()) });
}

std::optional<FileMoment> TimelineView::momentAt (double seconds) const
{
    if (status_.file == juce::File() || status_.state == plugin::FileState::failed)
        return std::nullopt;
    FileMoment moment;
    moment.seconds = seconds;
    if (status_.perHit)
    {
        // The hit at or just before: what was heard last at that time.
        const auto after = std::upper_bound (status_.hits.begin(), status_.hits.end(), seconds + 1e-9,
                                             [] (double t, const timeline::Hit& hit) { return t < hit.seconds; });
        if (after == status_.hits.begin())
            return std::nullopt;
        moment.hit = *std::prev (after);
        moment.probabilities = moment.hit->probabilities;
        moment.classIndex = moment.hit->classIndex;
        moment.confidence = moment.hit->confidence;
        return moment;
    }
    // The stretch that holds `seconds` (buildMoments), or at the file's very end the last one.
    const bool done = status_.state == plugin::FileState::done;
    const double hop = status_.hopSeconds > 0.0 ? status_.hopSeconds : 0.25;
    if (moments_.empty() || windows_.empty() || (! done && seconds >= windows_.back().startSeconds + hop))
        return std::nullopt; // not analysed that far yet: windows still to come cover it
    auto at = std::upper_bound (moments_.begin(), moments_.end(), seconds, [] (double t, const plugin::TimelineWindow& m) { return t < m.endSeconds; });
    if (at == moments_.end())
        at = std::prev (at);
    else if (at->startSeconds > seconds && at != moments_.begin())
        at = std::prev (at); // a stretch no window covers: the one before it
    moment.probabilities = at->probabilities;
    moment.classIndex = runtime::topEnabledClass (moment.probabilities.data(), static_cast<int> (moment.probabilities.size()), enabled_);
    if (moment.classIndex >= 0)
        moment.confidence = moment.probabilities[static_cast<std::size_t> (moment.classIndex)];
    return moment;
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
           + timeText (hit.seconds, 2) + ": velocity " + juce::String (timeline::hitVelocity (hit.levelDb)) + " (" + juce::String (hit.levelDb, 1)
           + " dBFS), confidence " + juce::String (hit.confidence, 2);
}

juce::StringArray TimelineView::readoutLines() const
{
    // The time; the top class and its confidence ("?" below the threshold, as the top panel says);
    // per hit, the hit's own time and velocity.
    if (! hover_.has_value())
        return {};
    const double seconds = focusSeconds();
    juce::StringArray lines { timeText (seconds, 1) };
    const auto moment = momentAt (seconds);
    if (! moment.has_value())
    {
        lines.add (status_.perHit && status_.state == plugin::FileState::done ? "no hit yet" : "not analyzed yet");
        return lines;
    }
    const bool known = moment->classIndex >= 0 && moment->classIndex < static_cast<int> (status_.labels.size());
    const auto label = known ? juce::String::fromUTF8 (status_.labels[static_cast<std::size_t> (moment->classIndex)].c_str()).toUpperCase()
                             : juce::String ("UNKNOWN");
    const bool uncertain = known && ! moment->hit.has_value() && moment->confidence < threshold_;
    lines.add (label + (uncertain ? "? " : " ") + juce::String (juce::roundToInt (moment->confidence * 100.0f)) + "%");
    if (moment->hit.has_value())
        lines.add ("hit at " + timeText (moment->hit->seconds, 2) + ", velocity " + juce::String (timeline::hitVelocity (moment->hit->levelDb)));
    return lines;
}

juce::Font TimelineView::readoutFont() const
{
    return juce::Font (std::max (12.0f, static_cast<float> (getHeight()) * 0.06f));
}

juce::Rectangle<float> TimelineView::readoutBounds() const
{
    // Beside the pointer, above it where there is room, flipped to its left near the right edge,
    // and always inside the view.
    const auto lines = readoutLines();
    if (lines.isEmpty())
        return {};
    const auto font = readoutFont();
    float width = 0.0f;
    for (const auto& line : lines)
        width = std::max (width, juce::Font (font).boldened().getStringWidthFloat (line));
    const float pad = font.getHeight() * 0.4f;
    const juce::Point<float> size (width + 2.0f * pad, font.getHeight() * 1.15f * static_cast<float> (lines.size()) + 2.0f * pad);
    const auto inside = getLocalBounds().toFloat().reduced (2.0f);
    const float gap = 12.0f;
    float x = hover_->x + gap;
    if (x + size.x > inside.getRight())
        x = hover_->x - gap - size.x;
    float y = hover_->y - gap - size.y;
    if (y < inside.getY())
        y = hover_->y + 2.0f * gap;
    x = juce::jlimit (inside.getX(), std::max (inside.getX(), inside.getRight() - size.x), x);
    y = juce::jlimit (inside.getY(), std::max (inside.getY(), inside.getBottom() - size.y), y);
    return { x, y, std::min (size.x, inside.getWidth()), std::min (size.y, inside.getHeight()) };
}

void TimelineView::drawReadout (juce::Graphics& g) const
{
    const auto box = readoutBounds();
    if (box.isEmpty())
        return;
    const auto lines = readoutLines();
    const auto moment = momentAt (focusSeconds());
    g.setColour (Colours::background.withAlpha (0.92f));
    g.fillRoundedRectangle (box, 4.0f);
    g.setColour (Colours::panelEdge.brighter (0.4f));
    g.drawRoundedRectangle (box, 4.0f, 1.0f);
    const auto font = readoutFont();
    const float pad = font.getHeight() * 0.4f;
    auto area = box.reduced (pad);
    for (int i = 0; i < lines.size(); ++i)
    {
        // The time in white, the class in its colour, the rest dimmed.
        const bool classLine = i == 1 && moment.has_value() && moment->classIndex >= 0;
        g.setColour (i == 0 ? Colours::text : classLine ? colourOf (moment->classIndex).brighter (0.3f)
                                                        : Colours::dimText);
        g.setFont (i <= 1 ? juce::Font (font).boldened() : font);
        g.drawText (lines[i], area.removeFromTop (font.getHeight() * 1.15f), juce::Justification::centredLeft, false);
    }
}

} // namespace sonotype::gui
