#include "teach/Prototypes.h"

#include "teach/WindowLevel.h"

#include "engine/file/ModelError.h"
#include "engine/file/Text.h"
#include "formats/AudioFileReader.h"
#include "runtime/LiveHits.h"
#include "runtime/WindowAnalyzer.h"
#include "timeline/FileBlocks.h"
#include "timeline/HitAnalysis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

namespace sonotype::teach
{
namespace
{
    void normalize (std::vector<float>& v)
    {
        double sum = 0.0;
        for (const float x : v)
            sum += static_cast<double> (x) * x;
        const double norm = std::sqrt (sum);
        if (norm > 0.0 && std::isfinite (norm))
            for (auto& x : v)
                x = static_cast<float> (x / norm);
    }

    /** Accumulates normalised embeddings and probabilities; the mean, normalised. */
    struct Mean
    {
        std::vector<double> embedding, probabilities;
        int count = 0;
        float level = std::numeric_limits<float>::quiet_NaN();

        void add (std::span<const float> e, const std::vector<float>& p, std::span<const float> windowLevel)
        {
            // The loudest window's level; NaN once a window has none (a model without a level output).
            const float l = windowLevel.empty() ? std::numeric_limits<float>::quiet_NaN() : windowLevel[0];
            level = count == 0 ? l : (std::isnan (level) || std::isnan (l) ? std::numeric_limits<float>::quiet_NaN() : std::max (level, l));
            std::vector<float> unit (e.begin(), e.end());
            normalize (unit);
            embedding.resize (unit.size(), 0.0);
            probabilities.resize (p.size(), 0.0);
            for (std::size_t i = 0; i < unit.size(); ++i)
                embedding[i] += unit[i];
            for (std::size_t i = 0; i < p.size(); ++i)
                probabilities[i] += p[i];
            ++count;
        }

        Example example (const std::string& source) const
        {
            Example out;
            out.source = source;
            out.embedding.assign (embedding.begin(), embedding.end());
            normalize (out.embedding);
            for (const double p : probabilities)
                out.probabilities.push_back (static_cast<float> (p / std::max (count, 1)));
            out.numWindows = count;
            out.levelDb = level;
            return out;
        }
    };

    float dot (const std::vector<float>& a, const std::vector<float>& b)
    {
        double sum = 0.0;
        for (std::size_t i = 0; i < std::min (a.size(), b.size()); ++i)
            sum += static_cast<double> (a[i]) * b[i];
        return static_cast<float> (sum);
    }

    void checkEmbedding (const engine::Model& model)
    {
        if (! model.info().embeddingOutput.has_value())
            throw engine::ModelError ("the model was exported without an embedding output, which teaching needs: export it with "
                                      "export_model(..., embedding=<module>) or embedding=\"auto\"");
    }

    /** The model's output holding its level, or one past its outputs (WindowAnalyzer::output: empty). */
    std::size_t levelIndex (const engine::Model& model)
    {
        return levelOutputOf (model).value_or (model.info().outputShapes.size());
    }

    /** One example from a sound's mono samples, which forEachBlock (onBlock) hands to onBlock block
        by block (timeline::forEachBlock over a file or samples in memory): the mean of its windows'
        embeddings, or of the zero-padded first window of a short sound. */
    template <typename ForEachBlock>
    Example meanOfWindows (const std::shared_ptr<const engine::Model>& model, double rate, double hopSeconds, const std::string& source,
                           ForEachBlock&& forEachBlock)
    {
        runtime::WindowAnalyzer analyzer (model, rate, hopSeconds);
        runtime::WindowResult result;
        Mean mean;
        const auto level = levelIndex (*model);
        auto analyzeReady = [&] {
            for (auto k = analyzer.nextWindow(); k <= analyzer.newestCompleteWindow(); ++k)
            {
                analyzer.analyze (k, result);
                mean.add (analyzer.embedding(), result.probabilities, analyzer.output (level));
            }
        };
        forEachBlock ([&] (std::span<const float> block) {
            analyzer.push (block.data(), block.size());
            analyzeReady();
            return true;
        });
        analyzer.finish();
        analyzeReady();
        if (mean.count == 0 && analyzer.analyzePaddedFirstWindow (result))
            mean.add (analyzer.embedding(), result.probabilities, analyzer.output (level));
        return mean.example (source);
    }

