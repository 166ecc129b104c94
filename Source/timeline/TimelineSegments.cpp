#include "timeline/TimelineSegments.h"

#include "dsp/SoundChange.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

namespace sonotype::timeline
{
namespace
{
    constexpr double kSameTime = 1e-9;
    constexpr double kMinEdgeGap = 0.1; // an edge that moves keeps a run at least this long

    /** A stretch between two consecutive window boundaries: the same windows cover all of it. */
    struct Piece
    {
        double start, end;
        std::vector<double> mean; // of the covering windows' probabilities (zeros: none covers it)
        int label = -1;
    };

    /** Consecutive pieces [first, last) of one label (or a gap, -1). */
    struct Run
    {
        std::size_t first, last;
        double start, end;
        int label;
        double seconds() const noexcept { return end - start; }
    };

    bool finite (const ScoredWindow& window)
    {
        return std::all_of (window.probabilities.begin(), window.probabilities.end(), [] (float p) { return std::isfinite (p); });
    }

    /** The pieces of the windows' timeline, each labelled with its top class where it reaches `threshold`. */
    std::vector<Piece> piecesOf (const std::vector<ScoredWindow>& windows, std::size_t numClasses, double threshold)
    {
        std::vector<Piece> pieces;
        for (auto& stretch : windowPieces (windows, numClasses))
        {
            Piece piece { stretch.startSeconds, stretch.endSeconds, std::move (stretch.mean), -1 };
            if (stretch.covered)
            {
                const auto best = std::max_element (piece.mean.begin(), piece.mean.end());
                if (*best >= threshold)
                    piece.label = static_cast<int> (best - piece.mean.begin());
            }
            pieces.push_back (std::move (piece));
        }
        return pieces;
    }

    std::vector<Run> runsOf (const std::vector<Piece>& pieces)
    {
        std::vector<Run> runs;
        for (std::size_t i = 0; i < pieces.size(); ++i)
            if (! runs.empty() && runs.back().label == pieces[i].label)
            {
                runs.back().last = i + 1;
                runs.back().end = pieces[i].end;
            }
            else
                runs.push_back ({ i, i + 1, pieces[i].start, pieces[i].end, pieces[i].label });
        return runs;
    }

    /** How much run `run`'s pieces give `label` (time-weighted mean), or for a gap how far below
        the threshold their best class is. */
    double agreement (const std::vector<Piece>& pieces, const Run& run, int label, double threshold)
    {
        double total = 0.0, seconds = 0.0;
        for (auto i = run.first; i < run.last; ++i)
        {
            const auto& piece = pieces[i];
            const double value = label >= 0 ? piece.mean[static_cast<std::size_t> (label)]
                                            : threshold - *std::max_element (piece.mean.begin(), piece.mean.end());
            total += value * (piece.end - piece.start);
            seconds += piece.end - piece.start;
        }
        return seconds > 0.0 ? total / seconds : 0.0;
    }

    /** Step 2: short runs join the neighbour they agree with most; neighbours of one label merge.
        Shortest first, through a heap and a list of the runs still there: n log n for a file of any
        length (a file of hours has tens of thousands of runs before they are joined). */
    void joinShortRuns (std::vector<Run>& runs, const std::vector<Piece>& pieces, const SegmentSettings& settings)
    {
        const double threshold = settings.thresholdPercent / 100.0;
        const auto n = runs.size();
        constexpr std::size_t none = static_cast<std::size_t> (-1);
        std::vector<std::size_t> previous (n), next (n);
        std::vector<unsigned> version (n, 0);
        std::vector<bool> alive (n, true);
        struct Entry
        {
            double seconds;
            std::size_t index;
            unsigned version;
            bool operator> (const Entry& other) const noexcept { return seconds > other.seconds || (seconds == other.seconds && index > other.index); }
        };
        std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
        for (std::size_t i = 0; i < n; ++i)
        {
            previous[i] = i == 0 ? none : i - 1;
            next[i] = i + 1 == n ? none : i + 1;
            queue.push ({ runs[i].seconds(), i, 0 });
        }
        std::size_t left = n;
        const auto absorb = [&] (std::size_t into, std::size_t gone) // `gone` is next to `into`
        {
            auto& keep = runs[into];
            keep.first = std::min (keep.first, runs[gone].first);
            keep.last = std::max (keep.last, runs[gone].last);
            keep.start = std::min (keep.start, runs[gone].start);
            keep.end = std::max (keep.end, runs[gone].end);
            alive[gone] = false;
            --left;
            if (previous[gone] != none)
                next[previous[gone]] = next[gone];
            if (next[gone] != none)
                previous[next[gone]] = previous[gone];
        };
        while (left > 1 && ! queue.empty())
        {
            const auto entry = queue.top();
            queue.pop();
            const auto i = entry.index;
            if (! alive[i] || entry.version != version[i])
                continue; // the run grew (or went) since: its newer entry counts
            if (entry.seconds >= settings.minSeconds)
                break;
            const auto before = previous[i], after = next[i];
            std::size_t into = before == none ? after : before;
            if (before != none && after != none
                && agreement (pieces, runs[i], runs[after].label, threshold) > agreement (pieces, runs[i], runs[before].label, threshold))
                into = after;
            absorb (into, i);
            // The run on i's other side may now be a neighbour of the same label: one run.
            const auto across = into == before ? after : before;
            if (across != none && runs[across].label == runs[into].label)
                absorb (into, across);
            queue.push ({ runs[into].seconds(), into, ++version[into] });
        }
        std::vector<Run> kept;
        for (std::size_t i = 0; i < n; ++i)
            if (alive[i])
                kept.push_back (runs[i]);
        runs = std::move (kept);
    }

