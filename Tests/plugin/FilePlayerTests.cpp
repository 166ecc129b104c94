// The standalone app's file player: the file's audio, resampled by the project's resampler, comes
// out exactly; it stops at the end or loops; seeking lets no old audio through; bad files are
// refused with a reason; the audio thread's side neither allocates nor locks; and the processor
// classifies what the player plays.
#include "plugin/ProcessorDriver.h"
#include "support/AllocationCounter.h"
#include "support/ExampleClips.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** Waits (up to 10 s) until the reader has decoded the next `frames` ahead. The tests render far
    faster than real time; a device at real time never outruns the reader, so neither may they, even
    on a loaded machine. While a load or seek is under way nothing is buffered yet: no waiting then
    (the audio thread's calls acknowledge it). */
void waitForBuffered (plugin::FilePlayer& player, int frames)
{
    for (int i = 0; i < 10000 && player.isReady() && ! player.readerReachedEnd()
                    && player.bufferedFrames() < static_cast<std::size_t> (frames);
         ++i)
        std::this_thread::sleep_for (std::chrono::milliseconds (1));
}

/** Renders `seconds` of the player in blocks, as an audio thread would (paced by the reader, not by a clock). */
std::vector<float> renderSeconds (plugin::FilePlayer& player, double rate, double seconds, int channel = 0, int blockSize = 480)
{
    std::vector<float> out;
    juce::AudioBuffer<float> buffer (2, blockSize);
    const auto blocks = static_cast<int> (seconds * rate / blockSize);
    for (int b = 0; b < blocks; ++b)
    {
        waitForBuffered (player, blockSize);
        buffer.clear();
        player.render (buffer, blockSize);
        out.insert (out.end(), buffer.getReadPointer (channel), buffer.getReadPointer (channel) + blockSize);
        std::this_thread::sleep_for (std::chrono::microseconds (200));
    }
    return out;
}

/** Until the file is buffered at the requested position (up to 10 s) (the audio thread's calls acknowledge
    loads and seeks, as they would while the device runs). */
void waitForReader (plugin::FilePlayer& player)
{
    juce::AudioBuffer<float> buffer (2, 16);
    for (int i = 0; i < 10000 && ! player.isReady(); ++i) // up to 10 s
    {
        player.render (buffer, 16);
        std::this_thread::sleep_for (std::chrono::milliseconds (1));
    }
    REQUIRE (player.isReady());
}
} // namespace

TEST_CASE ("the file player plays the file resampled by the project's resampler, then stops", "[player]")
{
    plugin::FilePlayer player;
    player.prepare (48000.0);
    REQUIRE (player.load (exampleFile ("piano")).isEmpty());
    CHECK (player.lengthSeconds() == Approx (2.0));
    CHECK (player.fileName() == "piano.wav");
    juce::AudioBuffer<float> buffer (2, 480);
    waitForReader (player);
    player.play();
    const auto played = renderSeconds (player, 48000.0, 2.5);
    const auto reference = exampleClip ("piano", 48000.0);
    REQUIRE (played.size() > reference.size());
    float worst = 0.0f;
    for (std::size_t i = 0; i < reference.size(); ++i)
        worst = std::max (worst, std::abs (played[i] - reference[i]));
    CHECK (worst <= 1e-6f);
    for (std::size_t i = reference.size(); i < played.size(); ++i)
        REQUIRE (played[i] == 0.0f);
    CHECK_FALSE (player.isPlaying());
    CHECK (player.positionSeconds() == Approx (2.0));
    CHECK (player.underruns() == 0);
    buffer.clear();
    CHECK_FALSE (player.render (buffer, 480)); // stopped: the input is left alone
}

TEST_CASE ("looping plays on and the position wraps, play after the end starts again", "[player]")
{
    plugin::FilePlayer player;
    player.prepare (44100.0);
    REQUIRE (player.load (exampleFile ("drums")).isEmpty());
    player.setLooping (true);
    waitForReader (player);
    player.play();
    const auto played = renderSeconds (player, 44100.0, 5.0, 1, 441);
    CHECK (player.isPlaying());
    CHECK (player.positionSeconds() < 2.0);
    CHECK (player.positionSeconds() == Approx (1.0).margin (0.05)); // 5 s into a 2 s loop
    const auto reference = exampleClip ("drums", 44100.0);
    // The second pass sounds like the first (the loop point is seamless, the resampler keeps its state).
    float worst = 0.0f;
    for (std::size_t i = 2000; i < 40000; ++i)
        worst = std::max (worst, std::abs (played[reference.size() + i] - reference[i]));
    CHECK (worst < 1e-3f);

    player.setLooping (false); // what is buffered (up to ~3 s) still plays, then the end
    renderSeconds (player, 44100.0, 6.0, 0, 441);
    CHECK_FALSE (player.isPlaying());
    player.play();
    CHECK (player.isPlaying());
    renderSeconds (player, 44100.0, 0.5, 0, 441);
    CHECK (player.positionSeconds() < 1.0);
}