    /** Each example's signature: that of the live detector's hit nearest its onset, within 25 ms
        (the two detectors place an attack within a few milliseconds of each other); an example
        the live detector did not find has none, and the live classifier does without it. */
    void attachSignatures (std::vector<Example>& examples, const std::vector<int64_t>& onsets, const std::vector<runtime::LiveHit>& liveHits,
                           double rate)
    {
        const auto reach = static_cast<int64_t> (0.025 * rate);
        for (std::size_t e = 0; e < examples.size(); ++e)
        {
            const runtime::LiveHit* nearest = nullptr;
            for (const auto& hit : liveHits)
                if (std::abs (hit.onset - onsets[e]) <= reach && (nearest == nullptr || std::abs (hit.onset - onsets[e]) < std::abs (nearest->onset - onsets[e])))
                    nearest = &hit;
            if (nearest != nullptr)
                examples[e].signature.assign (nearest->signature.begin(), nearest->signature.end());
        }
    }

    /** The examples of a sound's hits, block by block as in meanOfWindows: one per hit the onset
        detector finds (runtime::HitClassifier, as classify --onsets), its source "<source>@<onset seconds>". */
    template <typename ForEachBlock>
    std::vector<Example> hitExamples (const std::shared_ptr<const engine::Model>& model, double rate, const ExampleSettings& settings,
                                      const dsp::OnsetSettings& onsets, const std::string& source, ForEachBlock&& forEachBlock)
    {
        runtime::HitSettings hitSettings;
        hitSettings.onsets = onsets;
        hitSettings.clipSeconds = settings.clipSeconds;
        runtime::HitClassifier analyzer (model, rate, hitSettings);
        const auto level = levelIndex (*model);
        std::vector<Example> examples;
        std::vector<int64_t> hitOnsets;
        const auto report = [&] (const runtime::HitResult& hit) {
            Mean mean;
            mean.add (hit.embedding, hit.result.probabilities, analyzer.analyzer().output (level));
            char time[32];
            std::snprintf (time, sizeof time, "%.3f", static_cast<double> (hit.onset) / rate);
            examples.push_back (mean.example (source + "@" + time));
            hitOnsets.push_back (hit.onset);
        };
        // The same sound through the live mode's detector, for each hit's signature (live hits).
        runtime::LiveHits live (nullptr, rate, onsets);
        std::vector<runtime::LiveHit> liveHits, found;
        forEachBlock ([&] (std::span<const float> block) {
            analyzer.push (block.data(), block.size(), report);
            found.resize (live.maxHits (block.size()));
            liveHits.insert (liveHits.end(), found.begin(), found.begin() + static_cast<std::ptrdiff_t> (live.push (block.data(), block.size(), found.data(), found.size())));
            return true;
        });
        analyzer.finish (report);
        found.resize (live.maxHits (0));
        liveHits.insert (liveHits.end(), found.begin(), found.begin() + static_cast<std::ptrdiff_t> (live.finish (found.data(), found.size())));
        attachSignatures (examples, hitOnsets, liveHits, rate);
        return examples;
    }
    /** Not the stand-in leaveOneFileOut gives a class whose examples are all left out. */
    bool isReal (const Example& example)
    {
        return example.numWindows > 0;
    }

    std::vector<float> prototypeOf (const std::vector<Example>& examples, std::size_t leftOut)
    {
        std::vector<float> prototype (examples.front().embedding.size(), 0.0f);
        for (std::size_t e = 0; e < examples.size(); ++e)
            if (e != leftOut)
                for (std::size_t i = 0; i < prototype.size(); ++i)
                    prototype[i] += examples[e].embedding[i];
        normalize (prototype);
        return prototype;
    }

    /** Each class's leave-one-out distances: 1 - the cosine of each example to the prototype of
        the class's other examples (none for a class of one example). */
    std::vector<std::vector<double>> leaveOneOutDistances (const std::vector<TaughtClass>& classes)
    {
        std::vector<std::vector<double>> distances;
        for (const auto& taught : classes)
        {
            auto& d = distances.emplace_back();
            if (taught.examples.size() > 1 && isReal (taught.examples.front()))
                for (std::size_t e = 0; e < taught.examples.size(); ++e)
                    d.push_back (1.0 - dot (taught.examples[e].embedding, prototypeOf (taught.examples, e)));
        }
        return distances;
    }

    double rms (const std::vector<double>& values)
    {
        double sum = 0.0;
        for (const double v : values)
            sum += v * v;
        return values.empty() ? std::numeric_limits<double>::quiet_NaN() : std::sqrt (sum / static_cast<double> (values.size()));
    }