    /** Step 3: each edge to the frame of the largest sound change within reach. */
    void moveEdgesToTheSound (std::vector<Run>& runs, std::span<const float> novelty, double reachSeconds)
    {
        constexpr double frame = dsp::SoundChange::kFrameSeconds;
        for (std::size_t i = 0; i + 1 < runs.size(); ++i)
        {
            const double edge = runs[i].end;
            const double low = std::max (runs[i].start + kMinEdgeGap, edge - reachSeconds);
            const double high = std::min (runs[i + 1].end - kMinEdgeGap, edge + reachSeconds);
            const auto first = static_cast<int64_t> (std::ceil (low / frame - kSameTime));
            const auto last = std::min (static_cast<int64_t> (std::floor (high / frame + kSameTime)), static_cast<int64_t> (novelty.size()) - 1);
            if (first > last || first < 0)
                continue;
            auto best = first;
            for (auto t = first + 1; t <= last; ++t)
                if (novelty[static_cast<std::size_t> (t)] > novelty[static_cast<std::size_t> (best)])
                    best = t;
            if (novelty[static_cast<std::size_t> (best)] > 0.0f)
                runs[i].end = runs[i + 1].start = static_cast<double> (best) * frame;
        }
    }

    /** How many windows overlap [start, end): starts before end, less ends at or before start. */
    int windowsOverlapping (const std::vector<double>& starts, const std::vector<double>& ends, double start, double end)
    {
        const auto began = std::lower_bound (starts.begin(), starts.end(), end - kSameTime) - starts.begin();
        const auto ended = std::upper_bound (ends.begin(), ends.end(), start + kSameTime) - ends.begin();
        return static_cast<int> (std::max<std::ptrdiff_t> (began - ended, 0));
    }
} // namespace

std::vector<WindowPiece> windowPieces (const std::vector<ScoredWindow>& windows, std::size_t numClasses)
{
    struct Event
    {
        double time;
        const ScoredWindow* window;
        int sign;
    };
    std::vector<Event> events;
    for (const auto& window : windows)
        if (finite (window) && window.probabilities.size() == numClasses && window.endSeconds > window.startSeconds)
        {
            events.push_back ({ window.startSeconds, &window, +1 });
            events.push_back ({ window.endSeconds, &window, -1 });
        }
    std::sort (events.begin(), events.end(), [] (const Event& a, const Event& b) { return a.time < b.time || (a.time == b.time && a.sign < b.sign); });
    std::vector<WindowPiece> pieces;
    std::vector<double> sum (numClasses, 0.0);
    int covering = 0;
    for (std::size_t e = 0; e < events.size();)
    {
        const double time = events[e].time;
        for (; e < events.size() && events[e].time <= time + kSameTime; ++e)
        {
            covering += events[e].sign;
            for (std::size_t c = 0; c < numClasses; ++c)
                sum[c] += events[e].sign * static_cast<double> (events[e].window->probabilities[c]);
        }
        if (e == events.size())
            break;
        WindowPiece piece { time, events[e].time, std::vector<double> (numClasses, 0.0), covering > 0 };
        if (covering <= 0)
        {
            covering = 0;
            std::fill (sum.begin(), sum.end(), 0.0); // no window covers this: no drift carried on
        }
        else
            for (std::size_t c = 0; c < numClasses; ++c)
                piece.mean[c] = sum[c] / covering;
        pieces.push_back (std::move (piece));
    }
    return pieces;
}

std::vector<runtime::Segment> timelineSegments (const std::vector<ScoredWindow>& windows, std::span<const float> novelty,
                                                const SegmentSettings& settings)
{
    if (windows.empty())
        return {};
    const auto numClasses = windows.front().probabilities.size();
    const auto pieces = piecesOf (windows, numClasses, settings.thresholdPercent / 100.0);
    auto runs = runsOf (pieces);
    joinShortRuns (runs, pieces, settings);
    moveEdgesToTheSound (runs, novelty, settings.reachSeconds);

    std::vector<double> starts, ends;
    for (const auto& window : windows)
        if (finite (window))
        {
            starts.push_back (window.startSeconds);
            ends.push_back (window.endSeconds);
        }
    std::sort (starts.begin(), starts.end());
    std::sort (ends.begin(), ends.end());
    std::vector<runtime::Segment> segments;
    for (const auto& run : runs)
    {
        if (run.label < 0)
            continue;
        runtime::Segment segment;
        segment.classIndex = run.label;
        segment.startSeconds = run.start;
        segment.endSeconds = run.end;
        segment.confidence = static_cast<float> (agreement (pieces, run, run.label, settings.thresholdPercent / 100.0));
        segment.numWindows = windowsOverlapping (starts, ends, run.start, run.end);
        segments.push_back (segment);
    }
    return segments;
}

} // namespace sonotype::timeline
