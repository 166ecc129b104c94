#include "timeline/FileAnalysis.h"

#include "formats/AudioFileReader.h"
#include "runtime/WindowAnalyzer.h"

#include <algorithm>
#include <cmath>

namespace sonotype::timeline
{
namespace
{
    bool allFinite (const std::vector<float>& values)
    {
        return std::all_of (values.begin(), values.end(), [] (float p) { return std::isfinite (p); });
    }
} // namespace

runtime::WindowAnalyzer& FileAnalyzerCache::start (const std::shared_ptr<const engine::Model>& model, double rate, double hopSeconds,
                                                   double smoothingSeconds)
{
    runtime::WindowAnalyzer::checkSettings (hopSeconds, smoothingSeconds);
    if (analyzer_.has_value() && model_ == model)
    {
        try
        {
            analyzer_->restart (rate);
            analyzer_->setHop (hopSeconds);
            analyzer_->setSmoothing (smoothingSeconds);
            analyzer_->setClassesInPlay ({});
            return *analyzer_;
        }
        catch (...)
        {
            analyzer_.reset();
            throw;
        }
    }
    analyzer_.reset();
    model_ = model;
    return analyzer_.emplace (model, rate, hopSeconds, smoothingSeconds);
}

FileAnalysisResult analyzeFile (const std::string& path, const std::shared_ptr<const engine::Model>& model,
                                const FileAnalysisSettings& settings, const FileAnalysisCallbacks& callbacks)
{
    FileAnalyzerCache cache;
    return analyzeFile (path, model, settings, callbacks, cache);
}

FileAnalysisResult analyzeFile (const std::string& path, const std::shared_ptr<const engine::Model>& model,
                                const FileAnalysisSettings& settings, const FileAnalysisCallbacks& callbacks, FileAnalyzerCache& cache)
{
    formats::AudioFileReader reader (path);
    const double rate = reader.sampleRate();
    if (callbacks.onOpen)
        callbacks.onOpen (static_cast<double> (reader.lengthInSamples()) / rate, reader.truncationWarning());
    runtime::WindowAnalyzer& analyzer = cache.start (model, rate, settings.hopSeconds, settings.smoothingSeconds);
    const auto inPlay = runtime::classesInPlay (analyzer.labels(), settings.classes);
    analyzer.setClassesInPlay (inPlay);

    FileAnalysisResult outcome;
    outcome.labels = analyzer.labels();
    outcome.sampleRate = rate;
    outcome.windowSeconds = analyzer.windowSeconds();
    outcome.hopSeconds = analyzer.hopSeconds();
    outcome.truncationWarning = reader.truncationWarning();
    const auto numClasses = static_cast<std::size_t> (analyzer.numClasses());
    std::vector<double> sums (numClasses, 0.0);
    runtime::Segmenter segmenter (settings.detector);
    runtime::WindowResult result, previous;
    bool havePrevious = false;

    auto emit = [&] (WindowFlags flags) {
        flags.embedding = analyzer.embedding();
        ++outcome.numWindows;
        if (! allFinite (result.probabilities))
            ++outcome.numNonFiniteWindows;
        for (std::size_t c = 0; c < numClasses; ++c)
            sums[c] += result.probabilities[c];
        segmenter.add (result.startSeconds, result.endSeconds, result.probabilities.data(), static_cast<int> (numClasses));
        if (callbacks.onWindow)
            callbacks.onWindow (result, flags);
        previous = result;
        havePrevious = true;
    };
    auto analyzeReady = [&] {
        for (auto k = analyzer.nextWindow(); k <= analyzer.newestCompleteWindow(); ++k)
        {
            analyzer.analyze (k, result);
            emit ({});
        }
    };

    // toEnd: the input's last window of samples (and one more), for a final window aligned to the end.
    const auto tailSamples = static_cast<std::size_t> (std::ceil (outcome.windowSeconds * rate)) + 1;
    std::vector<float> last;
    std::vector<float> block (runtime::WindowAnalyzer::fileBlockSamples (rate));
    const auto length = static_cast<double> (std::max<int64_t> (reader.lengthInSamples(), 1));
    int64_t numSamples = 0;
    while (const auto count = reader.readMono (block.data(), block.size()))
    {
        numSamples += static_cast<int64_t> (count);
        if (settings.toEnd)
        {
            // Trimmed once it holds twice the tail: one move of the tail per tail's length read.
            last.insert (last.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t> (count));
            if (last.size() > 2 * tailSamples)
                last.erase (last.begin(), last.end() - static_cast<std::ptrdiff_t> (tailSamples));
        }
        analyzer.push (block.data(), count);
        analyzeReady();
        if (callbacks.onProgress && ! callbacks.onProgress (std::min (static_cast<double> (numSamples) / length, 1.0)))
        {
            outcome.stopped = true;
            break;
        }
    }
    if (! outcome.stopped)
    {
        analyzer.finish();
        analyzeReady();
    }
    if (last.size() > tailSamples)
        last.erase (last.begin(), last.end() - static_cast<std::ptrdiff_t> (tailSamples));
    outcome.durationSeconds = static_cast<double> (numSamples) / rate;
    outcome.numNonFiniteSamples = analyzer.numNonFiniteSamples();
    const double duration = outcome.durationSeconds;

    // A file not read to its end (stopped) gets no padded or tail window: what was analyzed stands.
    if (! outcome.stopped && outcome.numWindows == 0 && analyzer.analyzePaddedFirstWindow (result))
    {
        if (settings.toEnd)
            result.endSeconds = duration; // the file's true end
        emit ({ true, false });
    }
    else if (! outcome.stopped && settings.toEnd && outcome.numWindows > 0 && duration - previous.endSeconds > 0.5 / rate)
    {
        // The tail after the last full window: one more window, aligned to the file's end, analyzed
        // as a clip of the file's last samples by the analyzer restarted (as a fresh one, smoothing
        // off), then smoothed with the windows before it as the analyzer smooths: an exponential
        // average over the time between the two windows' starts.
        analyzer.restart (rate);
        analyzer.setSmoothing (0.0);
        analyzer.push (last.data(), last.size());
        analyzer.finish();
        if (analyzer.newestCompleteWindow() >= 0)
            analyzer.analyze (0, result);
        else
            analyzer.analyzePaddedFirstWindow (result);
        result.startSeconds = std::max (0.0, duration - outcome.windowSeconds);
        result.endSeconds = duration;
        if (settings.smoothingSeconds > 0.0 && havePrevious)
        {
            const auto keep = static_cast<float> (std::exp (-(result.startSeconds - previous.startSeconds) / settings.smoothingSeconds));
            for (std::size_t c = 0; c < numClasses; ++c)
                result.probabilities[c] = keep * previous.probabilities[c] + (1.0f - keep) * result.probabilities[c];
            const auto top = std::max_element (result.probabilities.begin(), result.probabilities.end());
            result.topClass = static_cast<int> (top - result.probabilities.begin());
            result.confidence = *top;
        }
        result.windowIndex = previous.windowIndex + 1;
        emit ({ false, true });
    }

    outcome.meanProbabilities.assign (numClasses, 0.0);
    if (outcome.numWindows > 0)
        for (std::size_t c = 0; c < numClasses; ++c)
            outcome.meanProbabilities[c] = sums[c] / static_cast<double> (outcome.numWindows);
    outcome.segments = segmenter.finish();
    return outcome;
}

} // namespace sonotype::timeline