TEST_CASE ("seeking lets no old audio through", "[player]")
{
    plugin::FilePlayer player;
    player.prepare (48000.0);
    REQUIRE (player.load (exampleFile ("noise")).isEmpty()); // no digital silence in it: the start of new audio shows
    waitForReader (player);
    player.play();
    renderSeconds (player, 48000.0, 0.3);
    player.seek (1.0);
    // Silence while the ring is drained and refilled (how long depends on the machine's load, so
    // render until the new audio starts), then the file from 1.0 s on.
    std::vector<float> played;
    for (int i = 0; i < 20000 && std::find_if (played.begin(), played.end(), [] (float x) { return x != 0.0f; }) == played.end(); ++i)
    {
        const auto block = renderSeconds (player, 48000.0, 0.01);
        played.insert (played.end(), block.begin(), block.end());
        std::this_thread::sleep_for (std::chrono::microseconds (500));
    }
    const auto more = renderSeconds (player, 48000.0, 0.5);
    played.insert (played.end(), more.begin(), more.end());
    const auto reference = exampleClip ("noise", 48000.0);
    std::size_t start = 0;
    while (start < played.size() && played[start] == 0.0f)
        ++start;
    REQUIRE (start + 12000 < played.size());
    // Compared with the file from 1.0 s on, past the resampler's warm-up.
    float worst = 0.0f;
    for (std::size_t i = 2000; i < 12000; ++i)
        worst = std::max (worst, std::abs (played[start + i] - reference[48000 + i]));
    CHECK (worst < 1e-4f);
    CHECK (player.positionSeconds() == Approx (1.0 + (played.size() - start) / 48000.0).margin (0.02));
}

TEST_CASE ("a device rate the resampler refuses plays nothing and stops without a crash", "[player]")
{
    plugin::FilePlayer player;
    player.prepare (1234567.8);
    REQUIRE (player.load (exampleFile ("noise")).isEmpty());
    waitForReader (player);
    player.play();
    juce::AudioBuffer<float> buffer (2, 480);
    for (int i = 0; i < 10 && player.isPlaying(); ++i)
        player.render (buffer, 480);
    CHECK_FALSE (player.isPlaying());
    player.prepare (48000.0); // a usable rate again: the file plays
    waitForReader (player);
    player.play();
    CHECK (player.isPlaying());
    const auto played = renderSeconds (player, 48000.0, 0.5);
    CHECK (std::any_of (played.begin(), played.end(), [] (float x) { return x != 0.0f; }));
}

TEST_CASE ("bad audio files are refused with a reason and the loaded file stays", "[player]")
{
    plugin::FilePlayer player;
    REQUIRE (player.load (exampleFile ("noise")).isEmpty());
    const auto junk = juce::File::createTempFile ("wav");
    junk.replaceWithText ("RIFF but not really");
    CHECK (player.load (junk).contains (junk.getFileName()));
    CHECK (player.load (juce::File ("/no/such/file.wav")).startsWith ("No such file"));
    CHECK (player.fileName() == "noise.wav");
    junk.deleteFile();
}

TEST_CASE ("the player's audio-thread side allocates and locks nothing, even while seeking", "[player][realtime]")
{
    plugin::FilePlayer player;
    player.prepare (48000.0);
    REQUIRE (player.load (exampleFile ("guitar")).isEmpty());
    player.setLooping (true);
    juce::AudioBuffer<float> buffer (2, 256);
    waitForReader (player);
    player.play();
    std::atomic<bool> done { false };
    std::thread control ([&] {
        for (int i = 0; ! done; ++i)
        {
            player.seek ((i % 7) * 0.25);
            std::this_thread::sleep_for (std::chrono::milliseconds (20));
        }
    });
    AllocationCounts counts;
    for (int block = 0; block < 20000; ++block)
    {
        {
            ScopedAllocationCounter counter;
            player.render (buffer, 256);
            const auto c = counter.counts();
            counts.allocations += c.allocations;
            counts.frees += c.frees;
            counts.locks += c.locks;
        }
        if (block % 8 == 0)
            std::this_thread::sleep_for (std::chrono::microseconds (300));
    }
    done = true;
    control.join();
    CHECK (counts.allocations == 0);
    CHECK (counts.frees == 0);
    CHECK (counts.locks == 0);
}