    /** The gates (Prototypes.h): each class's cosine threshold and spread, and the level gate. */
    void calibrateGates (Head& head, const std::vector<TaughtClass>& classes, double unknownBelow)
    {
        // A class of one example has no spread of its own; another class's says little of it (in a
        // test, two near-copies of one drum sound left a guitar taught from one second of it unknown
        // for the rest of its clip), so it keeps the rule before the gates.
        for (const auto& d : leaveOneOutDistances (classes))
        {
            const double spread = rms (d);
            head.spread.push_back (static_cast<float> (spread));
            if (! std::isnan (unknownBelow))
                head.cosineBelow.push_back (static_cast<float> (unknownBelow));
            else if (std::isnan (spread))
                head.cosineBelow.push_back (1.0f - Head::kMaxDistance);
            else
                head.cosineBelow.push_back (
                    1.0f - std::clamp (Head::kSpreadFactor * static_cast<float> (spread), Head::kMinDistance, Head::kMaxDistance));
        }
        // The level gate, under the quietest example; none when an example's level was not measured.
        float quietest = std::numeric_limits<float>::infinity();
        bool measured = true;
        for (const auto& taught : classes)
            for (const auto& example : taught.examples)
                if (isReal (example))
                {
                    measured = measured && std::isfinite (example.levelDb);
                    quietest = std::min (quietest, example.levelDb);
                }
        head.levelBelowDb = measured && std::isfinite (quietest) ? quietest - Head::kLevelMarginDb : std::numeric_limits<float>::quiet_NaN();
    }
} // namespace

std::vector<Example> examplesOf (const std::string& path, const std::shared_ptr<const engine::Model>& model, const ExampleSettings& settings)
{
    checkEmbedding (*model);
    if (settings.hits)
        runtime::HitClassifier::checkSettings ({ {}, settings.clipSeconds }); // before the file is opened
    formats::AudioFileReader reader (path);
    const auto blocks = [&reader] (const timeline::BlockHandler& onBlock) { timeline::forEachBlock (reader, onBlock); };
    if (settings.hits) // one example per hit, its clip as classify --onsets classifies it (the same analysis)
        return hitExamples (model, reader.sampleRate(), settings, {}, path, blocks);
    return { meanOfWindows (model, reader.sampleRate(), settings.hopSeconds, path, blocks) };
}

Example exampleOfSamples (std::span<const float> samples, double sampleRate, const std::string& source,
                          const std::shared_ptr<const engine::Model>& model, double hopSeconds)
{
    checkEmbedding (*model);
    return meanOfWindows (model, sampleRate, hopSeconds, source,
                          [&] (const timeline::BlockHandler& onBlock) { timeline::forEachBlock (samples, sampleRate, onBlock); });
}

std::vector<Example> hitExamplesOfSamples (std::span<const float> samples, double sampleRate, const std::string& source,
                                           const std::shared_ptr<const engine::Model>& model, const ExampleSettings& settings,
                                           const dsp::OnsetSettings& onsets)
{
    checkEmbedding (*model);
    return hitExamples (model, sampleRate, settings, onsets, source,
                        [&] (const timeline::BlockHandler& onBlock) { timeline::forEachBlock (samples, sampleRate, onBlock); });
}

Head learn (const std::vector<TaughtClass>& classes, const std::vector<std::string>& baseLabels, double unknownBelow)
{
    if (classes.empty())
        throw std::invalid_argument ("no class to learn");
    Head head;
    head.unknownBelow = unknownBelow;
    std::set<std::string> names;
    head.adapted = true;
    for (const auto& taught : classes)
    {
        engine::checkDisplayText (taught.name, 256, "class name");
        if (! names.insert (taught.name).second)
            throw std::invalid_argument ("the class " + engine::quote (taught.name) + " is given twice");
        if (taught.examples.empty())
            throw std::invalid_argument ("the class " + engine::quote (taught.name) + " has no examples");
        const auto found = std::find (baseLabels.begin(), baseLabels.end(), taught.name);
        head.adapted = head.adapted && found != baseLabels.end();
        head.baseIndex.push_back (found == baseLabels.end() ? -1 : static_cast<int> (found - baseLabels.begin()));
        std::vector<float> prototype (taught.examples.front().embedding.size(), 0.0f);
        for (const auto& example : taught.examples)
        {
            if (example.embedding.size() != prototype.size())
                throw std::invalid_argument ("examples of different embedding sizes (from different models)");
            for (std::size_t i = 0; i < prototype.size(); ++i)
                prototype[i] += example.embedding[i];
        }
        normalize (prototype);
        head.labels.push_back (taught.name);
        head.prototypes.push_back (std::move (prototype));
    }
    if (! head.adapted)
        head.baseIndex.clear();
    if (std::isnan (unknownBelow) || unknownBelow > -1.0)
    {
        if (names.count ("unknown") != 0)
            throw std::invalid_argument ("a class named 'unknown' needs --unknown-below -1 (the name marks an answer no class is close to)");
        head.labels.push_back ("unknown");
        calibrateGates (head, classes, unknownBelow);
    }
    return head;
}

std::vector<float> scores (const Head& head, const std::vector<float>& embedding, const std::vector<float>& baseProbabilities, float levelDb)
{
    std::vector<float> out;
    std::vector<float> cosines;
    for (const auto& prototype : head.prototypes)
        cosines.push_back (dot (prototype, embedding));
    if (head.adapted)
    {
        double sum = 0.0;
        for (const int c : head.baseIndex)
            sum += static_cast<std::size_t> (c) < baseProbabilities.size() ? baseProbabilities[static_cast<std::size_t> (c)] : 0.0f;
        for (std::size_t c = 0; c < head.prototypes.size(); ++c)
        {
            const auto index = static_cast<std::size_t> (head.baseIndex[c]);
            const double p = sum > 0.0 && index < baseProbabilities.size() ? baseProbabilities[index] / sum : 0.0;
            out.push_back (Head::kAdaptedScale * static_cast<float> (p + Head::kAdaptedCosineWeight * cosines[c]));
        }
    }
    else
        for (const float cosine : cosines)
            out.push_back (Head::kNewScale * cosine);
    if (! head.hasUnknown())
        return out;
    // Unknown: the best class's score less how far the best class clears its threshold, plus the level gate.
    float clears = -std::numeric_limits<float>::infinity();
    for (std::size_t c = 0; c < cosines.size(); ++c)
        clears = std::max (clears, cosines[c] - head.threshold (c));
    float unknown = *std::max_element (out.begin(), out.end()) - head.gateGain() * clears;
    if (! std::isnan (head.levelBelowDb) && ! std::isnan (levelDb))
        unknown += Head::kLevelGain * std::max (0.0f, head.levelBelowDb - levelDb);
    out.push_back (unknown);
    return out;
}

Confusion leaveOneFileOut (const std::vector<TaughtClass>& classes, const std::vector<std::string>& baseLabels, double unknownBelow)
{
    const auto full = learn (classes, baseLabels, unknownBelow);
    Confusion confusion;
    confusion.labels = full.labels;
    confusion.counts.assign (classes.size(), std::vector<int> (full.labels.size(), 0));
    for (const auto& taught : classes)
        confusion.predicted.emplace_back (taught.examples.size(), -1);
    // What is left out together: an example's file (its source up to a hit's time), or, in a class
    // whose examples all come from one file (hits), the example alone.
    const auto fileOf = [] (const std::string& source) { return source.substr (0, source.rfind ('@') == std::string::npos ? source.size() : source.rfind ('@')); };
    std::map<std::string, std::string> groupOf;
    for (const auto& taught : classes)
    {
        std::set<std::string> classFiles;
        for (const auto& example : taught.examples)
            classFiles.insert (fileOf (example.source));
        for (const auto& example : taught.examples)
            groupOf[example.source] = classFiles.size() > 1 ? fileOf (example.source) : example.source;
    }
    std::set<std::string> files;
    for (const auto& [source, group] : groupOf)
        files.insert (group);
    for (const auto& file : files)
    {
        std::vector<TaughtClass> without;
        for (const auto& taught : classes)
        {
            TaughtClass kept { taught.name, {} };
            for (const auto& example : taught.examples)
                if (groupOf.at (example.source) != file)
                    kept.examples.push_back (example);
            if (kept.examples.empty()) // all its examples are this file's: the class is left with a zero prototype
            {
                Example standIn;
                standIn.embedding.assign (full.prototypes.front().size(), 0.0f);
                kept.examples.push_back (std::move (standIn));
            }
            without.push_back (std::move (kept));
        }
        const auto head = learn (without, baseLabels, unknownBelow);
        for (std::size_t c = 0; c < classes.size(); ++c)
            for (std::size_t i = 0; i < classes[c].examples.size(); ++i)
            {
                const auto& example = classes[c].examples[i];
                if (groupOf.at (example.source) != file)
                    continue;
                const auto s = scores (head, example.embedding, example.probabilities, example.levelDb);
                const auto predicted = static_cast<std::size_t> (std::max_element (s.begin(), s.end()) - s.begin());
                ++confusion.counts[c][predicted];
                confusion.predicted[c][i] = static_cast<int> (predicted);
                confusion.correct += predicted == c ? 1 : 0;
                ++confusion.total;
            }
    }
    return confusion;
}

} // namespace sonotype::teach
