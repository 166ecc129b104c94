#include "plugin/OscOutput.h"

namespace sonotype::plugin
{

juce::String OscOutput::setTarget (const Target& target)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    target_ = target;
    if (connected_)
        sender_.disconnect();
    connected_ = false;
    if (! target.enabled)
        return {};
    if (target.port < 1 || target.port > 65535)
        return "OSC port must be between 1 and 65535";
    if (target.host.trim().isEmpty())
        return "OSC host is empty";
    connected_ = sender_.connect (target.host.trim(), target.port);
    return connected_ ? juce::String() : "Could not open an OSC connection to " + target.host + ":" + juce::String (target.port);
}

OscOutput::Target OscOutput::target() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    return target_;
}

void OscOutput::send (const runtime::WindowResult& result, const runtime::AnalysisInfo& info, int topClass, const std::vector<bool>& enabled)
{
    const std::unique_lock<std::mutex> lock (mutex_, std::try_to_lock);
    if (! lock.owns_lock() || ! connected_)
        return;
    if (topClass >= 0 && topClass < static_cast<int> (info.labels.size()))
    {
        juce::OSCMessage top ("/sonotype/top");
        top.addString (juce::String (info.labels[static_cast<std::size_t> (topClass)]));
        top.addFloat32 (result.probabilities[static_cast<std::size_t> (topClass)]);
        sender_.send (top);
    }
    juce::OSCMessage probabilities ("/sonotype/probs");
    for (std::size_t c = 0; c < result.probabilities.size(); ++c)
        probabilities.addFloat32 (c < enabled.size() && ! enabled[c] ? 0.0f : result.probabilities[c]);
    sender_.send (probabilities);
}

} // namespace sonotype::plugin
