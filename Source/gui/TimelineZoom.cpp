#include "gui/TimelineZoom.h"

#include <algorithm>
#include <cmath>

namespace sonotype::gui
{

void TimelineZoom::setLength (double seconds) noexcept
{
    length_ = std::max (seconds, 1e-3);
    if (range_.has_value())
        show (*range_);
}

juce::Range<double> TimelineZoom::visible() const noexcept
{
    return range_.value_or (juce::Range<double> (0.0, length_));
}

void TimelineZoom::show (juce::Range<double> range) noexcept
{
    const double span = std::min (range.getLength(), length_);
    if (span >= length_ - 1e-9)
    {
        range_.reset();
        return;
    }
    const double start = juce::jlimit (0.0, length_ - span, range.getStart());
    range_ = juce::Range<double> (start, start + span);
}

void TimelineZoom::zoomAbout (double anchorSeconds, double factor) noexcept
{
    if (! (factor > 0.0) || ! std::isfinite (factor))
        return;
    const auto now = visible();
    const double span = juce::jlimit (std::min (kMinSpanSeconds, length_), length_, now.getLength() / factor);
    // The anchor keeps its fraction of the width: what was under the pointer stays under it.
    const double fraction = now.getLength() > 0.0 ? (anchorSeconds - now.getStart()) / now.getLength() : 0.5;
    const double start = anchorSeconds - juce::jlimit (0.0, 1.0, fraction) * span;
    show ({ start, start + span });
}

void TimelineZoom::scrollBy (double seconds) noexcept
{
    if (range_.has_value())
        show (*range_ + seconds);
}

void TimelineZoom::scrollTo (double startSeconds) noexcept
{
    if (range_.has_value())
        show (range_->movedToStartAt (startSeconds));
}

} // namespace sonotype::gui
