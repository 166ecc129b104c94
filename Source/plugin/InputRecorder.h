// Records what the analysis hears, for a few seconds, as an example to teach from: the message
// thread arms it (and owns the buffer), the audio thread fills it in processBlock.
//
// Threading contract
// - Message thread: start(), cancel(), stop(), take(), progress().
// - Audio thread: write(). Never blocks, allocates or locks: it copies into the buffer start()
//   allocated, as long as the state says "recording", and marks it "done" when full.
// Shared: state_ (the handover: only the thread whose turn the state says touches the buffer) and
// audioInside_ (the audio thread is between reading the state and its last write: cancel() and
// start() wait for it to leave before they touch the buffer, which takes at most one block's copy).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace sonotype::plugin
{

class InputRecorder
{
public:
    /** Message thread: records the next `seconds` of audio at `sampleRate` (mono: the channels'
        mean), dropping a recording under way. */
    void start (double seconds, double sampleRate);
    /** Message thread: drops a recording under way (or one finished and not taken). */
    void cancel() noexcept;
    /** Message thread: ends a recording under way (or one finished and not taken) and returns
        what it holds so far, empty when no audio arrived: a Stop click never waits for audio that
        may never come (no device, a stopped host). */
    std::vector<float> stop();
    /** Message thread: whether a recording is under way. */
    bool isRecording() const noexcept { return state_.load() == kRecording; }
    /** Message thread: the share recorded so far (0..1; 1 once done). */
    double progress() const noexcept;
    /** Message thread: the finished recording (moved out), or empty while it is not finished. */
    std::vector<float> take();
    double sampleRate() const noexcept { return sampleRate_; }

    /** Audio thread: appends the block's mean over channels while recording. */
    void write (const float* const* channels, int numChannels, int numSamples) noexcept;

private:
    static constexpr int kIdle = 0, kRecording = 1, kDone = 2;
    void waitForAudioThread() const noexcept;

    std::atomic<int> state_ { kIdle };
    std::atomic<bool> audioInside_ { false };
    std::atomic<int64_t> written_ { 0 };
    std::vector<float> buffer_; // message thread allocates; audio thread writes while kRecording
    double sampleRate_ = 0.0;
};

} // namespace sonotype::plugin
