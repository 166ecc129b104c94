#include "plugin/StatusMessages.h"

#include <algorithm>

namespace sonotype::plugin
{

namespace
{
    int rank (StatusKind kind)
    {
        switch (kind)
        {
            case StatusKind::error: return 0;
            case StatusKind::notice: return 1;
            case StatusKind::info: return 2;
        }
        return 2;
    }
} // namespace

StatusMessages::StatusMessages (Clock clock) : clock_ (std::move (clock))
{
    if (! clock_)
        clock_ = [] { return juce::Time::getMillisecondCounterHiRes() / 1000.0; };
}

void StatusMessages::post (StatusCause cause, juce::String text, StatusKind kind)
{
    const auto now = clock_();
    const std::lock_guard<std::mutex> lock (mutex_);
    auto& slot = slots_[static_cast<std::size_t> (cause)];
    if (text.isEmpty() && slot.text.isEmpty())
        return; // nothing said, nothing to clear
    slot.cause = cause;
    slot.kind = kind;
    slot.text = std::move (text);
    slot.serial = ++serial_;
    slot.postedAt = now;
    ++version_;
}

void StatusMessages::clearAll()
{
    const std::lock_guard<std::mutex> lock (mutex_);
    for (auto& slot : slots_)
        slot.text.clear();
    ++version_;
}

void StatusMessages::dismiss (StatusCause cause, uint64_t serial)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    auto& slot = slots_[static_cast<std::size_t> (cause)];
    if (slot.serial != serial || slot.text.isEmpty())
        return; // a newer message of the cause came meanwhile: the user has not read it yet
    slot.text.clear();
    ++version_;
}

std::vector<StatusMessage> StatusMessages::current() const
{
    const auto now = clock_();
    std::vector<StatusMessage> messages;
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        for (const auto& slot : slots_)
            if (slot.text.isNotEmpty() && (slot.kind != StatusKind::info || now - slot.postedAt < kInfoSeconds))
                messages.push_back (slot);
    }
    std::sort (messages.begin(), messages.end(), [] (const StatusMessage& a, const StatusMessage& b) {
        if (rank (a.kind) != rank (b.kind))
            return rank (a.kind) < rank (b.kind);
        return a.serial > b.serial;
    });
    return messages;
}

StatusMessage StatusMessages::newest() const
{
    StatusMessage newest;
    for (const auto& message : current())
        if (message.serial > newest.serial)
            newest = message;
    return newest;
}

uint64_t StatusMessages::version() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return version_;
}

} // namespace sonotype::plugin
