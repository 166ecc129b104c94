// Segments from hand-made probability sequences: the Detector's threshold, hysteresis and
// confirmation, gaps, class changes, and a stream that ends inside a segment.
#include "runtime/Segmenter.h"

#include <catch2/catch.hpp>

using namespace sonotype::runtime;

namespace
{
/** Windows of 1 s every 0.5 s (window k: [0.5 k, 0.5 k + 1)), two classes. */
struct Feed
{
    Segmenter segmenter { DetectorSettings { 0.5f, 0.1f, 2 } };
    int next = 0;

    void add (float a, float b, int times = 1)
    {
        for (int i = 0; i < times; ++i, ++next)
        {
            const float p[] = { a, b };
            segmenter.add (0.5 * next, 0.5 * next + 1.0, p, 2);
        }
    }
};
} // namespace

TEST_CASE ("a segment starts at the first window of its confirming run and ends with its last active window", "[segmenter]")
{
    Feed feed;
    feed.add (0.2f, 0.1f, 2);  // windows 0-1: below the threshold, a gap
    feed.add (0.8f, 0.1f, 3);  // windows 2-4: class 0
    feed.add (0.45f, 0.1f, 2); // windows 5-6: inside the hysteresis band, still class 0
    feed.add (0.3f, 0.2f, 3);  // windows 7-9: faded below threshold - hysteresis: a gap
    const auto segments = feed.segmenter.finish();
    REQUIRE (segments.size() == 1);
    CHECK (segments[0].classIndex == 0);
    CHECK (segments[0].startSeconds == 1.0); // window 2
    CHECK (segments[0].endSeconds == 4.0);   // window 6 ends at 3 + 1
    CHECK (segments[0].numWindows == 5);
    CHECK (segments[0].confidence == Approx ((3 * 0.8 + 2 * 0.45) / 5));
}

TEST_CASE ("one window above the threshold is not a segment, and below it all is a gap", "[segmenter]")
{
    Feed feed;
    feed.add (0.9f, 0.1f);
    feed.add (0.1f, 0.2f, 3);
    feed.add (0.49f, 0.2f, 4); // just below the threshold
    CHECK (feed.segmenter.finish().empty());
}

TEST_CASE ("the threshold decides where a segment may start", "[segmenter]")
{
    for (const float threshold : { 0.3f, 0.7f })
    {
        Segmenter segmenter { DetectorSettings { threshold, 0.1f, 2 } };
        for (int k = 0; k < 4; ++k)
        {
            const float p[] = { 0.6f, 0.4f };
            segmenter.add (k, k + 1.0, p, 2);
        }
        CHECK (segmenter.finish().size() == (threshold < 0.6f ? 1u : 0u));
    }
}

TEST_CASE ("a class change needs a lead of more than the hysteresis, and segments never overlap", "[segmenter]")
{
    Feed feed;
    feed.add (0.8f, 0.2f, 3);   // windows 0-2: class 0
    feed.add (0.52f, 0.55f, 3); // windows 3-5: class 1 leads by less than the hysteresis: class 0 stays
    feed.add (0.42f, 0.58f, 3); // windows 6-8: class 0 has not faded, class 1 leads by more: it takes over, confirmed in window 7
    const auto segments = feed.segmenter.finish();
    REQUIRE (segments.size() == 2);
    CHECK (segments[0].classIndex == 0);
    CHECK (segments[0].startSeconds == 0.0);
    CHECK (segments[1].classIndex == 1);
    CHECK (segments[1].startSeconds == 3.0); // window 6
    CHECK (segments[0].endSeconds == 3.0);   // window 6 (class 0's last) ends at 4.0: clipped to where class 1 starts
    CHECK (segments[1].endSeconds == 5.0);   // window 8, the last: the stream ended inside the segment
    CHECK (segments[0].numWindows == 7);     // windows 0-6
    CHECK (segments[1].numWindows == 3);
    CHECK (segments[1].confidence == Approx (0.58));
}

TEST_CASE ("a gap between two segments of the same class makes two segments", "[segmenter]")
{
    Feed feed;
    feed.add (0.9f, 0.1f, 2);
    feed.add (0.1f, 0.1f, 4);
    feed.add (0.9f, 0.1f, 2);
    const auto segments = feed.segmenter.finish();
    REQUIRE (segments.size() == 2);
    CHECK (segments[0].startSeconds == 0.0);
    CHECK (segments[0].endSeconds == 1.5); // window 1
    CHECK (segments[1].startSeconds == 3.0);
    CHECK (segments[1].endSeconds == 4.5); // window 7, the last
}

TEST_CASE ("a stream that ends while a class is being confirmed, or is empty, has no open segment", "[segmenter]")
{
    Feed feed;
    CHECK (feed.segmenter.finish().empty());
    Feed confirming;
    confirming.add (0.9f, 0.1f);
    CHECK (confirming.segmenter.finish().empty());
    Segmenter once { DetectorSettings { 0.5f, 0.1f, 1 } }; // one window confirms: a one-window file has a segment
    const float p[] = { 0.9f, 0.1f };
    once.add (0.0, 0.3, p, 2);
    const auto segments = once.finish();
    REQUIRE (segments.size() == 1);
    CHECK (segments[0].endSeconds == 0.3);
}

TEST_CASE ("settled segments can be taken as the stream goes: the same segments, bounded memory", "[segmenter]")
{
    Feed whole, live;
    std::vector<Segment> taken;
    const std::pair<float, float> pattern[] = { { 0.9f, 0.0f }, { 0.9f, 0.0f }, { 0.0f, 0.9f }, { 0.0f, 0.9f }, { 0.0f, 0.9f }, { 0.2f, 0.2f } };
    for (int round = 0; round < 50; ++round)
        for (const auto& [a, b] : pattern)
        {
            whole.add (a, b);
            live.add (a, b);
            for (const auto& segment : live.segmenter.takeSettled())
                taken.push_back (segment);
            CHECK (live.segmenter.segments().size() <= 1); // only the newest closed one is kept
        }
    for (const auto& segment : live.segmenter.finish())
        taken.push_back (segment);
    const auto expected = whole.segmenter.finish();
    REQUIRE (taken.size() == expected.size());
    REQUIRE (expected.size() >= 50);
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        CHECK (taken[i].classIndex == expected[i].classIndex);
        CHECK (taken[i].startSeconds == expected[i].startSeconds);
        CHECK (taken[i].endSeconds == expected[i].endSeconds);
        CHECK (taken[i].confidence == expected[i].confidence);
    }
}