TEST_CASE ("the processor classifies the file the player plays, in place of its input", "[player]")
{
    TestProcessor processor;
    REQUIRE (processor.filePlayer().load (exampleFile ("drums")).isEmpty());
    processor.filePlayer().setLooping (true);
    ProcessorDriver driver (processor, 48000.0, 2, 480);
    driver.play (std::vector<float> (480, 0.0f));
    waitForReader (processor.filePlayer());
    processor.filePlayer().play();
    std::vector<float> silence (48000 * 3, 0.0f); // the input is silent: only the file can be heard
    for (std::size_t offset = 0; offset < silence.size(); offset += 4800)
    {
        waitForBuffered (processor.filePlayer(), 4800);
        driver.play (std::vector<float> (4800, 0.0f));
        std::this_thread::sleep_for (std::chrono::milliseconds (5));
    }
    const auto snapshot = processor.snapshot();
    REQUIRE (snapshot.hasResult);
    CHECK (snapshot.info->labels[static_cast<std::size_t> (snapshot.topClass)] == "drums");
}

TEST_CASE ("a low-rate file on a high-rate device plays every sample (upsampling far beyond 8x)", "[player]")
{
    // An 8 kHz file on a 96 kHz device (12x) and a 2 kHz one on a 192 kHz device (96x): the
    // reader's output per read grows with the ratio; none of it may be dropped.
    const auto [fileRate, deviceRate] = GENERATE (std::pair { 8000.0, 96000.0 }, std::pair { 2000.0, 192000.0 });
    INFO (fileRate << " Hz file on a " << deviceRate << " Hz device");
    const auto clip = exampleClip ("piano", fileRate); // 2 s
    const auto file = juce::File::createTempFile ("wav");
    {
        juce::AudioBuffer<float> audio (1, static_cast<int> (clip.size()));
        std::copy (clip.begin(), clip.end(), audio.getWritePointer (0));
        std::unique_ptr<juce::AudioFormatWriter> writer (juce::WavAudioFormat().createWriterFor (new juce::FileOutputStream (file), fileRate, 1, 32, {}, 0));
        REQUIRE (writer != nullptr);
        REQUIRE (writer->writeFromAudioSampleBuffer (audio, 0, audio.getNumSamples()));
    }
    // What the file's samples become through the project's resampler, the whole stream at once.
    std::vector<float> reference;
    {
        dsp::Resampler resampler (fileRate, deviceRate);
        resampler.process (clip.data(), clip.size(), reference);
        resampler.flush (reference);
    }
    plugin::FilePlayer player;
    player.prepare (deviceRate);
    REQUIRE (player.load (file).isEmpty());
    waitForReader (player);
    player.play();
    const auto played = renderSeconds (player, deviceRate, 2.2, 0, 960);
    REQUIRE (played.size() > reference.size());
    float worst = 0.0f;
    for (std::size_t i = 0; i < reference.size(); ++i)
        worst = std::max (worst, std::abs (played[i] - reference[i]));
    CHECK (worst <= 1e-6f);           // a dropped block would shift everything after it
    CHECK_FALSE (player.isPlaying()); // and it ended where the file ends
    CHECK (player.underruns() == 0);
    file.deleteFile();
}

TEST_CASE ("an MP3 plays like the WAV it was encoded from (libmpg123, encoder delay removed)", "[player][mp3]")
{
    const auto mp3 = juce::File::createTempFile ("mp3");
    const auto command = "lame --quiet -b 192 '" + exampleFile ("piano").getFullPathName() + "' '" + mp3.getFullPathName() + "'";
    REQUIRE (std::system (command.toRawUTF8()) == 0); // lame: scripts/install-deps.sh
    plugin::FilePlayer player;
    player.prepare (48000.0);
    REQUIRE (player.load (mp3).isEmpty());
    CHECK (player.lengthSeconds() == Approx (2.0).margin (1e-4));
    waitForReader (player);
    player.play();
    const auto played = renderSeconds (player, 48000.0, 2.5);
    const auto reference = exampleClip ("piano", 48000.0);
    REQUIRE (played.size() > reference.size());
    double ab = 0.0, aa = 0.0, bb = 0.0;
    for (std::size_t i = 0; i < reference.size(); ++i)
        ab += static_cast<double> (played[i]) * reference[i], aa += static_cast<double> (played[i]) * played[i],
            bb += static_cast<double> (reference[i]) * reference[i];
    CHECK (ab / std::sqrt (aa * bb) > 0.99); // lossy, but aligned sample for sample
    mp3.deleteFile();
}
