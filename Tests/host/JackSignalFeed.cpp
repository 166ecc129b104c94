// A JACK client for the LV2 host test (Tests/host/lv2_jalv_test.sh): plays a known mono signal
// (raw 32-bit float samples) into a plugin hosted by jalv, records what comes back on its audio
// inputs and counts the MIDI notes on its MIDI input. When the signal has been played and the
// first note-on has arrived (or a generous deadline passed), it checks that the returned audio is
// the signal itself, bit for bit, after a constant delay of whole JACK periods (the graph order:
// 0 or 1 period), and reports.
// Usage: sonotype_jack_feed SIGNAL.f32 CLIENT_NAME [deadline seconds]
// Its ports: CLIENT_NAME:out (the signal), CLIENT_NAME:in_1, CLIENT_NAME:in_2 (the plugin's audio
// outputs), CLIENT_NAME:midi_in (the plugin's MIDI output). It prints "ready" once the ports exist
// and waits for all four to be connected before it starts playing.
#include <jack/jack.h>
#include <jack/midiport.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

namespace
{
struct Feed
{
    jack_client_t* client = nullptr;
    jack_port_t* out = nullptr;
    jack_port_t* in[2] = { nullptr, nullptr };
    jack_port_t* midiIn = nullptr;

    std::vector<float> signal;
    std::vector<float> returned[2]; // what came back, from the first played frame on
    std::atomic<bool> playing { false };
    std::atomic<std::size_t> played { 0 }, recorded { 0 };
    std::atomic<int> noteOns { 0 }, noteOffs { 0 }, otherMidi { 0 };
};

int process (jack_nframes_t frames, void* arg)
{
    auto& feed = *static_cast<Feed*> (arg);
    auto* out = static_cast<float*> (jack_port_get_buffer (feed.out, frames));
    const float* in[2] = { static_cast<const float*> (jack_port_get_buffer (feed.in[0], frames)),
                           static_cast<const float*> (jack_port_get_buffer (feed.in[1], frames)) };
    void* midi = jack_port_get_buffer (feed.midiIn, frames);

    std::memset (out, 0, frames * sizeof (float));
    if (feed.playing.load (std::memory_order_acquire))
    {
        const std::size_t start = feed.played.load (std::memory_order_relaxed);
        const std::size_t count = start < feed.signal.size() ? std::min<std::size_t> (frames, feed.signal.size() - start) : 0;
        std::memcpy (out, feed.signal.data() + start, count * sizeof (float));
        feed.played.store (start + frames, std::memory_order_release);

        const std::size_t at = feed.recorded.load (std::memory_order_relaxed);
        const std::size_t keep = std::min<std::size_t> (frames, feed.returned[0].size() - at);
        for (int c = 0; c < 2; ++c)
            std::memcpy (feed.returned[c].data() + at, in[c], keep * sizeof (float));
        feed.recorded.store (at + keep, std::memory_order_release);

        const auto events = jack_midi_get_event_count (midi);
        for (jack_nframes_t i = 0; i < events; ++i)
        {
            jack_midi_event_t event;
            if (jack_midi_event_get (&event, midi, i) != 0 || event.size < 1)
                continue;
            const auto status = event.buffer[0] & 0xf0;
            if (status == 0x90 && event.size >= 3 && event.buffer[2] > 0)
                feed.noteOns.fetch_add (1, std::memory_order_relaxed);
            else if (status == 0x80 || (status == 0x90 && event.size >= 3))
                feed.noteOffs.fetch_add (1, std::memory_order_relaxed);
            else
                feed.otherMidi.fetch_add (1, std::memory_order_relaxed);
        }
    }
    return 0;
}

template <typename Condition>
bool waitFor (Condition done, double seconds)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double> (seconds);
    while (! done())
    {
        if (std::chrono::steady_clock::now() > end)
            return false;
        std::this_thread::sleep_for (std::chrono::milliseconds (5));
    }
    return true;
}
} // namespace

