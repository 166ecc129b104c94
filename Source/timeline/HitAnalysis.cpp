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
    const auto report = [&] (const runtime::HitResult& found) {
        Hit hit;
        hit.seconds = static_cast<double> (found.onset) / rate;
        hit.classIndex = found.result.topClass;
        hit.confidence = found.result.confidence;
        hit.levelDb = found.levelDb;
        hit.probabilities = found.result.probabilities;
        if (! std::all_of (hit.probabilities.begin(), hit.probabilities.end(), [] (float p) { return std::isfinite (p); }))
            ++outcome.numNonFiniteHits;
        if (onHit)
            onHit (hit, found.embedding);
        outcome.hits.push_back (std::move (hit));
    };
    forEachBlock (reader, [&] (std::span<const float> block) {
        analyzer.push (block.data(), block.size(), report);
        return true;
    });
    analyzer.finish (report);
    outcome.numNonFiniteSamples = analyzer.numNonFiniteSamples();
    outcome.durationSeconds = static_cast<double> (analyzer.numInputSamples()) / rate;
    return outcome;
}

} // namespace sonotype::timeline
