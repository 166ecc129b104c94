// Turns a stream of class probabilities into "class X started / stopped" events with hysteresis,
// so that a flicker between two classes does not machine-gun notes. Used for MIDI and OSC output.
// Pure logic, one thread (the runtime's worker); no allocation after construction.
#pragma once

#include <cstdint>
#include <vector>

namespace sonotype::runtime
{

struct DetectorSettings
{
    float threshold = 0.5f;  // a class starts when its probability reaches this ...
    float hysteresis = 0.1f; // ... stops below threshold - hysteresis, and another class takes over
                             // only when it leads the active one by this much
    int confirmWindows = 2;  // for this many windows in a row
};

struct Detection
{
    enum class Kind
    {
        start,
        stop
    };
    Kind kind;
    int classIndex;
    float confidence; // the class's probability in the window that caused the event
};

class Detector
{
public:
    /** Up to two events per window: the active class stops, another one starts. */
    struct Events
    {
        Detection items[2];
        int count = 0;
    };

    /** One window: `probabilities[c]` per class; classes with enabled[c] == false are ignored
        (and an active one that gets disabled stops). enabled may be shorter than numClasses
        (missing = enabled). */
    Events update (const float* probabilities, int numClasses, const DetectorSettings& settings, const std::vector<bool>& enabled);

    /** Stops the active class, if any (transport stop, MIDI switched off, model swapped). */
    Events reset();

    int activeClass() const noexcept { return active_; }

private:
    int active_ = -1;
    int candidate_ = -1;
    int candidateCount_ = 0;
};

/** The most probable class among the enabled ones, or -1. */
int topEnabledClass (const float* probabilities, int numClasses, const std::vector<bool>& enabled) noexcept;

} // namespace sonotype::runtime
