// Detections with hysteresis: what MIDI notes and OSC messages are made of.
#include "runtime/Detector.h"

#include <catch2/catch.hpp>

#include <random>

using namespace sonotype::runtime;

namespace
{
struct Run
{
    Detector detector;
    DetectorSettings settings { 0.5f, 0.1f, 2 };
    std::vector<bool> enabled;
    std::vector<Detection> events;

    void feed (std::vector<float> probabilities, int times = 1)
    {
        for (int i = 0; i < times; ++i)
        {
            const auto result = detector.update (probabilities.data(), static_cast<int> (probabilities.size()), settings, enabled);
            events.insert (events.end(), result.items, result.items + result.count);
        }
    }
};

bool is (const Detection& d, Detection::Kind kind, int c)
{
    return d.kind == kind && d.classIndex == c;
}
} // namespace

TEST_CASE ("a class starts after confirmWindows above the threshold and stops below threshold - hysteresis", "[detector]")
{
    Run run;
    run.feed ({ 0.8f, 0.1f, 0.1f });
    CHECK (run.events.empty()); // not confirmed yet
    run.feed ({ 0.8f, 0.1f, 0.1f });
    REQUIRE (run.events.size() == 1);
    CHECK (is (run.events[0], Detection::Kind::start, 0));
    CHECK (run.events[0].confidence == 0.8f);
    run.feed ({ 0.45f, 0.3f, 0.25f }, 5); // below the threshold, inside the hysteresis band: stays
    CHECK (run.events.size() == 1);
    run.feed ({ 0.35f, 0.3f, 0.35f });
    REQUIRE (run.events.size() == 2);
    CHECK (is (run.events[1], Detection::Kind::stop, 0));
    CHECK (run.detector.activeClass() == -1);
}

TEST_CASE ("flicker between two close classes does not machine-gun notes", "[detector]")
{
    Run run;
    std::mt19937 random (3);
    std::uniform_real_distribution<float> jitter (-0.04f, 0.04f);
    for (int i = 0; i < 1000; ++i)
    {
        const float a = 0.5f + jitter (random), b = 0.48f + jitter (random);
        run.feed ({ a, b, 1.0f - a - b }); // a and b take turns at the top
    }
    CHECK (run.events.size() <= 1); // at most one start, never a stream of switches
}

TEST_CASE ("another class takes over only when it clearly leads, for confirmWindows windows", "[detector]")
{
    Run run;
    run.feed ({ 0.9f, 0.05f, 0.05f }, 2);
    REQUIRE (run.events.size() == 1);
    run.feed ({ 0.4f, 0.55f, 0.05f }, 1); // leads by 0.15 > hysteresis, but only once
    run.feed ({ 0.6f, 0.35f, 0.05f }, 1);
    CHECK (run.events.size() == 1);
    run.feed ({ 0.2f, 0.75f, 0.05f }, 2);
    REQUIRE (run.events.size() == 3);
    CHECK (is (run.events[1], Detection::Kind::stop, 0));
    CHECK (is (run.events[2], Detection::Kind::start, 1));
}

TEST_CASE ("disabled classes never start, and an active class that gets disabled stops", "[detector]")
{
    Run run;
    run.enabled = { false, true, true };
    run.feed ({ 0.9f, 0.05f, 0.05f }, 4);
    CHECK (run.events.empty());
    run.enabled = { true, true, true };
    run.feed ({ 0.9f, 0.05f, 0.05f }, 2);
    REQUIRE (run.events.size() == 1);
    run.enabled = { false, true, true };
    run.feed ({ 0.9f, 0.05f, 0.05f });
    REQUIRE (run.events.size() == 2);
    CHECK (is (run.events[1], Detection::Kind::stop, 0));
    CHECK (topEnabledClass (std::vector<float> { 0.9f, 0.05f, 0.06f }.data(), 3, run.enabled) == 2);
}

TEST_CASE ("reset stops the active class once, a smaller model stops a class it no longer has", "[detector]")
{
    Run run;
    run.feed ({ 0.1f, 0.1f, 0.8f }, 2);
    const auto stopped = run.detector.reset();
    REQUIRE (stopped.count == 1);
    CHECK (is (stopped.items[0], Detection::Kind::stop, 2));
    CHECK (run.detector.reset().count == 0);
    run.feed ({ 0.1f, 0.1f, 0.8f }, 2);
    run.feed ({ 0.9f, 0.1f }); // two classes now: class 2 is gone
    CHECK (is (run.events.back(), Detection::Kind::stop, 2));
}
