// The class filter, by label (so it survives a model swap): disabled classes are excluded from the
// top class, MIDI and OSC.
//
// Threading contract
// - Message thread (GUI, state save and restore): setEnabled(), isEnabled(), disabledLabels(),
//   setDisabledLabels().
// - Any thread but the audio thread (the GUI's snapshot): mask().
// - Worker thread (the runtime's result listener): workerMask(), which keeps its own copy of the
//   mask and rebuilds it only when the filter or the model generation changed.
// - The audio thread never calls anything here.
// Shared: the disabled labels behind mutex_ (held only to copy or change them; may block the
// message thread or the worker briefly, never the audio thread); a version number (an atomic) that
// tells the worker when to rebuild its copy.
#pragma once

#include "runtime/AnalysisInfo.h"

#include <juce_core/juce_core.h>

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace sonotype::plugin
{

class ClassFilter
{
public:
    // ----- message thread ------------------------------------------------------------------------
    void setEnabled (const juce::String& label, bool enabled);
    bool isEnabled (const juce::String& label) const;
    /** The disabled labels, sorted (for the saved state). */
    juce::StringArray disabledLabels() const;
    /** Replaces the disabled labels (a restored state); empty ones are ignored. */
    void setDisabledLabels (const juce::StringArray& labels);

    // ----- any thread but the audio thread --------------------------------------------------------
    /** For each label, whether its class is enabled. */
    std::vector<bool> mask (const std::vector<std::string>& labels) const;

    // ----- worker thread -------------------------------------------------------------------------
    /** mask() of the generation's labels, rebuilt only when the filter or the generation changed. */
    const std::vector<bool>& workerMask (const runtime::AnalysisInfo& info);

private:
    mutable std::mutex mutex_; // message thread, GUI readers and the worker, never the audio thread
    std::set<juce::String> disabled_;
    std::atomic<uint64_t> version_ { 0 };

    // The worker's own copy.
    std::vector<bool> workerEnabled_;
    uint64_t workerVersion_ = ~uint64_t {};
    uint64_t workerGeneration_ = 0;
};

} // namespace sonotype::plugin
