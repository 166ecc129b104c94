// OSC out, against a receiver on loopback: /sonotype/top <label> <confidence> and
// /sonotype/probs <floats...>, off by default, and disabled classes left out.
#include "plugin/ProcessorDriver.h"
#include "support/ExampleClips.h"

#include <catch2/catch.hpp>

#include <juce_osc/juce_osc.h>

#include <mutex>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
class Collector final : public juce::OSCReceiver::Listener<juce::OSCReceiver::RealtimeCallback>
{
public:
    void oscMessageReceived (const juce::OSCMessage& message) override
    {
        const std::lock_guard<std::mutex> lock (mutex);
        messages.push_back (message);
    }
    std::vector<juce::OSCMessage> take()
    {
        const std::lock_guard<std::mutex> lock (mutex);
        return messages;
    }
    void clear()
    {
        const std::lock_guard<std::mutex> lock (mutex);
        messages.clear();
    }
    std::mutex mutex;
    std::vector<juce::OSCMessage> messages;
};

/** Until `condition` holds (UDP on loopback: it comes within milliseconds) or 20 s pass. */
template <typename Condition>
bool waitFor (Condition condition)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds (20);
    while (! condition() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for (std::chrono::milliseconds (1));
    return condition();
}

int openReceiver (juce::OSCReceiver& receiver)
{
    juce::Random random;
    for (int attempt = 0; attempt < 50; ++attempt)
    {
        const int port = 20000 + random.nextInt (20000);
        if (receiver.connect (port))
            return port;
    }
    return -1;
}
} // namespace

TEST_CASE ("OSC: top class and probabilities reach a receiver on loopback", "[plugin][osc]")
{
    juce::OSCReceiver receiver;
    Collector collector;
    receiver.addListener (&collector);
    const int port = openReceiver (receiver);
    REQUIRE (port > 0);

    TestProcessor processor;
    CHECK_FALSE (processor.osc().target().enabled); // off by default
    ProcessorDriver driver (processor, 48000.0, 2, 512);
    driver.play (exampleSequence ({ "speech" }, 48000.0, 1));
    REQUIRE (processor.analysis().stats().windowsRun > 0);
    // Nothing was sent: a marker sent now arrives first (loopback keeps the order).
    {
        juce::OSCSender marker;
        REQUIRE (marker.connect ("127.0.0.1", port));
        REQUIRE (marker.send (juce::OSCMessage ("/test/marker")));
        REQUIRE (waitFor ([&] { return ! collector.take().empty(); }));
        const auto before = collector.take();
        REQUIRE (before.size() == 1);
        CHECK (before[0].getAddressPattern().toString() == "/test/marker");
        collector.clear();
    }

    processor.setClassEnabled ("silence", false);
    REQUIRE (processor.osc().setTarget ({ true, "127.0.0.1", port }).isEmpty());
    const auto windowsBefore = processor.analysis().stats().windowsRun;
    driver.play (exampleSequence ({ "drums" }, 48000.0, 2));
    // Every window analyzed since sends /sonotype/probs (and /sonotype/top): wait for them all.
    const auto windows = processor.analysis().stats().windowsRun - windowsBefore;
    auto countProbs = [&] {
        const auto received = collector.take();
        return std::count_if (received.begin(), received.end(), [] (const juce::OSCMessage& m) { return m.getAddressPattern().toString() == "/sonotype/probs"; });
    };
    CHECK (waitFor ([&] { return countProbs() >= windows; }));
    const auto messages = collector.take();
    int tops = 0, probs = 0;
    const auto labels = processor.analysis().labels();
    const auto silence = static_cast<std::size_t> (std::find (labels.begin(), labels.end(), "silence") - labels.begin());
    juce::String lastTop;
    for (const auto& message : messages)
    {
        if (message.getAddressPattern().toString() == "/sonotype/top")
        {
            ++tops;
            REQUIRE (message.size() == 2);
            REQUIRE (message[0].isString());
            REQUIRE (message[1].isFloat32());
            CHECK (message[1].getFloat32() > 0.0f);
            CHECK (message[1].getFloat32() <= 1.0f);
            lastTop = message[0].getString();
        }
        else if (message.getAddressPattern().toString() == "/sonotype/probs")
        {
            ++probs;
            REQUIRE (message.size() == static_cast<int> (labels.size()));
            float sum = 0.0f;
            for (const auto& argument : message)
            {
                REQUIRE (argument.isFloat32());
                sum += argument.getFloat32();
            }
            CHECK (sum <= 1.0001f);
            CHECK (message[static_cast<int> (silence)].getFloat32() == 0.0f); // disabled
        }
    }
    CHECK (probs == windows);
    CHECK (tops == windows); // a top class in every window (12 classes, one disabled)
    CHECK (windows >= 8);    // a window every 0.25 s over 4 s (the driver lets the worker keep up)
    CHECK (lastTop == "drums");

    CHECK (processor.osc().setTarget ({ true, "127.0.0.1", 70000 }).isNotEmpty()); // bad port: an error, no crash
    receiver.removeListener (&collector);
    receiver.disconnect();
}
