#include "timeline/FileAnalysis.h"

#include "dsp/SoundChange.h"
#include "formats/AudioFileReader.h"
#include "runtime/WindowAnalyzer.h"
#include "timeline/FileBlocks.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace sonotype::timeline
{
namespace
{
    bool allFinite (const std::vector<float>& values)
    {
        return std::all_of (values.begin(), values.end(), [] (float p) { return std::isfinite (p); });
    }

    /** A stream's last `size` samples (and at most as many more before them: trimmed once it holds
        twice the tail, one move of the tail per tail's length read). Size 0 keeps nothing. */
    class StreamTail
    {
    public:
        explicit StreamTail (std::size_t size) : size_ (size) {}

        void add (std::span<const float> block)
        {
            if (size_ == 0)
                return;
            samples_.insert (samples_.end(), block.begin(), block.end());
            if (samples_.size() > 2 * size_)
                samples_.erase (samples_.begin(), samples_.end() - static_cast<std::ptrdiff_t> (size_));
        }

        /** The last `size` samples, or all there were. */
        std::span<const float> samples() const noexcept
        {
            const auto count = std::min (samples_.size(), size_);
            return { samples_.data() + (samples_.size() - count), count };
        }

    private:
        std::size_t size_;
        std::vector<float> samples_;
    };

    /** The windows of one file as the analyzer gives them: counted, summed for the means, kept for
        the segments and handed to the caller. */
    class WindowCollector
    {
    public:
        using Listener = std::function<void (const runtime::WindowResult&, WindowFlags)>;

        WindowCollector (runtime::WindowAnalyzer& analyzer, const Listener& onWindow, bool keepScores)
            : analyzer_ (analyzer), onWindow_ (onWindow), keepScores_ (keepScores), sums_ (static_cast<std::size_t> (analyzer.numClasses()), 0.0)
        {
        }

        /** The result the next window is analysed into. */
        runtime::WindowResult& result() noexcept { return result_; }
        int64_t count() const noexcept { return count_; }
        double lastEndSeconds() const noexcept { return lastEndSeconds_; }

        /** Analyses the windows whose samples have all arrived. */
        void analyzeReady()
        {
            for (auto k = analyzer_.nextWindow(); k <= analyzer_.newestCompleteWindow(); ++k)
            {
                analyzer_.analyze (k, result_);
                emit ({});
            }
        }

        /** result() is the next window. */
        void emit (WindowFlags flags)
        {
            flags.embedding = analyzer_.embedding();
            ++count_;
            if (! allFinite (result_.probabilities))
                ++numNonFinite_;
            for (std::size_t c = 0; c < sums_.size(); ++c)
                sums_[c] += result_.probabilities[c];
            if (keepScores_)
                scored_.push_back ({ result_.startSeconds, result_.endSeconds, result_.probabilities });
            if (onWindow_)
                onWindow_ (result_, flags);
            lastEndSeconds_ = result_.endSeconds;
        }

        /** The counts, means and segments (edges moved to the sound's changes in `novelty`) into `outcome`. */
        void finish (FileAnalysisResult& outcome, std::span<const float> novelty, const SegmentSettings& settings)
        {
            outcome.numWindows = count_;
            outcome.numNonFiniteWindows = numNonFinite_;
            outcome.meanProbabilities.assign (sums_.size(), 0.0);
            if (count_ > 0)
                for (std::size_t c = 0; c < sums_.size(); ++c)
                    outcome.meanProbabilities[c] = sums_[c] / static_cast<double> (count_);
            if (keepScores_)
                outcome.segments = timelineSegments (scored_, novelty, settings);
        }

    private:
        runtime::WindowAnalyzer& analyzer_;
        const Listener& onWindow_;
        bool keepScores_;
        std::vector<ScoredWindow> scored_;
        std::vector<double> sums_;
        runtime::WindowResult result_;
        int64_t count_ = 0, numNonFinite_ = 0;
        double lastEndSeconds_ = 0.0;
    };
} // namespace

runtime::WindowAnalyzer& ReusedAnalyzer::start (const std::shared_ptr<const engine::Model>& model, double rate, double hopSeconds,
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
    ReusedAnalyzer cache;
    return analyzeFile (path, model, settings, callbacks, cache);
}

FileAnalysisResult analyzeFile (const std::string& path, const std::shared_ptr<const engine::Model>& model,
                                const FileAnalysisSettings& settings, const FileAnalysisCallbacks& callbacks, ReusedAnalyzer& cache)
{
    formats::AudioFileReader reader (path);
    const double rate = reader.sampleRate();
    if (callbacks.onOpen)
        callbacks.onOpen (static_cast<double> (reader.lengthInSamples()) / rate, reader.truncationWarning());
    runtime::WindowAnalyzer& analyzer = cache.start (model, rate, settings.hopSeconds, settings.smoothingSeconds);
    analyzer.setClassesInPlay (runtime::classesInPlay (analyzer.labels(), settings.classes));

    FileAnalysisResult outcome;
    outcome.labels = analyzer.labels();
    outcome.sampleRate = rate;
    outcome.windowSeconds = analyzer.windowSeconds();
    outcome.hopSeconds = analyzer.hopSeconds();
    outcome.truncationWarning = reader.truncationWarning();
    WindowCollector windows (analyzer, callbacks.onWindow, settings.findSegments);
    std::optional<dsp::SoundChange> change;
    if (settings.findSegments)
        change.emplace (rate);
    // toEnd: the input's last window of samples (and one more), for a final window aligned to the end.
    StreamTail last (settings.toEnd ? static_cast<std::size_t> (std::ceil (outcome.windowSeconds * rate)) + 1 : 0);
    const auto length = static_cast<double> (std::max<int64_t> (reader.lengthInSamples(), 1));
    int64_t numSamples = 0;
    forEachBlock (reader, [&] (std::span<const float> block) {
        numSamples += static_cast<int64_t> (block.size());
        last.add (block);
        if (change)
            change->push (block.data(), block.size());
        analyzer.push (block.data(), block.size());
        windows.analyzeReady();
        outcome.stopped = callbacks.onProgress && ! callbacks.onProgress (std::min (static_cast<double> (numSamples) / length, 1.0));
        return ! outcome.stopped;
    });
    if (! outcome.stopped)
    {
        analyzer.finish();
        windows.analyzeReady();
    }
    if (change)
        change->finish();
    outcome.durationSeconds = static_cast<double> (numSamples) / rate;
    outcome.numNonFiniteSamples = analyzer.numNonFiniteSamples();
    const double duration = outcome.durationSeconds;

    // A file not read to its end (stopped) gets no padded or tail window: what was analyzed stands.
    runtime::WindowResult& result = windows.result();
    if (! outcome.stopped && windows.count() == 0 && analyzer.analyzePaddedFirstWindow (result))
    {
        if (settings.toEnd)
            result.endSeconds = duration; // the file's true end
        windows.emit ({ true, false });
    }
    else if (! outcome.stopped && settings.toEnd && windows.count() > 0 && duration - windows.lastEndSeconds() > 0.5 / rate)
    {
        // The tail after the last full window: one more window, aligned to the file's end, analyzed
        // from the file's last samples and smoothed with the windows before it (the analyzer's).
        const auto samples = last.samples();
        analyzer.analyzeTail (samples.data(), samples.size(), result);
        windows.emit ({ false, true });
    }
    windows.finish (outcome, change ? std::span<const float> (change->novelty()) : std::span<const float> {}, settings.segments);
    return outcome;
}

} // namespace sonotype::timeline
