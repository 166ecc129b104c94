// timeline::timelineSegments, windows to segments: each moment's class is what the windows covering
// it agree on; edges move to the sound's change within reach; short runs join the neighbour they
// agree with; neighbours of one class merge; a moment below the threshold is in no segment.
#include "timeline/TimelineSegments.h"

#include "dsp/SoundChange.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace sonotype::testing
{
namespace
{
    /** 1 s windows every 0.25 s over `seconds`; a window's probabilities are each class's share of
        its time, from `classAt` (class index at a time, -1: none) over 3 classes. */
    template <typename ClassAt>
    std::vector<timeline::ScoredWindow> windowsOf (double seconds, ClassAt classAt)
    {
        std::vector<timeline::ScoredWindow> windows;
        for (double start = 0.0; start + 1.0 <= seconds + 1e-9; start += 0.25)
        {
            timeline::ScoredWindow window { start, start + 1.0, std::vector<float> (3, 0.0f) };
            for (int i = 0; i < 100; ++i)
                if (const int c = classAt (start + (i + 0.5) / 100.0); c >= 0)
                    window.probabilities[static_cast<std::size_t> (c)] += 0.01f;
            windows.push_back (std::move (window));
        }
        return windows;
    }

    /** A novelty curve over `seconds` with one peak at `at`. */
    std::vector<float> peakAt (double seconds, double at)
    {
        std::vector<float> novelty (static_cast<std::size_t> (seconds / dsp::SoundChange::kFrameSeconds), 1.0f);
        novelty[static_cast<std::size_t> (std::lround (at / dsp::SoundChange::kFrameSeconds))] = 10.0f;
        return novelty;
    }
} // namespace

TEST_CASE ("timeline segments: edges move to the sound's change within reach, never beyond", "[timeline]")
{
    const auto windows = windowsOf (6.0, [] (double t) { return t < 2.1 ? 0 : 1; });
    // Without a curve the edge is where the windows' mean changes side: on the quarter-second grid.
    const auto plain = timeline::timelineSegments (windows, {}, {});
    REQUIRE (plain.size() == 2);
    CHECK (plain[0].classIndex == 0);
    CHECK (plain[1].classIndex == 1);
    CHECK (plain[0].startSeconds == 0.0);
    CHECK (plain[1].endSeconds == 6.0);
    CHECK (plain[0].endSeconds == plain[1].startSeconds);
    CHECK (std::abs (plain[0].endSeconds - 2.1) <= 0.25);
    CHECK (std::fmod (plain[0].endSeconds, 0.25) == 0.0);

    const auto refined = timeline::timelineSegments (windows, peakAt (6.0, 2.13), {});
    REQUIRE (refined.size() == 2);
    CHECK (refined[0].endSeconds == Approx (2.13));
    CHECK (refined[1].startSeconds == Approx (2.13));
    CHECK (refined[0].numWindows > 0);
    CHECK (refined[0].confidence > 0.8f);

    // A sound change out of reach (1.5 s away) leaves the edge where the windows put it.
    const auto far = timeline::timelineSegments (windows, peakAt (6.0, 3.6), {});
    REQUIRE (far.size() == 2);
    CHECK (std::abs (far[0].endSeconds - plain[0].endSeconds) <= timeline::SegmentSettings {}.reachSeconds + 1e-9);
}

TEST_CASE ("timeline segments: short runs join a neighbour, one class merges, low moments are gaps", "[timeline]")
{
    // Class 0, a 0.3 s blip of class 2 (too short to believe), class 0 again, then class 1.
    const auto blip = windowsOf (8.0, [] (double t) { return t >= 2.0 && t < 2.3 ? 2 : (t < 5.0 ? 0 : 1); });
    timeline::SegmentSettings settings;
    settings.thresholdPercent = 0.0;
    const auto segments = timeline::timelineSegments (blip, {}, settings);
    REQUIRE (segments.size() == 2);
    CHECK (segments[0].classIndex == 0);
    CHECK (segments[0].startSeconds == 0.0);
    CHECK (segments[1].classIndex == 1);
    CHECK (segments[1].endSeconds == 8.0);

    // A stretch where no class is sure (silence: every probability 0) is in no segment.
    const auto gap = windowsOf (8.0, [] (double t) { return t >= 3.0 && t < 5.0 ? -1 : 0; });
    const auto withGap = timeline::timelineSegments (gap, {}, {});
    REQUIRE (withGap.size() == 2);
    CHECK (withGap[0].classIndex == 0);
    CHECK (withGap[1].classIndex == 0);
    CHECK (withGap[0].endSeconds <= 3.5);
    CHECK (withGap[1].startSeconds >= 4.5);

    // Windows that are not finite are left out; no windows, no segments.
    auto broken = blip;
    broken[3].probabilities[0] = std::nanf ("");
    CHECK_FALSE (timeline::timelineSegments (broken, {}, settings).empty());
    CHECK (timeline::timelineSegments ({}, {}, settings).empty());
}

} // namespace sonotype::testing

namespace sonotype::testing
{
TEST_CASE ("timeline segments: hours of flickering windows give ordered segments of at least the shortest believed", "[timeline]")
{
    // Ten hours of 1 s windows every 0.25 s, each sure of a class drawn at random: the runs before
    // joining number in the tens of thousands (joined shortest first, in n log n).
    std::vector<timeline::ScoredWindow> windows;
    uint32_t state = 7;
    for (int k = 0; k < 144000; ++k)
    {
        state = state * 1664525u + 1013904223u;
        timeline::ScoredWindow window { 0.25 * k, 0.25 * k + 1.0, std::vector<float> (3, 0.1f) };
        window.probabilities[(state >> 16) % 3] = 0.8f;
        windows.push_back (std::move (window));
    }
    const auto segments = timeline::timelineSegments (windows, {}, {});
    REQUIRE (segments.size() > 100);
    CHECK (segments.front().startSeconds == 0.0);
    CHECK (segments.back().endSeconds == windows.back().endSeconds);
    for (std::size_t i = 0; i < segments.size(); ++i)
    {
        CHECK (segments[i].endSeconds - segments[i].startSeconds >= timeline::SegmentSettings {}.minSeconds - 1e-9);
        if (i > 0)
        {
            CHECK (segments[i].startSeconds == segments[i - 1].endSeconds); // every moment has a class here
            CHECK (segments[i].classIndex != segments[i - 1].classIndex);
        }
    }
}
} // namespace sonotype::testing
