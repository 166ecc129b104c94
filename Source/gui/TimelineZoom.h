// What part of a file the Files view's timeline shows: the whole file (fitted), or a range of it the
// user zoomed to and scrolls. Plain arithmetic on seconds, owned by one TimelineView (message thread).
#pragma once

#include <juce_core/juce_core.h>

#include <optional>

namespace sonotype::gui
{

class TimelineZoom
{
public:
    /** The narrowest range shown (a shorter file is shown whole). */
    static constexpr double kMinSpanSeconds = 1.0;

    /** The file's length (it grows while the file is analysed); a range shown stays inside it. */
    void setLength (double seconds) noexcept;
    double length() const noexcept { return length_; }

    /** The seconds shown from the left edge to the right edge: the whole file when fitted. */
    juce::Range<double> visible() const noexcept;
    bool isFitted() const noexcept { return ! range_.has_value(); }
    /** Shows the whole file again. */
    void fit() noexcept { range_.reset(); }

    /** Narrows the range shown by `factor` (above 1: in; below 1: out), keeping `anchorSeconds`
        where it is on screen (the time under the pointer stays under it), as far as the file's
        ends and kMinSpanSeconds allow. */
    void zoomAbout (double anchorSeconds, double factor) noexcept;
    /** Shows `seconds` later (negative: earlier), keeping the span, within the file. */
    void scrollBy (double seconds) noexcept;
    /** Shows the span from `startSeconds` on, within the file. */
    void scrollTo (double startSeconds) noexcept;

private:
    /** `range` moved inside the file, or none when it holds the whole file. */
    void show (juce::Range<double> range) noexcept;

    double length_ = 1e-3;
    std::optional<juce::Range<double>> range_;
};

} // namespace sonotype::gui
