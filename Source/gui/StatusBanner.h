// The inline message panel: errors (bad model file, failed restore, OSC) and notices. Never a
// modal dialog, which would block the host.
#pragma once

#include <juce_gui_basics/juce_gui_basics.h>

#include <functional>

namespace sonotype::gui
{

class StatusBanner final : public juce::Component
{
public:
    StatusBanner();
    std::function<void()> onDismiss;

    void show (const juce::String& message, bool isError);
    const juce::String& message() const noexcept { return message_; }
    /** The height that shows the whole message, wrapped, at `width` (text of `fontHeight`). */
    int heightForWidth (int width, float fontHeight) const;
    void setFontHeight (float height) noexcept { fontHeight_ = height; }
    void paint (juce::Graphics&) override;
    void resized() override;

private:
    juce::String message_;
    bool isError_ = false;
    float fontHeight_ = 15.0f;
    juce::TextLayout layoutFor (float width) const;
    juce::TextButton dismiss_ { "x" };
};

} // namespace sonotype::gui
