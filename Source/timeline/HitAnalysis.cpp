#include "timeline/HitAnalysis.h"

#include "formats/AudioFileReader.h"
#include "runtime/HitClassifier.h"
#include "runtime/WindowAnalyzer.h"
#include "timeline/FileBlocks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sonotype::timeline
{

HitAnalysisResult analyzeHits (const std::string& path, const std::shared_ptr<const engine::Model>& model, const HitAnalysisSettings& settings,
                               const HitListener& onHit)
{
    return analyzeHits (path, model, settings, HitAnalysisCallbacks { {}, onHit, {} });
}

HitAnalysisResult analyzeHits (const std::string& path, const std::shared_ptr<const engine::Model>& model, const HitAnalysisSettings& settings,
                               const HitAnalysisCallbacks& callbacks)
{
    const runtime::HitSettings hitSettings { settings.onsets, settings.clipSeconds, settings.preRollSeconds };
    runtime::HitClassifier::checkSettings (hitSettings); // before the file is opened
    formats::AudioFileReader reader (path);
    const double rate = reader.sampleRate();
    runtime::HitClassifier analyzer (model, rate, hitSettings);
    analyzer.setClassesInPlay (runtime::classesInPlay (analyzer.labels(), settings.classes));

    HitAnalysisResult outcome;
    outcome.labels = analyzer.labels();
    outcome.sampleRate = rate;
    outcome.truncationWarning = reader.truncationWarning();
    const auto length = static_cast<double> (std::max<int64_t> (reader.lengthInSamples(), 1));
    if (callbacks.onOpen)
        callbacks.onOpen (static_cast<double> (reader.lengthInSamples()) / rate);
    const auto report = [&] (const runtime::HitResult& found) {
        Hit hit;
        hit.seconds = static_cast<double> (found.onset) / rate;
        hit.classIndex = found.result.topClass;
        hit.confidence = found.result.confidence;
        hit.levelDb = found.levelDb;
        hit.probabilities = found.result.probabilities;
        if (! std::all_of (hit.probabilities.begin(), hit.probabilities.end(), [] (float p) { return std::isfinite (p); }))
            ++outcome.numNonFiniteHits;
        if (callbacks.onHit)
            callbacks.onHit (hit, found.embedding);
        outcome.hits.push_back (std::move (hit));
    };
    int64_t numSamples = 0;
    forEachBlock (reader, [&] (std::span<const float> block) {
        analyzer.push (block.data(), block.size(), report);
        numSamples += static_cast<int64_t> (block.size());
        outcome.stopped = callbacks.onProgress && ! callbacks.onProgress (std::min (static_cast<double> (numSamples) / length, 1.0));
        return ! outcome.stopped;
    });
    if (! outcome.stopped)
        analyzer.finish (report);
    outcome.numNonFiniteSamples = analyzer.numNonFiniteSamples();
    outcome.durationSeconds = static_cast<double> (analyzer.numInputSamples()) / rate;
    return outcome;
}

} // namespace sonotype::timeline
