// The time ruler of the Files view's timeline: where its ticks go and what its labels say, for the
// seconds shown and the pixels they take. Labels are m:ss (m:ss.d below a second a step), one step
// apart: 0.1, 0.2, 0.5, 1, 2, 5, 10, 20 or 30 seconds, or 1, 2, 5, 10, 20, 30 or 60 minutes, the
// smallest step at which every label has its own room (their text widths measured in the ruler's
// font), so labels never overlap at any zoom or width. Pure functions of their arguments.
#pragma once

#include <juce_graphics/juce_graphics.h>

#include <vector>

namespace sonotype::gui
{

/** A time as the Files view writes it: m:ss, or m:ss.d with `decimals` digits after the second
    (rounded first: 59.96 s with one decimal is "1:00.0"). */
juce::String timeText (double seconds, int decimals = 0);

struct RulerLabel
{
    double seconds = 0.0; // the tick it labels
    juce::String text;    // timeText of it
    juce::Range<float> x; // where the text is drawn (just right of its tick)
};

struct RulerMarks
{
    double stepSeconds = 0.0;       // between labelled ticks
    double minorStepSeconds = 0.0;  // between the unlabelled ticks between them (0: none, too dense)
    int decimals = 0;               // of the labels
    std::vector<RulerLabel> labels; // left to right, each inside the pixels given
};

/** The marks for the seconds `visible` drawn across `pixels` (x of its start to x of its end), with
    labels in `font` at least `gap` pixels apart. */
RulerMarks rulerMarks (juce::Range<double> visible, juce::Range<float> pixels, const juce::Font& font, float gap);

} // namespace sonotype::gui
