// Turns a file's analysis windows into segments: stretches of time where one class is detected,
// with the Detector's rules (threshold, hysteresis, confirmation) — the plugin's MIDI notes, offline.
// A segment starts at the first window of the run that confirmed its class (offline, the
// confirmation delay the live detector needs is taken back), and ends with the end of the last
// window in which its class was still active. Windows where no class is active are a gap. Windows
// overlap, so a segment that follows another closely may start before the other's last window ends:
// the earlier segment then ends where the later one starts, and segments never overlap.
// Pure logic, no JUCE; one thread.
#pragma once

#include "runtime/Detector.h"

#include <deque>
#include <vector>

namespace sonotype::runtime
{

struct Segment
{
    int classIndex = -1;
    double startSeconds = 0.0, endSeconds = 0.0;
    float confidence = 0.0f; // the mean probability of the class over the segment's windows
    int numWindows = 0;
};

class Segmenter
{
public:
    explicit Segmenter (DetectorSettings settings = {}) : settings_ (settings) {}

    /** One window, in stream order: its times and `probabilities[c]` per class. */
    void add (double startSeconds, double endSeconds, const float* probabilities, int numClasses);
    /** Ends the stream: a segment still open ends with the last window. Returns every segment. */
    std::vector<Segment> finish();

    const std::vector<Segment>& segments() const noexcept { return segments_; }
    /** Removes and returns the segments that can no longer change: every closed one but the
        newest, whose end a segment starting inside its last window may still move. A live stream
        takes them as it goes, so that the segmenter's memory stays bounded. */
    std::vector<Segment> takeSettled();

private:
    struct Window
    {
        double startSeconds, endSeconds;
        std::vector<float> probabilities;
    };
    void close();

    DetectorSettings settings_;
    Detector detector_;
    std::deque<Window> recent_; // the last confirmWindows windows: the run that confirms a class
    std::vector<Segment> segments_;
    Segment open_;         // classIndex < 0: none
    double sum_ = 0.0;     // of the open segment's class probability
    double lastEnd_ = 0.0; // the end of the last window in which the open class was active
};

} // namespace sonotype::runtime
