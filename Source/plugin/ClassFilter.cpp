#include "plugin/ClassFilter.h"

namespace sonotype::plugin
{

void ClassFilter::setEnabled (const juce::String& label, bool enabled)
{
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        if (enabled)
            disabled_.erase (label);
        else
            disabled_.insert (label);
    }
    version_.fetch_add (1, std::memory_order_acq_rel);
}

bool ClassFilter::isEnabled (const juce::String& label) const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return disabled_.count (label) == 0;
}

juce::StringArray ClassFilter::disabledLabels() const
{
    juce::StringArray labels;
    const std::lock_guard<std::mutex> lock (mutex_);
    for (const auto& label : disabled_)
        labels.add (label);
    return labels;
}

void ClassFilter::setDisabledLabels (const juce::StringArray& labels)
{
    {
        const std::lock_guard<std::mutex> lock (mutex_);
        disabled_.clear();
        for (const auto& label : labels)
            if (label.isNotEmpty())
                disabled_.insert (label);
    }
    version_.fetch_add (1, std::memory_order_acq_rel);
}

std::vector<bool> ClassFilter::mask (const std::vector<std::string>& labels) const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    std::vector<bool> mask (labels.size(), true);
    for (std::size_t c = 0; c < labels.size(); ++c)
        mask[c] = disabled_.count (juce::String (labels[c])) == 0;
    return mask;
}

const std::vector<bool>& ClassFilter::workerMask (const runtime::AnalysisInfo& info)
{
    const auto version = version_.load (std::memory_order_acquire);
    if (version != workerVersion_ || info.generation != workerGeneration_)
    {
        workerEnabled_ = mask (info.labels);
        workerVersion_ = version;
        workerGeneration_ = info.generation;
    }
    return workerEnabled_;
}

} // namespace sonotype::plugin
