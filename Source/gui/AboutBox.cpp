#include "gui/AboutBox.h"

#include "engine/CpuDispatch.h"
#include "gui/Theme.h"

#include <SonotypeIcon.h>

namespace sonotype::gui
{

namespace
{
    std::unique_ptr<juce::Drawable> iconDrawable()
    {
        return juce::Drawable::createFromImageData (SonotypeIcon::sonotype_svg, static_cast<std::size_t> (SonotypeIcon::sonotype_svgSize));
    }
} // namespace

juce::String versionText()
{
    return SONOTYPE_VERSION;
}

juce::StringArray aboutLines()
{
    const auto& kernels = engine::activeKernelPath();
    return { "Version " + versionText(),
             "Live audio classification with PyTorch-exact inference",
             "License: GNU GPL version 3 or later (GPL-3.0-or-later)",
             SONOTYPE_WEBSITE,
             "Engine kernels on this CPU: " + juce::String (kernels.name) + " (" + juce::String (kernels.description) + ")" };
}

juce::Image appIcon (int size)
{
    juce::Image image (juce::Image::ARGB, size, size, true);
    if (auto icon = iconDrawable())
    {
        juce::Graphics g (image);
        icon->drawWithin (g, juce::Rectangle<float> (0.0f, 0.0f, static_cast<float> (size), static_cast<float> (size)), juce::RectanglePlacement::centred, 1.0f);
    }
    return image;
}

AboutBox::AboutBox() : lines_ (aboutLines()), icon_ (iconDrawable())
{
    setWantsKeyboardFocus (true);
}

void AboutBox::paint (juce::Graphics& g)
{
    auto area = getLocalBounds().toFloat();
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (area, 10.0f);
    g.setColour (Colours::panelEdge);
    g.drawRoundedRectangle (area.reduced (1.0f), 10.0f, 2.0f);
    // Sized from the box's height: the editor scales it with the window.
    const float unit = area.getHeight() / 12.0f;
    area = area.reduced (unit);
    auto top = area.removeFromTop (unit * 3.0f);
    if (icon_ != nullptr)
        icon_->drawWithin (g, top.removeFromLeft (unit * 3.0f), juce::RectanglePlacement::centred, 1.0f);
    top.removeFromLeft (unit * 0.6f);
    g.setColour (Colours::accent);
    g.setFont (juce::Font (unit * 1.6f, juce::Font::bold));
    g.drawText ("Sonotype", top, juce::Justification::centredLeft);
    area.removeFromTop (unit * 0.5f);
    g.setFont (unit * 0.62f);
    for (int i = 0; i < lines_.size(); ++i)
    {
        g.setColour (i == 0 ? Colours::text : Colours::dimText);
        g.drawFittedText (lines_[i], area.removeFromTop (unit).toNearestInt(), juce::Justification::centredLeft, 1, 0.8f);
    }
    g.setColour (Colours::dimText.withAlpha (0.7f));
    g.drawText ("Click or press Escape to close", area, juce::Justification::bottomRight);
}

void AboutBox::mouseUp (const juce::MouseEvent&)
{
    if (onDismiss)
        onDismiss();
}

bool AboutBox::keyPressed (const juce::KeyPress& key)
{
    if (key != juce::KeyPress::escapeKey)
        return false;
    if (onDismiss)
        onDismiss();
    return true;
}

VersionTag::VersionTag()
{
    setMouseCursor (juce::MouseCursor::PointingHandCursor);
    setRepaintsOnMouseActivity (true);
    setTooltip ("About Sonotype: version, license, website");
}

void VersionTag::paint (juce::Graphics& g)
{
    g.setColour (isMouseOver() ? Colours::text : Colours::dimText);
    g.setFont (static_cast<float> (getHeight()) * 0.8f);
    g.drawText (text(), getLocalBounds(), juce::Justification::centredLeft);
}

void VersionTag::mouseUp (const juce::MouseEvent&)
{
    if (onClick)
        onClick();
}

} // namespace sonotype::gui
