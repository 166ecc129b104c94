// The plugin runs a model that computes its own features from the raw waveform: loaded
// like any model file, no front-end settings needed, results and MIDI follow.
#include "plugin/ProcessorDriver.h"
#include "support/ExampleClips.h"
#include "support/Fixtures.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;

TEST_CASE ("the plugin loads a waveform-input model and classifies the audio it plays", "[plugin][waveform]")
{
    TestProcessor processor;
    ProcessorDriver driver (processor, 48000.0, 2, 512);
    driver.play (exampleSequence ({ "drums" }, 48000.0, 1));

    REQUIRE (loadModel (processor, juce::File (fixturePath ("waveform_classifier.safetensors"))));
    CHECK_FALSE (processor.statusIsError());
    CHECK (processor.modelDescription().name == "waveform_classifier.safetensors");
    driver.play (exampleSequence ({ "speech", "drums" }, 48000.0, 1));
    const auto snapshot = processor.snapshot();
    CHECK (snapshot.info->modelSampleRate == 16000.0);
    CHECK (snapshot.info->labels.size() == 4);
    REQUIRE (snapshot.hasResult);
    REQUIRE (snapshot.result.probabilities.size() == 4);
    float sum = 0.0f;
    for (float p : snapshot.result.probabilities)
        sum += p;
    CHECK (sum == Approx (1.0f).margin (1e-5));
    CHECK (snapshot.stats.error.empty());
    CHECK (snapshot.stats.windowsRun > 0);
}
