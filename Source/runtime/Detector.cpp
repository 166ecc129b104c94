#include "runtime/Detector.h"

namespace sonotype::runtime
{
namespace
{
    bool isEnabled (const std::vector<bool>& enabled, int c) noexcept
    {
        return c >= static_cast<int> (enabled.size()) || enabled[static_cast<std::size_t> (c)];
    }

    void add (Detector::Events& events, Detection::Kind kind, int classIndex, float confidence) noexcept
    {
        events.items[events.count++] = { kind, classIndex, confidence };
    }
} // namespace

int topEnabledClass (const float* probabilities, int numClasses, const std::vector<bool>& enabled) noexcept
{
    int best = -1;
    for (int c = 0; c < numClasses; ++c)
        if (isEnabled (enabled, c) && (best < 0 || probabilities[c] > probabilities[best]))
            best = c;
    return best;
}

Detector::Events Detector::update (const float* probabilities, int numClasses, const DetectorSettings& settings,
                                   const std::vector<bool>& enabled)
{
    Events events;
    if (active_ >= numClasses || (active_ >= 0 && ! isEnabled (enabled, active_)))
        return reset();

    const int top = topEnabledClass (probabilities, numClasses, enabled);
    const float topProbability = top >= 0 ? probabilities[top] : 0.0f;
    const bool faded = active_ >= 0 && probabilities[active_] < settings.threshold - settings.hysteresis;

    // Who would take over: any class above the threshold when nothing is active (or the active one
    // faded out); otherwise only one that clearly leads the active class.
    int contender = -1;
    if (top >= 0 && top != active_ && topProbability >= settings.threshold)
        if (active_ < 0 || faded || topProbability > probabilities[active_] + settings.hysteresis)
            contender = top;

    candidateCount_ = contender >= 0 && contender == candidate_ ? candidateCount_ + 1 : (contender >= 0 ? 1 : 0);
    candidate_ = contender;
    const bool confirmed = contender >= 0 && candidateCount_ >= settings.confirmWindows;

    if (active_ >= 0 && (faded || confirmed))
    {
        add (events, Detection::Kind::stop, active_, probabilities[active_]);
        active_ = -1;
    }
    if (confirmed)
    {
        active_ = contender;
        add (events, Detection::Kind::start, active_, topProbability);
        candidate_ = -1;
        candidateCount_ = 0;
    }
    return events;
}

Detector::Events Detector::reset()
{
    Events events;
    if (active_ >= 0)
        add (events, Detection::Kind::stop, active_, 0.0f);
    active_ = -1;
    candidate_ = -1;
    candidateCount_ = 0;
    return events;
}

} // namespace sonotype::runtime
