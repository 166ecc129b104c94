#include "plugin/LiveHistory.h"

#include <utility>

namespace sonotype::plugin
{

void LiveHistory::add (const runtime::WindowResult& result, const runtime::AnalysisInfo& info, float threshold)
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (info.labels != labels_)
    {
        // Other classes: the old segments' class numbers would name the wrong ones.
        labels_ = info.labels;
        closed_.clear();
        segmenter_ = runtime::Segmenter ({ threshold });
        threshold_ = threshold;
        offset_ = 0.0;
        lastStart_ = -1.0;
        lastEnd_ = 0.0;
    }
    const bool restarted = result.startSeconds < lastStart_; // a new stream (prepareToPlay): its time starts at 0 again
    if (restarted)
        offset_ += lastEnd_;
    if (std::exchange (startAgain_, false))
        offset_ = -result.startSeconds; // cleared: this window is the session's first
    if (restarted || threshold != threshold_)
    {
        for (const auto& segment : segmenter_.finish())
            closed_.push_back (segment);
        runtime::DetectorSettings settings;
        settings.threshold = threshold;
        segmenter_ = runtime::Segmenter (settings);
        threshold_ = threshold;
    }
    lastStart_ = result.startSeconds;
    lastEnd_ = result.endSeconds;
    segmenter_.add (offset_ + result.startSeconds, offset_ + result.endSeconds, result.probabilities.data(),
                    static_cast<int> (result.probabilities.size()));
    for (const auto& segment : segmenter_.takeSettled())
        closed_.push_back (segment);
    while (closed_.size() > kMaxSegments)
        closed_.pop_front();
}

LiveHistory::Snapshot LiveHistory::snapshot() const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    Snapshot snapshot;
    snapshot.labels = labels_;
    snapshot.segments.assign (closed_.begin(), closed_.end());
    auto open = segmenter_; // finishing a copy closes the open segment at the newest window
    for (const auto& segment : open.finish())
        snapshot.segments.push_back (segment);
    snapshot.analyzedSeconds = startAgain_ || lastStart_ < 0.0 ? 0.0 : offset_ + lastEnd_;
    return snapshot;
}

void LiveHistory::clear()
{
    const std::lock_guard<std::mutex> lock (mutex_);
    closed_.clear();
    segmenter_ = runtime::Segmenter ({ threshold_ });
    startAgain_ = true;
}

} // namespace sonotype::plugin
