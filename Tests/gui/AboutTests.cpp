// The version where producers find it: discreet in the editor's header (the plugin's editor too),
// and the about box it opens (the standalone's Options menu opens the same one) with the name,
// version, license, website and the engine's kernels on this CPU. Writes the screenshot
// build/screenshots/about.png.
#include "engine/CpuDispatch.h"
#include "gui/Theme.h"
#include "plugin/ProcessorDriver.h"
#include "support/MessageLoop.h"
#include "support/Screenshots.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** Pixels of `image` within `area` within `tolerance` of `colour` in each channel. */
int countPixels (const juce::Image& image, juce::Rectangle<int> area, juce::Colour colour, int tolerance)
{
    int count = 0;
    for (int y = area.getY(); y < area.getBottom(); ++y)
        for (int x = area.getX(); x < area.getRight(); ++x)
        {
            const auto pixel = image.getPixelAt (x, y);
            if (std::abs (pixel.getRed() - colour.getRed()) <= tolerance && std::abs (pixel.getGreen() - colour.getGreen()) <= tolerance
                && std::abs (pixel.getBlue() - colour.getBlue()) <= tolerance)
                ++count;
        }
    return count;
}

juce::MouseEvent clickOn (juce::Component& component)
{
    const auto now = juce::Time::getCurrentTime();
    const auto centre = component.getLocalBounds().getCentre().toFloat();
    return juce::MouseEvent (juce::Desktop::getInstance().getMainMouseSource(), centre, {}, juce::MouseInputSource::defaultPressure,
                             juce::MouseInputSource::defaultOrientation, juce::MouseInputSource::defaultRotation, juce::MouseInputSource::defaultTiltX,
                             juce::MouseInputSource::defaultTiltY, &component, &component, now, centre, now, 1, false);
}
} // namespace

TEST_CASE ("the editor shows the version, and its about box the name, version, license, website and kernels", "[gui][about]")
{
    TestProcessor processor;
    std::unique_ptr<juce::AudioProcessorEditor> editor (processor.createEditor());
    auto& view = dynamic_cast<gui::SonotypeEditor&> (*editor);
    view.addToDesktop (0);
    view.setVisible (true);
    pumpMessages (100);

    // The tag in the header: the project's version (CMake's, the CLI's --version's), drawn there.
    auto& tag = view.versionTag();
    CHECK (tag.text() == juce::String ("v") + SONOTYPE_VERSION);
    CHECK (tag.isShowing());
    CHECK (view.getLocalBounds().removeFromTop (juce::roundToInt (48.0f * view.getWidth() / gui::SonotypeEditor::kBaseWidth)).contains (tag.getBounds()));
    CHECK (tag.getTooltip().contains ("About Sonotype"));
    const auto header = view.createComponentSnapshot (view.getLocalBounds());
    CHECK (countPixels (header, tag.getBounds(), gui::Colours::dimText, 40) > 20); // its text, not an empty box
    CHECK (view.aboutBox() == nullptr);

    tag.mouseUp (clickOn (tag));
    pumpMessages (50);
    auto* about = view.aboutBox();
    REQUIRE (about != nullptr);
    CHECK (about->isShowing());
    CHECK (view.getLocalBounds().contains (about->getBounds()));
    const auto text = about->lines().joinIntoString ("\n");
    CHECK (text.contains ("Version " SONOTYPE_VERSION));
    CHECK (text.contains ("GPL-3.0-or-later"));
    CHECK (text.contains (SONOTYPE_WEBSITE));
    CHECK (text.contains ("Engine kernels on this CPU: " + juce::String (engine::activeKernelPath().name)));
    const auto shot = view.createComponentSnapshot (view.getLocalBounds());
    saveScreenshot (shot, "about.png");
    // Drawn over the editor: the box's panel, its name in the accent colour, its lines in text colour.
    CHECK (countPixels (shot, about->getBounds(), gui::Colours::panel, 2) > about->getWidth() * about->getHeight() / 3);
    CHECK (countPixels (shot, about->getBounds(), gui::Colours::accent, 30) > 200);
    CHECK (countPixels (shot, about->getBounds(), gui::Colours::text, 40) > 50);

    // Escape closes it (after the key's handling), and the tag opens it again.
    about->keyPressed (juce::KeyPress (juce::KeyPress::escapeKey));
    pumpMessages (50);
    CHECK (view.aboutBox() == nullptr);
    view.showAbout (true);
    REQUIRE (view.aboutBox() != nullptr);
    view.aboutBox()->mouseUp (clickOn (*view.aboutBox()));
    pumpMessages (50);
    CHECK (view.aboutBox() == nullptr);
}
