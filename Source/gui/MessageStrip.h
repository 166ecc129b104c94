// The editor's message strip: a line of its own under the header, never over the views. One row
// per message (StatusMessages: errors first, then notices, then infos), up to kMaxRows; a row too
// long for the width ends in "..." and shows its whole text as a tooltip; errors and notices have a
// dismiss button. Never a modal dialog, which would block the host.
#pragma once

#include "plugin/StatusMessages.h"

#include <juce_gui_basics/juce_gui_basics.h>

#include <functional>
#include <memory>
#include <vector>

namespace sonotype::gui
{

class MessageStrip final : public juce::Component
{
public:
    static constexpr int kMaxRows = 3;

    MessageStrip();
    ~MessageStrip() override;

    /** The user closed a message (its cause and serial, as StatusMessages::dismiss takes them). */
    std::function<void (plugin::StatusCause cause, uint64_t serial)> onDismiss;

    /** Shows `messages` (in the order given); returns whether the number of rows changed (the
        editor's layout then gives the strip another height). */
    bool show (const std::vector<plugin::StatusMessage>& messages);
    const std::vector<plugin::StatusMessage>& messages() const noexcept { return messages_; }
    /** The rows the strip needs: one even when empty (the layout keeps its line), up to kMaxRows. */
    int rows() const noexcept;
    /** The text of the row at `index` as drawn (its message, and "+N more" on the last row). */
    juce::String rowText (int index) const;
    /** The row components (their bounds and tooltips, for tests). */
    juce::Component* row (int index) const;
    void setFontHeight (float height);
    void resized() override;

private:
    class Row;
    std::vector<plugin::StatusMessage> messages_;
    std::vector<std::unique_ptr<Row>> rows_;
    float fontHeight_ = 15.0f;
};

} // namespace sonotype::gui
