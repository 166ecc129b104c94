// The waveform front end: settings of a model that computes its own features.
#include "engine/Model.h"
#include "engine/file/FrontendSettings.h"
#include "support/SafetensorsWriter.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;
using Catch::Matchers::Contains;
using engine::FrontendSettings;

namespace
{
/** A model whose input has `inputShape` (its mean is the output) with the given front end. */
std::shared_ptr<const engine::Model> modelWith (const std::vector<int64_t>& inputShape, const std::string& frontend)
{
    std::string shape = "[", ones = "[", axes = "[";
    for (std::size_t i = 0; i < inputShape.size(); ++i)
    {
        shape += (i ? "," : "") + std::to_string (inputShape[i]);
        ones += i ? ",1" : "1";
        axes += (i ? "," : "") + std::to_string (i);
    }
    const std::string graph = R"({"inputs":[0],"outputs":[1],"values":[{"shape":)" + shape + R"(],"kind":"input"},{"shape":)" + ones
                              + R"(],"kind":"node"}],"nodes":[{"op":"reduce_mean","inputs":[0],"outputs":[1],"attrs":{"axes":)" + axes
                              + R"(],"keepdim":true}}]})";
    auto metadata = modelMetadata (graph);
    metadata["frontend"] = frontend;
    const auto bytes = safetensorsBytes ({}, metadata);
    return engine::Model::fromMemory (bytes.data(), bytes.size(), "waveform-test");
}
} // namespace

TEST_CASE ("waveform front-end settings: rate and window, nothing else", "[dsp][waveform]")
{
    const auto settings = FrontendSettings::fromJson (R"({"type": "waveform", "sample_rate": 22050, "window_samples": 11025})");
    CHECK (settings.isWaveform());
    CHECK (settings.sampleRate == 22050.0);
    CHECK (settings.windowSamples == 11025);
    CHECK_FALSE (FrontendSettings::fromJson (R"({"sample_rate": 16000, "n_mels": 8})").isWaveform());

    CHECK_THROWS_WITH (FrontendSettings::fromJson (R"({"type": "waveform", "sample_rate": 16000})"), Contains ("needs sample_rate and window_samples"));
    CHECK_THROWS_WITH (FrontendSettings::fromJson (R"({"type": "waveform", "sample_rate": 100, "window_samples": 16000})"), Contains ("'sample_rate'"));
    CHECK_THROWS_WITH (FrontendSettings::fromJson (R"({"type": "waveform", "sample_rate": 16000, "window_samples": 0})"), Contains ("'window_samples'"));
    CHECK_THROWS_WITH (FrontendSettings::fromJson (R"({"type": "waveform", "sample_rate": 16000, "window_samples": 16000, "n_mels": 64})"),
                       Contains ("'n_mels' does not apply to a waveform front end"));
    CHECK_THROWS_WITH (FrontendSettings::fromJson (R"({"type": "cqt", "sample_rate": 16000, "n_mels": 8})"), Contains ("'type' must be"));
}

TEST_CASE ("a waveform model takes one mono window of window_samples", "[dsp][waveform]")
{
    const std::string frontend = R"({"type": "waveform", "sample_rate": 16000, "window_samples": 8000})";
    for (const auto& shape : std::vector<std::vector<int64_t>> { { 8000 }, { 1, 8000 }, { 1, 1, 8000 } })
    {
        INFO (shape.size());
        CHECK (modelWith (shape, frontend)->info().frontend->windowSamples == 8000);
    }
    // A front end that does not fit the graph's input is refused when the file loads.
    CHECK_THROWS_WITH (modelWith ({ 1, 4000 }, frontend), Contains ("not one mono waveform of window_samples = 8000"));
    CHECK_THROWS_WITH (modelWith ({ 2, 8000 }, frontend), Contains ("not one mono waveform"));
    CHECK_THROWS_WITH (modelWith ({ 1, 1, 1, 8000 }, frontend), Contains ("not one mono waveform"));
}
