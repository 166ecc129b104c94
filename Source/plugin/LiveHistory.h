// What the live analysis detected this session, as segments (runtime::Segmenter: the detector's
// rules, the ones MIDI out plays), for export from the plugin: "speech 0.0-4.2 s, drums 4.2-9.8 s"
// in seconds of audio analysed since the plugin started (pauses and transport stops are not
// counted; a new model with other classes starts a new history). Bounded: the oldest segments go
// past kMaxSegments.
//
// Threading contract: add() on the analysis worker thread (never the audio thread); snapshot() and
// clear() on any other thread but the audio thread. One mutex, held for an append or a copy.
#pragma once

#include "runtime/AnalysisInfo.h"
#include "runtime/Segmenter.h"
#include "runtime/WindowResult.h"

#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace sonotype::plugin
{

class LiveHistory
{
public:
    static constexpr std::size_t kMaxSegments = 100000;

    struct Snapshot
    {
        std::vector<std::string> labels;
        std::vector<runtime::Segment> segments; // a segment still open ends with the newest window
        double analyzedSeconds = 0.0;
    };

    /** Worker thread: one live result, with the threshold it was detected at. */
    void add (const runtime::WindowResult& result, const runtime::AnalysisInfo& info, float threshold);
    Snapshot snapshot() const;
    void clear();

private:
    mutable std::mutex mutex_;
    std::vector<std::string> labels_;
    runtime::Segmenter segmenter_;
    std::deque<runtime::Segment> closed_;
    float threshold_ = -1.0f;
    double offset_ = 0.0;                     // session seconds where the current stream's time 0 lies
    double lastStart_ = -1.0, lastEnd_ = 0.0; // of the newest result, in stream seconds
    bool startAgain_ = false;                 // cleared: the next window starts the session at 0
};

} // namespace sonotype::plugin
