// "About Sonotype": the name, version, license, website, and the engine's kernels on this CPU, in a
// panel over the editor (the standalone's Options menu and the editor's version tag open it); and
// the version tag itself, discreet in the editor's header. Components: the message thread only.
#pragma once

#include <juce_gui_basics/juce_gui_basics.h>

#include <functional>

namespace sonotype::gui
{

/** The project's version, as CMake's project() gives it (the CLI's --version says the same). */
juce::String versionText();

/** The lines the about box shows under the name: version, what it is, license, website, kernels. */
juce::StringArray aboutLines();

/** The app's icon (Resources/desktop/sonotype.svg), drawn at `size` pixels square. */
juce::Image appIcon (int size);

class AboutBox final : public juce::Component
{
public:
    AboutBox();

    /** Called on a click anywhere on the box, or Escape: the owner hides it. */
    std::function<void()> onDismiss;

    const juce::StringArray& lines() const noexcept { return lines_; }

    void paint (juce::Graphics&) override;
    void mouseUp (const juce::MouseEvent&) override;
    bool keyPressed (const juce::KeyPress&) override;

private:
    juce::StringArray lines_;
    std::unique_ptr<juce::Drawable> icon_;
};

/** "v0.1.0", dim, in the editor's header; a click opens the about box (onClick). */
class VersionTag final : public juce::Component, public juce::SettableTooltipClient
{
public:
    VersionTag();

    std::function<void()> onClick;
    juce::String text() const { return "v" + versionText(); }

    void paint (juce::Graphics&) override;
    void mouseUp (const juce::MouseEvent&) override;
};

} // namespace sonotype::gui
