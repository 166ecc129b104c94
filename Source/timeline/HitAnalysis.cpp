#include "timeline/HitAnalysis.h"

#include "formats/AudioFileReader.h"
#include "runtime/Detector.h"
#include "runtime/HitClassifier.h"
#include "runtime/LiveHits.h"
#include "runtime/WindowAnalyzer.h"
#include "timeline/FileBlocks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sonotype::timeline
{

namespace
{
    /** The live mode's hits (runtime::LiveHits) over the file: an unknown hit is listed as
        "unknown" where the model has that label, and left out where it has not. */
    HitAnalysisResult analyzeLive (formats::AudioFileReader& reader, const engine::Model& model, const HitAnalysisSettings& settings,
                                   const HitAnalysisCallbacks& callbacks)
    {
        const auto classifier = runtime::liveHitClassifierFor (model);
        if (classifier == nullptr)
            throw std::invalid_argument ("this model has no live hit kit: the live per-hit mode needs a model taught from hits "
                                         "(sonotype learn --hits); use the exact mode (--response exact)");
        const double rate = reader.sampleRate();
        runtime::LiveHits live (classifier, rate, settings.onsets, classifier->kit().afterSeconds);
        HitAnalysisResult outcome;
        outcome.labels = runtime::classLabels (model);
        outcome.sampleRate = rate;
        outcome.truncationWarning = reader.truncationWarning();
        const auto length = static_cast<double> (std::max<int64_t> (reader.lengthInSamples(), 1));
        if (callbacks.onOpen)
            callbacks.onOpen (static_cast<double> (reader.lengthInSamples()) / rate);
        const auto inPlay = runtime::classesInPlay (outcome.labels, settings.classes);
        const auto unknown = std::find (outcome.labels.begin(), outcome.labels.end(), "unknown") - outcome.labels.begin();
        std::vector<runtime::LiveHit> found;
        std::vector<float> probabilities (outcome.labels.size());
        const auto report = [&] (std::size_t count) {
            for (std::size_t i = 0; i < count; ++i)
            {
                Hit hit;
                hit.seconds = static_cast<double> (found[i].onset) / rate;
                hit.levelDb = found[i].levelDb;
                const int label = classifier->classify (found[i].signature, probabilities);
                const int top = label < 0 ? -1 : runtime::topEnabledClass (probabilities.data(), static_cast<int> (probabilities.size()), inPlay);
                hit.classIndex = top >= 0 ? top : static_cast<int> (unknown);
                if (hit.classIndex >= static_cast<int> (outcome.labels.size()))
                    continue;
                hit.confidence = probabilities[static_cast<std::size_t> (hit.classIndex)];
                hit.probabilities = probabilities;
                if (callbacks.onHit)
                    callbacks.onHit (hit, {});
                outcome.hits.push_back (std::move (hit));
            }
        };
        int64_t samples = 0;
        forEachBlock (reader, [&] (std::span<const float> block) {
            found.resize (live.maxHits (block.size()));
            report (live.push (block.data(), block.size(), found.data(), found.size()));
            samples += static_cast<int64_t> (block.size());
            outcome.stopped = callbacks.onProgress && ! callbacks.onProgress (std::min (static_cast<double> (samples) / length, 1.0));
            return ! outcome.stopped;
        });
        found.resize (live.maxHits (0));
        if (! outcome.stopped)
            report (live.finish (found.data(), found.size()));
        outcome.durationSeconds = static_cast<double> (samples) / rate;
        return outcome;
    }
} // namespace

HitAnalysisResult analyzeHits (const std::string& path, const std::shared_ptr<const engine::Model>& model, const HitAnalysisSettings& settings,
                               const HitListener& onHit)
{
    return analyzeHits (path, model, settings, HitAnalysisCallbacks { {}, onHit, {} });
}

HitAnalysisResult analyzeHits (const std::string& path, const std::shared_ptr<const engine::Model>& model, const HitAnalysisSettings& settings,
                               const HitAnalysisCallbacks& callbacks)
{
    if (settings.live)
    {
        dsp::OnsetDetector::checkSettings (settings.onsets); // before the file is opened
        formats::AudioFileReader reader (path);
        return analyzeLive (reader, *model, settings, callbacks);
    }
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
