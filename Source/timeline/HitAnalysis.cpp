#include "timeline/HitAnalysis.h"

#include "formats/AudioFileReader.h"
#include "runtime/WindowAnalyzer.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

namespace sonotype::timeline
{

int hitVelocity (float levelDb) noexcept
{
    constexpr float kRangeDb = 48.0f;
    if (! std::isfinite (levelDb))
        return 1;
    return std::clamp (static_cast<int> (std::lround (1.0f + 126.0f * (levelDb + kRangeDb) / kRangeDb)), 1, 127);
}

HitAnalysisResult analyzeHits (const std::string& path, const std::shared_ptr<const engine::Model>& model, const HitAnalysisSettings& settings,
                               const HitListener& onHit)
{
    if (! (settings.clipSeconds >= 0.01 && settings.clipSeconds <= 60.0))
        throw std::invalid_argument ("the clip of a hit must be between 0.01 and 60 seconds");
    if (! (settings.preRollSeconds >= 0.0 && settings.preRollSeconds <= 1.0))
        throw std::invalid_argument ("the pre-roll of a hit must be between 0 and 1 second");
    formats::AudioFileReader reader (path);
    const double rate = reader.sampleRate();
    runtime::WindowAnalyzer analyzer (model, rate, 1.0);
    analyzer.setClassesInPlay (runtime::classesInPlay (analyzer.labels(), settings.classes));
    dsp::OnsetDetector detector (rate, settings.onsets);

    HitAnalysisResult outcome;
    outcome.labels = analyzer.labels();
    outcome.sampleRate = rate;
    outcome.truncationWarning = reader.truncationWarning();
    const auto clipSamples = static_cast<int64_t> (std::ceil (settings.clipSeconds * rate));
    const auto preRoll = static_cast<int64_t> (std::lround (settings.preRollSeconds * rate));
    const auto levelSamples = static_cast<int64_t> (std::ceil (0.05 * rate));

    // Samples from absolute index bufferStart on: what pending hits (and hits not found yet) need.
    std::vector<float> buffer;
    int64_t bufferStart = 0, numRead = 0;
    std::deque<int64_t> pending;
    std::vector<int64_t> found;
    runtime::WindowResult result;
    std::vector<float> clip;

    auto classify = [&] (int64_t onset) {
        const auto from = std::max (bufferStart, onset - preRoll); // (never before: settle() keeps what an onset can need)
        const auto to = std::min (numRead, from + clipSamples);
        clip.assign (buffer.begin() + (from - bufferStart), buffer.begin() + (to - bufferStart));
        analyzer.analyzeClip (clip.data(), clip.size(), result);
        float peak = 0.0f;
        for (int64_t i = onset; i < std::min (numRead, onset + levelSamples); ++i)
        {
            const float x = buffer[static_cast<std::size_t> (i - bufferStart)];
            peak = std::max (peak, std::isfinite (x) ? std::abs (x) : 0.0f);
        }
        Hit hit;
        hit.seconds = static_cast<double> (onset) / rate;
        hit.classIndex = result.topClass;
        hit.confidence = result.confidence;
        hit.levelDb = peak > 0.0f ? 20.0f * std::log10 (peak) : -200.0f;
        hit.probabilities = result.probabilities;
        if (! std::all_of (hit.probabilities.begin(), hit.probabilities.end(), [] (float p) { return std::isfinite (p); }))
            ++outcome.numNonFiniteHits;
        if (onHit)
            onHit (hit, analyzer.embedding());
        outcome.hits.push_back (std::move (hit));
    };
    // Classifies the pending hits whose clip has arrived (all of them at the end), then drops the
    // samples nothing needs any more.
    auto settle = [&] (bool end) {
        for (const auto onset : found)
            pending.push_back (onset);
        found.clear();
        while (! pending.empty() && (end || numRead >= std::max<int64_t> (0, pending.front() - preRoll) + std::max (clipSamples, preRoll + levelSamples)))
        {
            classify (pending.front());
            pending.pop_front();
        }
        // Kept: from the earliest pending clip, or what an onset not yet reported may need.
        const auto keepFrom = pending.empty() ? numRead - detector.latencySamples() - preRoll - 2 * detector.hopSize()
                                              : pending.front() - preRoll;
        const auto drop = std::clamp<int64_t> (keepFrom - bufferStart, 0, static_cast<int64_t> (buffer.size()));
        buffer.erase (buffer.begin(), buffer.begin() + drop);
        bufferStart += drop;
    };

    std::vector<float> block (static_cast<std::size_t> (std::clamp (2.0 * rate, 1024.0, 65536.0)));
    while (const auto count = reader.readMono (block.data(), block.size()))
    {
        for (std::size_t i = 0; i < count; ++i)
            if (! std::isfinite (block[i]))
            {
                block[i] = 0.0f;
                ++outcome.numNonFiniteSamples;
            }
        buffer.insert (buffer.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t> (count));
        numRead += static_cast<int64_t> (count);
        detector.push (block.data(), count, found);
        settle (false);
    }
    detector.finish (found);
    // An onset the detector places a little past the end (the file ends in the middle of an attack) is the end.
    for (auto& onset : found)
        onset = std::min (onset, std::max<int64_t> (numRead - 1, 0));
    settle (true);
    outcome.durationSeconds = static_cast<double> (numRead) / rate;
    return outcome;
}

} // namespace sonotype::timeline
