#include "gui/MessageStrip.h"

#include "gui/Theme.h"

#include <algorithm>

namespace sonotype::gui
{

namespace
{
    juce::Colour colourOf (plugin::StatusKind kind)
    {
        switch (kind)
        {
            case plugin::StatusKind::error: return Colours::error;
            case plugin::StatusKind::notice: return Colours::warning;
            case plugin::StatusKind::info: return Colours::accent;
        }
        return Colours::accent;
    }
} // namespace

/** One message: a marker of its kind's colour, its text on one line, and a dismiss button. */
class MessageStrip::Row final : public juce::Component, public juce::SettableTooltipClient
{
public:
    explicit Row (MessageStrip& owner) : owner_ (owner)
    {
        dismiss_.setTooltip ("Dismiss");
        dismiss_.onClick = [this] {
            if (owner_.onDismiss)
                owner_.onDismiss (message_.cause, message_.serial);
        };
        addChildComponent (dismiss_);
    }

    void set (const plugin::StatusMessage& message, const juce::String& text, const juce::String& tooltip)
    {
        message_ = message;
        text_ = text;
        setTooltip (tooltip);
        dismiss_.setVisible (message.kind != plugin::StatusKind::info); // (an info fades by itself)
        repaint();
    }

    const juce::String& text() const noexcept { return text_; }

    void paint (juce::Graphics& g) override
    {
        const auto colour = colourOf (message_.kind);
        auto area = getLocalBounds().toFloat().reduced (0.0f, 1.0f);
        g.setColour (colour.withAlpha (0.14f));
        g.fillRoundedRectangle (area, 4.0f);
        g.setColour (colour);
        g.fillRoundedRectangle (area.removeFromLeft (4.0f), 2.0f);
        g.setColour (message_.kind == plugin::StatusKind::error ? Colours::error.brighter (0.3f) : Colours::text);
        g.setFont (juce::Font (owner_.fontHeight_));
        auto textArea = getLocalBounds().withTrimmedLeft (12);
        if (dismiss_.isVisible())
            textArea.setRight (dismiss_.getX() - 4);
        // One line: a message too long for it ends in "..." (the tooltip has it whole).
        g.drawFittedText (text_, textArea, juce::Justification::centredLeft, 1, 1.0f);
    }

    void resized() override
    {
        const auto side = getHeight();
        dismiss_.setBounds (getLocalBounds().removeFromRight (side).reduced (side / 6));
    }

private:
    MessageStrip& owner_;
    plugin::StatusMessage message_;
    juce::String text_;
    juce::TextButton dismiss_ { "x" };
};

MessageStrip::MessageStrip() = default;
MessageStrip::~MessageStrip() = default;

bool MessageStrip::show (const std::vector<plugin::StatusMessage>& messages)
{
    const auto same = [] (const plugin::StatusMessage& a, const plugin::StatusMessage& b) { return a.serial == b.serial && a.cause == b.cause; };
    if (std::equal (messages.begin(), messages.end(), messages_.begin(), messages_.end(), same))
        return false;
    const auto before = rows();
    messages_ = messages;
    const auto shown = std::min<std::size_t> (messages_.size(), kMaxRows);
    while (rows_.size() < shown)
    {
        rows_.push_back (std::make_unique<Row> (*this));
        addAndMakeVisible (*rows_.back());
    }
    rows_.resize (shown);
    for (std::size_t i = 0; i < shown; ++i)
    {
        const auto& message = messages_[i];
        auto tooltip = message.text;
        if (i + 1 == shown && messages_.size() > shown)
            for (auto more = shown; more < messages_.size(); ++more)
                tooltip << "\n"
                        << messages_[more].text;
        rows_[i]->set (message, rowText (static_cast<int> (i)), tooltip);
    }
    resized();
    return rows() != before;
}

int MessageStrip::rows() const noexcept
{
    return std::clamp (static_cast<int> (messages_.size()), 1, kMaxRows);
}

juce::String MessageStrip::rowText (int index) const
{
    if (index < 0 || index >= std::min (static_cast<int> (messages_.size()), kMaxRows))
        return {};
    auto text = messages_[static_cast<std::size_t> (index)].text;
    const auto hidden = static_cast<int> (messages_.size()) - kMaxRows;
    if (index == kMaxRows - 1 && hidden > 0)
        text = "(+" + juce::String (hidden) + " more) " + text;
    return text;
}

juce::Component* MessageStrip::row (int index) const
{
    return index >= 0 && index < static_cast<int> (rows_.size()) ? rows_[static_cast<std::size_t> (index)].get() : nullptr;
}

void MessageStrip::setFontHeight (float height)
{
    fontHeight_ = height;
    for (auto& r : rows_)
        r->repaint();
}

void MessageStrip::resized()
{
    const auto rowHeight = getHeight() / rows();
    auto area = getLocalBounds();
    for (auto& r : rows_)
        r->setBounds (area.removeFromTop (rowHeight));
}

} // namespace sonotype::gui
