// What the editor's look says at a glance: one tab lit at a time, whatever the order of clicks;
// taught classes in colour (grey means "out of play" or "no sound"), and the live heat map's top
// class marked without drawing over the other classes' rows.
#include "gui/HistoryView.h"
#include "plugin/ProcessorDriver.h"
#include "support/MessageLoop.h"
#include "support/Screenshots.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
juce::TextButton& tab (juce::Component& editor, const juce::String& text)
{
    for (auto* child : editor.getChildren())
        if (auto* button = dynamic_cast<juce::TextButton*> (child); button != nullptr && button->getButtonText() == text)
            return *button;
    FAIL ("no button " << text);
    throw std::logic_error ("unreachable");
}

/** How far a colour is from grey: its saturation times its brightness. */
float colourfulness (juce::Colour colour)
{
    return colour.getSaturation() * colour.getBrightness();
}
} // namespace

TEST_CASE ("exactly one view tab is lit after any sequence of clicks", "[gui][look]")
{
    TestProcessor processor;
    std::unique_ptr<juce::AudioProcessorEditor> editor (processor.createEditor());
    auto& view = dynamic_cast<gui::SonotypeEditor&> (*editor);
    view.addToDesktop (0);
    view.setVisible (true);
    const juce::StringArray names { "Live", "Files", "Teach" };
    // Every ordered pair of tabs, and back: each click as the mouse gives it (triggerClick runs
    // the button's own click handling on the message loop).
    for (const auto& from : names)
        for (const auto& to : names)
        {
            for (const auto& name : { from, to })
            {
                tab (view, name).triggerClick();
                pumpMessages (40);
                int lit = 0;
                for (const auto& other : names)
                    lit += tab (view, other).getToggleState() ? 1 : 0;
                INFO ("from " << from << " to " << to << ", after clicking " << name);
                CHECK (lit == 1);
                CHECK (tab (view, name).getToggleState());
                CHECK (view.isShowingTeach() == (name == "Teach"));
                if (name != "Teach")
                    CHECK (view.isShowingFiles() == (name == "Files"));
            }
        }
}

TEST_CASE ("taught classes are drawn in colour, distinct from each other; only the no-sound classes are grey", "[gui][look]")
{
    const juce::StringArray kit { "kick", "snare", "hat", "tom", "clap", "ride" };
    for (int i = 0; i < kit.size(); ++i)
    {
        INFO (kit[i]);
        CHECK (colourfulness (gui::classColour (i, kit[i])) > 0.3f);
        for (int j = 0; j < i; ++j)
        {
            const auto a = gui::classColour (i, kit[i]), b = gui::classColour (j, kit[j]);
            const float hueDistance = std::abs (a.getHue() - b.getHue());
            CHECK ((std::min (hueDistance, 1.0f - hueDistance) > 0.04f || std::abs (a.getBrightness() - b.getBrightness()) > 0.15f));
        }
    }
    for (const auto* quiet : { "silence", "noise", "unknown" })
    {
        INFO (quiet);
        CHECK (colourfulness (gui::classColour (0, quiet)) < 0.15f);
    }
    // Past the palette the colours keep coming, not repeating the first ones.
    CHECK (gui::classColour (12, "piece 13") != gui::classColour (0, "piece 1"));
}

TEST_CASE ("the heat map's top-class marks stay in their own rows when the answer changes every window", "[gui][look]")
{
    gui::HistoryView history;
    history.setBounds (0, 0, 600, 240);
    gui::DisplayState state;
    for (const auto* label : { "silence", "speech", "drums", "piano", "guitar", "synth" })
    {
        state.labels.emplace_back (label);
        state.enabled.push_back (true);
    }
    state.generation = 1;
    // The answer jumps between the first and the last row every window; the rows between stay dark.
    std::vector<runtime::WindowResult> results;
    for (int k = 0; k < 100; ++k)
    {
        runtime::WindowResult result;
        result.windowIndex = k;
        result.generation = 1;
        result.startSeconds = 0.25 * k;
        result.endSeconds = result.startSeconds + 1.0;
        result.probabilities.assign (6, 0.02f);
        result.topClass = k % 2 == 0 ? 0 : 5;
        result.probabilities[static_cast<std::size_t> (result.topClass)] = 0.9f;
        results.push_back (result);
    }
    history.update (results, state, 0.25);
    const auto image = history.createComponentSnapshot (history.getLocalBounds());
    saveScreenshot (image, "history-changing.png");
    // The drawing area as HistoryView lays it out: 6 px in, 14% for the labels, 8% for the time axis.
    const float left = 6.0f + 588.0f * 0.14f, top = 6.0f, height = (228.0f - std::max (12.0f, 228.0f * 0.08f));
    const float rowHeight = height / 6.0f;
    int white = 0, marked = 0;
    for (int x = juce::roundToInt (left) + 2; x < 592; ++x)
        for (int row = 0; row < 6; ++row)
            for (int y = juce::roundToInt (top + rowHeight * static_cast<float> (row)) + 4; y < juce::roundToInt (top + rowHeight * static_cast<float> (row + 1)) - 4; ++y)
            {
                const auto pixel = image.getPixelAt (x, y);
                const bool isWhite = pixel.getRed() > 200 && pixel.getGreen() > 200 && pixel.getBlue() > 200;
                (row == 0 || row == 5 ? marked : white) += isWhite ? 1 : 0;
            }
    CHECK (white == 0);  // nothing white crosses the rows between
    CHECK (marked > 50); // while the top class is still marked
}

TEST_CASE ("the Teach view draws a taught kit's classes in three distinct colours, none grey (screenshot)", "[gui][look][teach]")
{
    TestProcessor processor;
    REQUIRE (teachFixtureKit (processor));
    std::unique_ptr<juce::AudioProcessorEditor> editor (processor.createEditor());
    auto& view = dynamic_cast<gui::SonotypeEditor&> (*editor);
    view.addToDesktop (0);
    view.setVisible (true);
    view.showTeach (true);
    pumpMessages (100);
    view.refresh();
    juce::Viewport* viewport = nullptr;
    for (auto* child : view.teachPanel().getChildren())
        if (auto* v = dynamic_cast<juce::Viewport*> (child))
            viewport = v;
    REQUIRE (viewport != nullptr);
    auto* list = viewport->getViewedComponent();
    REQUIRE (list != nullptr);
    saveScreenshot (view, "teach-kit-colours.png");
    // Each class row starts with a stripe of its colour (4 px at the left edge).
    const auto image = list->createComponentSnapshot (list->getLocalBounds());
    std::vector<juce::Colour> stripes;
    for (int y = 0; y < image.getHeight(); ++y)
    {
        const auto pixel = image.getPixelAt (1, y);
        if (colourfulness (pixel) > 0.3f
            && std::none_of (stripes.begin(), stripes.end(), [pixel] (juce::Colour c) { return std::abs (c.getHue() - pixel.getHue()) < 0.02f; }))
            stripes.push_back (pixel);
    }
    CHECK (stripes.size() == 3); // kick, snare, hat: three colours, and no grey among the taught
}