int main (int argc, char** argv)
{
    if (argc < 3)
    {
        std::fprintf (stderr, "usage: %s SIGNAL.f32 CLIENT_NAME [deadline seconds]\n", argv[0]);
        return 2;
    }
    const double deadline = argc > 3 ? std::atof (argv[3]) : 120.0;
    Feed feed;
    {
        std::ifstream file (argv[1], std::ios::binary);
        const std::vector<char> bytes ((std::istreambuf_iterator<char> (file)), std::istreambuf_iterator<char>());
        feed.signal.resize (bytes.size() / sizeof (float));
        std::memcpy (feed.signal.data(), bytes.data(), feed.signal.size() * sizeof (float));
    }
    if (feed.signal.empty())
    {
        std::fprintf (stderr, "FAIL: no samples in %s\n", argv[1]);
        return 1;
    }

    jack_status_t status {};
    feed.client = jack_client_open (argv[2], JackNoStartServer, &status);
    if (feed.client == nullptr)
    {
        std::fprintf (stderr, "FAIL: cannot connect to the JACK server (status 0x%x)\n", static_cast<unsigned> (status));
        return 1;
    }
    const auto period = jack_get_buffer_size (feed.client);
    // Room for the signal plus a tail of silence while the worker finishes (up to the deadline).
    const auto rate = jack_get_sample_rate (feed.client);
    for (auto& channel : feed.returned)
        channel.assign (feed.signal.size() + static_cast<std::size_t> ((deadline + 2.0) * rate), 0.0f);
    feed.out = jack_port_register (feed.client, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    feed.in[0] = jack_port_register (feed.client, "in_1", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    feed.in[1] = jack_port_register (feed.client, "in_2", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    feed.midiIn = jack_port_register (feed.client, "midi_in", JACK_DEFAULT_MIDI_TYPE, JackPortIsInput, 0);
    if (feed.out == nullptr || feed.in[0] == nullptr || feed.in[1] == nullptr || feed.midiIn == nullptr
        || jack_set_process_callback (feed.client, process, &feed) != 0 || jack_activate (feed.client) != 0)
    {
        std::fprintf (stderr, "FAIL: cannot set up the JACK client\n");
        return 1;
    }
    std::printf ("ready\n");
    std::fflush (stdout);

    const bool connected = waitFor ([&] {
        return jack_port_connected (feed.out) > 0 && jack_port_connected (feed.in[0]) > 0 && jack_port_connected (feed.in[1]) > 0
               && jack_port_connected (feed.midiIn) > 0;
    },
                                    deadline);
    if (! connected)
    {
        std::fprintf (stderr, "FAIL: the ports were not connected within %.0f s\n", deadline);
        return 1;
    }
    feed.playing.store (true, std::memory_order_release);
    // Play the whole signal, then wait for the analysis' first note (and the note-off that the
    // next detection or the silence after the signal brings).
    const bool playedAll = waitFor ([&] { return feed.played.load() >= feed.signal.size() + 4 * period; }, deadline + feed.signal.size() / rate);
    const bool gotNotes = waitFor ([&] { return feed.noteOns.load() >= 1; }, deadline);
    feed.playing.store (false, std::memory_order_release);
    std::this_thread::sleep_for (std::chrono::milliseconds (50)); // let a running process() call end before reading
    jack_deactivate (feed.client);
    jack_client_close (feed.client);

    // The returned audio: the signal after a delay of whole periods, identical sample for sample.
    const std::size_t recorded = feed.recorded.load();
    long delay = -1;
    for (long d = 0; d <= 4 * static_cast<long> (period) && delay < 0; d += static_cast<long> (period))
    {
        bool same = recorded >= feed.signal.size() + static_cast<std::size_t> (d);
        for (std::size_t i = 0; same && i < feed.signal.size(); ++i)
            same = std::memcmp (&feed.returned[0][i + static_cast<std::size_t> (d)], &feed.signal[i], sizeof (float)) == 0
                   && std::memcmp (&feed.returned[1][i + static_cast<std::size_t> (d)], &feed.signal[i], sizeof (float)) == 0;
        if (same)
            delay = d;
    }
    std::printf ("played %zu samples at %u Hz in periods of %u, recorded %zu; pass-through delay %ld samples; "
                 "MIDI note-ons %d, note-offs %d, other %d\n",
                 feed.signal.size(), rate, period, recorded, delay, feed.noteOns.load(), feed.noteOffs.load(), feed.otherMidi.load());
    int failures = 0;
    if (! playedAll)
        failures += std::fprintf (stderr, "FAIL: the signal was not played out within the deadline\n") > 0;
    if (delay < 0)
        failures += std::fprintf (stderr, "FAIL: the plugin's output is not its input (bit-exact, after whole periods)\n") > 0;
    if (! gotNotes)
        failures += std::fprintf (stderr, "FAIL: no MIDI note-on from the plugin within %.0f s\n", deadline) > 0;
    return failures == 0 ? 0 : 1;
}
