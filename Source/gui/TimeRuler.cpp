#include "gui/TimeRuler.h"

#include <cmath>
#include <optional>

namespace sonotype::gui
{
namespace
{
    struct Step
    {
        double seconds;
        int minorDivisions; // unlabelled ticks per step, where they are at least kMinorPixels apart
    };
    // 1, 2, 5 x 10^k below a minute (30 s in place of 50 s: a half minute reads better in m:ss),
    // whole minutes above.
    constexpr Step kSteps[] = { { 0.1, 5 }, { 0.2, 4 }, { 0.5, 5 }, { 1.0, 5 }, { 2.0, 4 }, { 5.0, 5 }, { 10.0, 5 }, { 20.0, 4 }, { 30.0, 3 }, { 60.0, 6 }, { 120.0, 4 }, { 300.0, 5 }, { 600.0, 5 }, { 1200.0, 4 }, { 1800.0, 3 }, { 3600.0, 6 }, { 7200.0, 4 } };
    constexpr float kLabelInset = 3.0f, kMinorPixels = 5.0f;
    constexpr int kMaxLabels = 400; // a step that would need more is far too dense to try

    /** The labels of ticks every `step` across `visible`, or nothing if two of them would overlap. */
    std::optional<std::vector<RulerLabel>> labelsAt (double step, int decimals, juce::Range<double> visible, juce::Range<float> pixels, const juce::Font& font, float gap)
    {
        std::vector<RulerLabel> labels;
        const double pixelsPerSecond = pixels.getLength() / std::max (visible.getLength(), 1e-9);
        for (auto k = static_cast<int64_t> (std::ceil (visible.getStart() / step - 1e-9));; ++k)
        {
            const double seconds = static_cast<double> (k) * step;
            if (seconds > visible.getEnd() + 1e-9)
                break;
            if (static_cast<int> (labels.size()) >= kMaxLabels)
                return std::nullopt;
            RulerLabel label;
            label.seconds = seconds;
            label.text = timeText (seconds, decimals);
            const float left = pixels.getStart() + static_cast<float> ((seconds - visible.getStart()) * pixelsPerSecond) + kLabelInset;
            label.x = { left, left + font.getStringWidthFloat (label.text) };
            if (label.x.getEnd() > pixels.getEnd())
                break; // a label cut by the edge says nothing
            if (! labels.empty() && labels.back().x.getEnd() + gap > label.x.getStart())
                return std::nullopt;
            labels.push_back (std::move (label));
        }
        return labels;
    }
} // namespace

juce::String timeText (double seconds, int decimals)
{
    const auto scale = static_cast<int64_t> (std::llround (std::pow (10.0, std::max (decimals, 0))));
    const auto units = static_cast<int64_t> (std::llround (std::max (0.0, seconds) * static_cast<double> (scale)));
    const auto minutes = units / (60 * scale), rest = units % (60 * scale);
    auto text = juce::String (minutes) + ":" + juce::String (rest / scale).paddedLeft ('0', 2);
    if (decimals > 0)
        text << "." << juce::String (rest % scale).paddedLeft ('0', decimals);
    return text;
}

RulerMarks rulerMarks (juce::Range<double> visible, juce::Range<float> pixels, const juce::Font& font, float gap)
{
    RulerMarks marks;
    if (visible.getLength() <= 0.0 || pixels.getLength() <= 0.0f)
        return marks;
    const double pixelsPerSecond = pixels.getLength() / visible.getLength();
    for (const auto& step : kSteps)
    {
        const int decimals = step.seconds < 1.0 ? 1 : 0;
        // Cheap first: a step narrower than the shortest label cannot hold one.
        if (static_cast<float> (step.seconds * pixelsPerSecond) < font.getStringWidthFloat (timeText (0.0, decimals)) + gap)
            continue;
        auto labels = labelsAt (step.seconds, decimals, visible, pixels, font, gap);
        if (! labels.has_value())
            continue;
        marks.stepSeconds = step.seconds;
        marks.decimals = decimals;
        marks.labels = std::move (*labels);
        const double minor = step.seconds / step.minorDivisions;
        marks.minorStepSeconds = static_cast<float> (minor * pixelsPerSecond) >= kMinorPixels ? minor : 0.0;
        return marks;
    }
    return marks;
}

} // namespace sonotype::gui
