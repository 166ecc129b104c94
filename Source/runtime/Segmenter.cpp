#include "runtime/Segmenter.h"

#include <algorithm>

namespace sonotype::runtime
{

void Segmenter::add (double startSeconds, double endSeconds, const float* probabilities, int numClasses)
{
    recent_.push_back ({ startSeconds, endSeconds, std::vector<float> (probabilities, probabilities + numClasses) });
    while (recent_.size() > static_cast<std::size_t> (std::max (settings_.confirmWindows, 1)))
        recent_.pop_front();

    const auto events = detector_.update (probabilities, numClasses, settings_, {});
    for (int i = 0; i < events.count; ++i)
    {
        const auto& event = events.items[i];
        if (event.kind == Detection::Kind::stop)
            close();
        else
        {
            // The run that confirmed the class: the last confirmWindows windows, this one included.
            open_ = {};
            open_.classIndex = event.classIndex;
            open_.startSeconds = recent_.front().startSeconds;
            sum_ = 0.0;
            for (const auto& window : recent_)
            {
                sum_ += window.probabilities[static_cast<std::size_t> (event.classIndex)];
                ++open_.numWindows;
            }
            lastEnd_ = endSeconds;
            // Overlapping windows: the segment before ends where this one starts.
            if (! segments_.empty() && segments_.back().endSeconds > open_.startSeconds)
                segments_.back().endSeconds = open_.startSeconds;
            return;
        }
    }
    if (open_.classIndex >= 0)
    {
        sum_ += probabilities[open_.classIndex];
        ++open_.numWindows;
        lastEnd_ = endSeconds;
    }
}

void Segmenter::close()
{
    if (open_.classIndex < 0)
        return;
    open_.endSeconds = lastEnd_;
    open_.confidence = static_cast<float> (sum_ / open_.numWindows);
    segments_.push_back (open_);
    open_ = {};
}

std::vector<Segment> Segmenter::takeSettled()
{
    if (segments_.size() < 2)
        return {};
    std::vector<Segment> settled (segments_.begin(), segments_.end() - 1);
    segments_.erase (segments_.begin(), segments_.end() - 1);
    return settled;
}

std::vector<Segment> Segmenter::finish()
{
    close();
    detector_.reset();
    recent_.clear();
    return segments_;
}

} // namespace sonotype::runtime
