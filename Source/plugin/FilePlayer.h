// Plays an audio file (WAV/AIFF/FLAC/Ogg/MP3/Opus) into the processor instead of its input, so the
// standalone app can classify a file without a DAW or an audio interface: open, play/pause, loop,
// seek, position. A reader thread decodes and resamples (libsoxr, the project's resampler) into a
// lock-free ring; the audio thread only copies frames out of it, never waits, allocates or locks.
//
// Seeking and loading never let old audio through: the message thread asks for a new "epoch"; the
// reader stops writing, announces the epoch; the audio thread drains the ring and acknowledges;
// only then does the reader start writing from the new position.
#pragma once

#include "dsp/Resampler.h"
#include "runtime/SpscFifo.h"

#include <juce_audio_formats/juce_audio_formats.h>

#include <atomic>
#include <mutex>

namespace sonotype::plugin
{

class FilePlayer final : private juce::Thread
{
public:
    FilePlayer();
    ~FilePlayer() override;

    // ----- message thread --------------------------------------------------------------------
    /** Opens a file (stopped, at 0 s); returns an error message, empty on success. On failure
        the previous file stays loaded. */
    juce::String load (const juce::File& file);
    void unload();
    void play();
    void pause();
    void setLooping (bool shouldLoop);
    void seek (double seconds);

    // ----- any thread ----------------------------------------------------------------------------
    bool hasFile() const noexcept { return lengthSeconds_.load() > 0.0; }
    bool isPlaying() const noexcept { return playing_.load (std::memory_order_relaxed); }
    bool isLooping() const noexcept { return looping_.load (std::memory_order_relaxed); }
    double positionSeconds() const noexcept { return position_.load (std::memory_order_relaxed); }
    double lengthSeconds() const noexcept { return lengthSeconds_.load(); }
    juce::String fileName() const;
    juce::File file() const; // the file loaded (none: juce::File())
    /** Whether the audio at the requested position is buffered (play() then starts at once). */
    bool isReady() const noexcept { return hasFile() && primedEpoch_.load() == requestedEpoch_.load(); }
    int64_t underruns() const noexcept { return underruns_.load (std::memory_order_relaxed); }
    /** Frames decoded ahead of the audio thread (approximate while both threads run). */
    std::size_t bufferedFrames() const noexcept { return ring_.available() / kChannels; }
    /** Whether the reader has decoded the file to its end (not looping): no more frames will come. */
    bool readerReachedEnd() const noexcept { return endOfFile_.load (std::memory_order_acquire); }

    /** Audio thread (or whoever prepares the device): the rate the audio thread renders at. */
    void prepare (double deviceSampleRate) noexcept;

    /** Audio thread: while playing, overwrites the buffer's first numSamples with the file (mono
        files on every channel, stereo files L/R, more channels than the buffer: mixed down) and
        returns true; otherwise leaves the buffer alone and returns false. */
    bool render (juce::AudioBuffer<float>& buffer, int numSamples) noexcept;

private:
    static constexpr int kChannels = 2; // frames in the ring are stereo
    void run() override;
    void requestEpoch (double seconds);
    void fill();
    bool writeLeftover();
    void reposition (double seconds);

    mutable std::mutex fileMutex_; // message thread and reader thread only
    std::unique_ptr<juce::AudioFormatReader> reader_;
    juce::File file_;

    runtime::SpscRing<float> ring_;
    std::atomic<double> deviceRate_ { 0.0 };
    std::atomic<double> lengthSeconds_ { 0.0 };
    std::atomic<double> position_ { 0.0 };
    std::atomic<bool> playing_ { false }, looping_ { false }, endOfFile_ { false }, finished_ { false };
    std::atomic<uint64_t> requestedEpoch_ { 0 }, readerEpoch_ { 0 }, consumerEpoch_ { 0 }, primedEpoch_ { 0 };
    std::atomic<double> requestedSeconds_ { 0.0 }, epochSeconds_ { 0.0 };

    // Reader thread.
    uint64_t epoch_ = 0;
    std::vector<std::unique_ptr<dsp::Resampler>> resamplers_;
    int64_t readPosition_ = 0;
    juce::AudioBuffer<float> fileBlock_;
    std::vector<float> resampled_[kChannels], interleaved_;
    std::size_t interleavedWritten_ = 0; // what did not fit in the ring yet is written next time, never dropped
    bool finishing_ = false;             // the end was decoded; endOfFile_ once it is all in the ring

    double epochStartSeconds_ = 0.0; // audio thread: where the current epoch's audio starts
    int64_t epochFrames_ = 0;        // audio thread: frames played in the current epoch
    std::atomic<int64_t> underruns_ { 0 };
    float scratch_[1024] {}; // audio thread
};

} // namespace sonotype::plugin
