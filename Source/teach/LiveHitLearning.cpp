#include "teach/LiveHitLearning.h"

#include <algorithm>
#include <cmath>

namespace sonotype::teach
{
namespace
{
    constexpr int kSize = dsp::HitSignature::kSize;

    float floorOf (int dimension) noexcept
    {
        if (dimension <= dsp::HitSignature::kAir)
            return kLiveBandFloorDb;
        return dimension < kSize - 1 ? kLiveSegmentFloorDb : kLiveLevelFloorDb;
    }

    /** The pooled within-class standard deviation of each dimension, at least its floor. */
    std::vector<float> scalesOf (const runtime::LiveHitKit& kit, int numClasses)
    {
        std::vector<double> sums (static_cast<std::size_t> (numClasses * kSize), 0.0), squares (sums.size(), 0.0);
        std::vector<int> counts (static_cast<std::size_t> (numClasses), 0);
        for (int e = 0; e < kit.numExamples(); ++e)
        {
            const auto c = static_cast<std::size_t> (kit.labels[static_cast<std::size_t> (e)]);
            ++counts[c];
            for (int d = 0; d < kSize; ++d)
            {
                const double x = kit.signatures[static_cast<std::size_t> (e * kSize + d)];
                sums[c * kSize + static_cast<std::size_t> (d)] += x;
                squares[c * kSize + static_cast<std::size_t> (d)] += x * x;
            }
        }
        const int used = static_cast<int> (std::count_if (counts.begin(), counts.end(), [] (int n) { return n > 0; }));
        const int freedom = kit.numExamples() - used;
        std::vector<float> scales (kSize);
        for (int d = 0; d < kSize; ++d)
        {
            double within = 0.0;
            for (std::size_t c = 0; c < counts.size(); ++c)
                if (counts[c] > 0)
                {
                    const auto i = c * kSize + static_cast<std::size_t> (d);
                    within += squares[i] - sums[i] * sums[i] / counts[c];
                }
            const double sd = freedom > 0 ? std::sqrt (std::max (0.0, within) / freedom) : 0.0;
            scales[static_cast<std::size_t> (d)] = std::max (static_cast<float> (sd), floorOf (d));
        }
        return scales;
    }

    /** The scaled RMS distance between examples a and b. */
    float distance (const runtime::LiveHitKit& kit, int a, int b) noexcept
    {
        float sum = 0.0f;
        for (int d = 0; d < kSize; ++d)
        {
            const float difference = (kit.signatures[static_cast<std::size_t> (a * kSize + d)] - kit.signatures[static_cast<std::size_t> (b * kSize + d)])
                                     / kit.scales[static_cast<std::size_t> (d)];
            sum += difference * difference;
        }
        return std::sqrt (sum / kSize);
    }
} // namespace

std::optional<runtime::LiveHitKit> learnLiveHits (const std::vector<TaughtClass>& classes, double afterSeconds)
{
    runtime::LiveHitKit kit;
    kit.afterSeconds = afterSeconds;
    for (std::size_t c = 0; c < classes.size(); ++c)
        for (const auto& example : classes[c].examples)
            if (example.signature.size() == static_cast<std::size_t> (kSize) && kit.numExamples() < runtime::LiveHitKit::kMaxExamples)
            {
                kit.signatures.insert (kit.signatures.end(), example.signature.begin(), example.signature.end());
                kit.labels.push_back (static_cast<int> (c));
            }
    if (kit.labels.empty())
        return std::nullopt;
    // A number some example has not (the air band, of a sound kept at 16 kHz) is left out: 0 for
    // every example, and a scale that makes any difference in it nothing.
    std::vector<bool> missing (kSize, false);
    for (std::size_t i = 0; i < kit.signatures.size(); ++i)
        missing[i % kSize] = missing[i % kSize] || std::isnan (kit.signatures[i]);
    for (std::size_t i = 0; i < kit.signatures.size(); ++i)
        if (missing[i % kSize])
            kit.signatures[i] = 0.0f;
    const int numClasses = static_cast<int> (classes.size());
    kit.scales = scalesOf (kit, numClasses);
    for (int d = 0; d < kSize; ++d)
        if (missing[static_cast<std::size_t> (d)])
            kit.scales[static_cast<std::size_t> (d)] = kLiveIgnoredScale;
    // The gate: how far an example lies from its own class's nearest other example, at the 90th
    // percentile, times the factor (a new hit of a piece lies about as far as its examples do).
    std::vector<float> nearest;
    for (int a = 0; a < kit.numExamples(); ++a)
    {
        float best = INFINITY;
        for (int b = 0; b < kit.numExamples(); ++b)
            if (b != a && kit.labels[static_cast<std::size_t> (b)] == kit.labels[static_cast<std::size_t> (a)])
                best = std::min (best, distance (kit, a, b));
        if (std::isfinite (best))
            nearest.push_back (best);
    }
    float spread = 0.0f;
    if (! nearest.empty())
    {
        std::sort (nearest.begin(), nearest.end());
        spread = nearest[static_cast<std::size_t> (std::floor (0.9 * static_cast<double> (nearest.size() - 1)))];
    }
    kit.gate = std::max (kLiveGateFactor * spread, kLiveMinGate);
    kit.check (numClasses + 1);
    return kit;
}

LiveHitCheck leaveOneOut (const runtime::LiveHitKit& kit, int numClasses)
{
    LiveHitCheck check;
    for (int a = 0; a < kit.numExamples(); ++a)
    {
        std::vector<float> nearest (static_cast<std::size_t> (numClasses), INFINITY);
        for (int b = 0; b < kit.numExamples(); ++b)
            if (b != a)
            {
                auto& best = nearest[static_cast<std::size_t> (kit.labels[static_cast<std::size_t> (b)])];
                best = std::min (best, distance (kit, a, b));
            }
        const auto winner = std::min_element (nearest.begin(), nearest.end());
        ++check.total;
        check.correct += std::isfinite (*winner) && *winner <= kit.gate && winner - nearest.begin() == kit.labels[static_cast<std::size_t> (a)];
    }
    return check;
}

} // namespace sonotype::teach
