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
    std::mutex mutex;
    std::vector<juce::OSCMessage> messages;
};

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
    juce::Thread::sleep (100);
    CHECK (collector.take().empty());

    processor.setClassEnabled ("silence", false);
    REQUIRE (processor.osc().setTarget ({ true, "127.0.0.1", port }).isEmpty());
    driver.play (exampleSequence ({ "drums" }, 48000.0, 2));
    juce::Thread::sleep (200);
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
    CHECK (tops >= 8); // a window every 0.25 s over 4 s
    CHECK (probs == tops);
    CHECK (lastTop == "drums");

    CHECK (processor.osc().setTarget ({ true, "127.0.0.1", 70000 }).isNotEmpty()); // bad port: an error, no crash
    receiver.removeListener (&collector);
    receiver.disconnect();
}
