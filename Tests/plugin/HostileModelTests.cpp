// The hostile model-file corpus through the plugin's model loading, as a user dropping a file from
// a forum on Sonotype mid-session: each file is refused with its specific message in the status,
// the running model keeps running and the audio passes through untouched.
#include "plugin/ProcessorDriver.h"
#include "support/ExampleClips.h"
#include "support/HostileModels.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace sonotype;
using namespace sonotype::testing;

TEST_CASE ("every hostile model file is refused by the plugin with its message, the running model keeps running", "[plugin][hostile]")
{
    TestProcessor processor;
    ProcessorDriver driver (processor, 48000.0, 2, 512);
    const auto clip = exampleSequence ({ "speech" }, 48000.0, 1);
    int refused = 0;
    for (const auto& hostile : hostileModels())
    {
        // The plugin loads with the default budgets: a file the corpus refuses only under a
        // smaller budget (the 1 MB JSON bomb, 16 MiB) is not a threat at 2 GiB.
        if (hostile.limits.maxMemoryBytes != engine::LoadLimits {}.maxMemoryBytes)
            continue;
        INFO (hostile.path << ": " << hostile.description);
        processor.loadModelFile (juce::File (hostile.path));
        REQUIRE (waitForModelLoad (processor));
        INFO ("status: " << processor.statusMessage());
        if (hostile.stage == "valid")
        {
            CHECK_FALSE (processor.statusIsError());
            CHECK (processor.modelDescription().name == juce::File (hostile.path).getFileName());
            processor.useBuiltinModel();
            continue;
        }
        ++refused;
        CHECK (processor.statusIsError());
        CHECK (processor.statusMessage().contains (juce::String::fromUTF8 (hostile.expect.c_str())));
        CHECK (processor.statusMessage().contains ("keeps running"));
        CHECK (processor.modelDescription().builtin);
    }
    CHECK (refused >= 25);
    // After all of them, the built-in model still analyses and the audio still passes through.
    driver.play (clip);
    CHECK (processor.snapshot().hasResult);
    CHECK (processor.analysis().labels().size() == 12);
    juce::AudioBuffer<float> block (2, 512);
    for (int c = 0; c < 2; ++c)
        std::copy_n (clip.data(), 512, block.getWritePointer (c));
    juce::MidiBuffer midi;
    processor.processBlock (block, midi);
    for (int c = 0; c < 2; ++c)
        CHECK (std::equal (clip.begin(), clip.begin() + 512, block.getReadPointer (c)));
}
