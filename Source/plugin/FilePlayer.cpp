#include "plugin/FilePlayer.h"

#include "formats/AudioFileReader.h"
#include "formats/AudioFormats.h"

#include <cmath>
#include <utility>

namespace sonotype::plugin
{
namespace
{
    constexpr int kReadFrames = 4096;
}

FilePlayer::FilePlayer() : juce::Thread ("Sonotype file reader"), ring_ (1 << 18)
{
    // The thread starts with the first file loaded (a plugin in a DAW never plays one).
}

FilePlayer::~FilePlayer()
{
    stopThread (2000);
}

// ----- message thread ---------------------------------------------------------------------------

juce::String FilePlayer::load (const juce::File& file)
{
    if (! file.existsAsFile())
        return "No such file: " + file.getFullPathName();
    std::unique_ptr<juce::AudioFormatReader> reader;
    try
    {
        reader = formats::openAudioFile (file.getFullPathName().toStdString()); // the CLI's checks against hostile headers
    }
    catch (const formats::AudioFileError& e)
    {
        return "Cannot play " + file.getFileName() + ": " + juce::String::fromUTF8 (e.what()) + " (Sonotype reads "
               + juce::String (formats::kReadableFormats) + ")";
    }
    if (! (reader->sampleRate >= 1000.0 && reader->sampleRate <= 768000.0))
        return "Unsupported sample rate " + juce::String (reader->sampleRate) + " Hz: " + file.getFileName();
    const double length = static_cast<double> (reader->lengthInSamples) / reader->sampleRate;
    playing_.store (false);
    {
        const std::lock_guard<std::mutex> lock (fileMutex_);
        reader_ = std::move (reader);
        file_ = file;
    }
    lengthSeconds_.store (length);
    startThread(); // (once: a no-op while it runs)
    requestEpoch (0.0);
    return {};
}

void FilePlayer::unload()
{
    playing_.store (false);
    {
        const std::lock_guard<std::mutex> lock (fileMutex_);
        reader_.reset();
        file_ = juce::File();
    }
    lengthSeconds_.store (0.0);
    requestEpoch (0.0);
}

void FilePlayer::play()
{
    if (! hasFile())
        return;
    if (finished_.exchange (false))
        requestEpoch (0.0); // played to the end: start again
    playing_.store (true);
}

void FilePlayer::pause()
{
    playing_.store (false);
}

void FilePlayer::setLooping (bool shouldLoop)
{
    looping_.store (shouldLoop);
    if (shouldLoop && endOfFile_.load())
        requestEpoch (positionSeconds()); // the reader already stopped at the end: go on from here
}

void FilePlayer::seek (double seconds)
{
    requestEpoch (juce::jlimit (0.0, lengthSeconds(), seconds));
}

juce::String FilePlayer::fileName() const
{
    return file().getFileName();
}

juce::File FilePlayer::file() const
{
    const std::lock_guard<std::mutex> lock (fileMutex_);
    return file_;
}

void FilePlayer::requestEpoch (double seconds)
{
    requestedSeconds_.store (seconds);
    position_.store (seconds);
    finished_.store (false);
    requestedEpoch_.fetch_add (1, std::memory_order_acq_rel);
    notify();
}

void FilePlayer::prepare (double deviceSampleRate) noexcept
{
    if (deviceRate_.exchange (deviceSampleRate) != deviceSampleRate)
    {
        requestedSeconds_.store (position_.load());
        requestedEpoch_.fetch_add (1, std::memory_order_acq_rel);
    }
}

// ----- reader thread ----------------------------------------------------------------------------

void FilePlayer::run()
{
    while (! threadShouldExit())
    {
        const auto requested = requestedEpoch_.load (std::memory_order_acquire);
        if (requested != epoch_)
        {
            // Write no more of the old audio; tell the audio thread, and wait until it has drained
            // the ring (or until yet another request arrives).
            epoch_ = requested;
            const double seconds = requestedSeconds_.load();
            epochSeconds_.store (seconds);
            readerEpoch_.store (epoch_, std::memory_order_release);
            while (consumerEpoch_.load (std::memory_order_acquire) != epoch_ && requestedEpoch_.load() == epoch_ && ! threadShouldExit())
                wait (2);
            if (requestedEpoch_.load() != epoch_)
                continue;
            reposition (seconds);
            continue;
        }
        fill();
    }
}

void FilePlayer::reposition (double seconds)
{
    const std::lock_guard<std::mutex> lock (fileMutex_);
    resamplers_.clear();
    interleaved_.clear();
    interleavedWritten_ = 0;
    finishing_ = false;
    endOfFile_.store (false);
    const double rate = deviceRate_.load();
    if (reader_ == nullptr || rate <= 0.0)
        return;
    readPosition_ = static_cast<int64_t> (std::llround (seconds * reader_->sampleRate));
    const int channels = std::min<int> (kChannels, static_cast<int> (reader_->numChannels));
    try
    {
        for (int c = 0; c < channels; ++c)
            resamplers_.push_back (std::make_unique<dsp::Resampler> (reader_->sampleRate, rate));
    }
    catch (const std::exception&)
    {
        // A device rate the resampler refuses: nothing to play (the audio thread ends playback).
        resamplers_.clear();
        endOfFile_.store (true);
        primedEpoch_.store (epoch_, std::memory_order_release);
        return;
    }
    fileBlock_.setSize (channels, kReadFrames);
}

bool FilePlayer::writeLeftover()
{
    if (interleavedWritten_ < interleaved_.size())
        interleavedWritten_ += ring_.write (interleaved_.data() + interleavedWritten_, interleaved_.size() - interleavedWritten_);
    return interleavedWritten_ >= interleaved_.size();
}

void FilePlayer::fill()
{
    std::unique_lock<std::mutex> lock (fileMutex_);
    if (! writeLeftover())
    {
        lock.unlock();
        wait (2);
        return;
    }
    if (std::exchange (finishing_, false))
        endOfFile_.store (true); // the file's last samples are all in the ring now
    if (reader_ == nullptr || resamplers_.empty() || endOfFile_.load())
    {
        lock.unlock();
        wait (5);
        return;
    }
    // Upsampling multiplies what a read produces (an 8 kHz file on a 96 kHz device: 12x, up to
    // 768x): read few enough frames that their output fits in a quarter of the ring, and wait for
    // that much room. (What still does not fit, e.g. a resampler burst, waits in interleaved_.)
    const double ratio = deviceRate_.load() / reader_->sampleRate;
    const int frames = juce::jlimit (1, kReadFrames, static_cast<int> (static_cast<double> (ring_.capacity() / 4) / (kChannels * ratio)));
    const auto expected = static_cast<std::size_t> (kChannels * (std::ceil (frames * ratio) + 256.0));
    if (ring_.capacity() - ring_.available() < std::min (expected, ring_.capacity() / 2))
    {
        lock.unlock();
        wait (5);
        return;
    }
    const int channels = static_cast<int> (resamplers_.size());
    const auto remaining = reader_->lengthInSamples - readPosition_;
    const int count = static_cast<int> (std::min<int64_t> (frames, std::max<int64_t> (remaining, 0)));
    for (auto& r : resampled_)
        r.clear();
    if (count > 0)
    {
        reader_->read (&fileBlock_, 0, count, readPosition_, true, channels > 1);
        readPosition_ += count;
        for (int c = 0; c < channels; ++c)
            resamplers_[static_cast<std::size_t> (c)]->process (fileBlock_.getReadPointer (c), static_cast<std::size_t> (count), resampled_[c]);
    }
    const bool atEnd = readPosition_ >= reader_->lengthInSamples;
    if (atEnd && looping_.load())
        readPosition_ = 0; // seamless: the resamplers keep their state across the loop point
    else if (atEnd)
        for (int c = 0; c < channels; ++c)
            resamplers_[static_cast<std::size_t> (c)]->flush (resampled_[c]);

    const std::size_t frameCount = resampled_[0].size();
    interleaved_.resize (frameCount * kChannels);
    interleavedWritten_ = 0;
    for (std::size_t i = 0; i < frameCount; ++i)
    {
        interleaved_[i * kChannels] = resampled_[0][i];
        interleaved_[i * kChannels + 1] = channels > 1 ? resampled_[1][i] : resampled_[0][i];
    }
    const bool allWritten = writeLeftover();
    if (frameCount > 0 || atEnd)
        primedEpoch_.store (epoch_, std::memory_order_release);
    if (atEnd && ! looping_.load())
    {
        if (allWritten)
            endOfFile_.store (true);
        else
            finishing_ = true;
    }
}

// ----- audio thread -----------------------------------------------------------------------------

bool FilePlayer::render (juce::AudioBuffer<float>& buffer, int numSamples) noexcept
{
    const auto announced = readerEpoch_.load (std::memory_order_acquire);
    if (announced != consumerEpoch_.load (std::memory_order_relaxed))
    {
        while (ring_.read (scratch_, std::size (scratch_)) > 0)
        {
        }
        epochStartSeconds_ = epochSeconds_.load();
        epochFrames_ = 0;
        consumerEpoch_.store (announced, std::memory_order_release);
    }
    if (! playing_.load (std::memory_order_relaxed))
        return false;
    const double rate = deviceRate_.load (std::memory_order_relaxed);
    if (rate <= 0.0 || announced != requestedEpoch_.load (std::memory_order_acquire) || primedEpoch_.load (std::memory_order_acquire) != announced)
    {
        buffer.clear (0, numSamples); // a seek is under way: silence (and no time passes) until the new audio arrives
        return true;
    }

    const int outputs = buffer.getNumChannels();
    int done = 0;
    while (done < numSamples)
    {
        const int want = std::min (numSamples - done, static_cast<int> (std::size (scratch_)) / kChannels);
        const int got = static_cast<int> (ring_.read (scratch_, static_cast<std::size_t> (want * kChannels))) / kChannels;
        for (int i = 0; i < got; ++i)
        {
            const float left = scratch_[i * kChannels], right = scratch_[i * kChannels + 1];
            if (outputs == 1)
                buffer.setSample (0, done + i, 0.5f * (left + right));
            else
            {
                buffer.setSample (0, done + i, left);
                buffer.setSample (1, done + i, right);
                for (int c = 2; c < outputs; ++c)
                    buffer.setSample (c, done + i, 0.0f);
            }
        }
        done += got;
        epochFrames_ += got;
        if (got < want)
            break;
    }
    if (done < numSamples)
    {
        buffer.clear (done, numSamples - done);
        if (endOfFile_.load (std::memory_order_acquire) && ring_.available() == 0)
        {
            playing_.store (false, std::memory_order_relaxed); // played to the end
            finished_.store (true, std::memory_order_relaxed);
            position_.store (lengthSeconds_.load(), std::memory_order_relaxed);
            return true;
        }
        underruns_.fetch_add (1, std::memory_order_relaxed);
    }
    double position = epochStartSeconds_ + static_cast<double> (epochFrames_) / rate;
    const double length = lengthSeconds_.load (std::memory_order_relaxed);
    if (length > 0.0 && position >= length)
        position = looping_.load (std::memory_order_relaxed) ? std::fmod (position, length) : length;
    position_.store (position, std::memory_order_relaxed);
    return true;
}

} // namespace sonotype::plugin
