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
    void paint (juce::Graphics&) override;
    void resized() override;

private:
    juce::String message_;
    bool isError_ = false;
    juce::TextButton dismiss_ { "x" };
};

} // namespace sonotype::gui
