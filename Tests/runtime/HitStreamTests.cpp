// The analysis worker's per-hit part (runtime::HitStream): the hits a HitClassifier finds in the
// same samples, in any chunks, with their onsets in samples of the whole stream; its requests (off
// until asked, the same settings go on, new ones restart, off stops); the classes in play; a
// failure reported, not thrown.
#include "resources/BuiltinModel.h"
#include "runtime/HitStream.h"
#include "support/ExampleClips.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>

using namespace sonotype;

namespace
{
struct HeardHit
{
    int64_t onsetSample = 0;
    float levelDb = 0.0f;
    std::vector<float> probabilities;
    uint64_t generation = 0;
};

runtime::AnalysisInfo infoOf (std::shared_ptr<const engine::Model> model, uint64_t generation)
{
    runtime::AnalysisInfo info;
    info.labels = runtime::classLabels (*model);
    info.model = std::move (model);
    info.generation = generation;
    return info;
}

/** Pushes `samples` in random chunks of 1 to 3000 (the listener adds to `heard`), checking each push's count. */
void pushInChunks (runtime::HitStream& stream, std::vector<HeardHit>& heard, const std::vector<float>& samples,
                   const runtime::AnalysisInfo& info, const runtime::ClassSelector& selector = {})
{
    std::mt19937 random (7);
    std::uniform_int_distribution<std::size_t> chunk (1, 3000);
    for (std::size_t at = 0; at < samples.size();)
    {
        const auto count = std::min (chunk (random), samples.size() - at);
        const auto before = heard.size();
        const auto found = stream.push (samples.data() + at, count, info, selector);
        CHECK (found == static_cast<int64_t> (heard.size() - before));
        at += count;
    }
}
} // namespace

TEST_CASE ("the hit stream hears a HitClassifier's hits in the same samples, in any chunks, onsets in stream samples", "[runtime][hits]")
{
    const auto model = resources::builtinModel();
    const double rate = 44100.0;
    const auto samples = testing::exampleSequence ({ "drums" }, rate, 1);

    // The reference: one analyzer, one push, the model's clip (what the live per-hit mode runs).
    std::vector<runtime::HitResult> reference;
    std::vector<std::vector<float>> referenceProbabilities;
    runtime::HitClassifier analyzer (model, rate, runtime::hitSettingsFor (*model, {}));
    analyzer.push (samples.data(), samples.size(), [&] (const runtime::HitResult& hit) {
        reference.push_back (hit);
        referenceProbabilities.push_back (hit.result.probabilities);
    });
    REQUIRE (reference.size() >= 5);

    std::vector<HeardHit> heard;
    runtime::HitStream stream ([] (const char* prefix, const char* what) { FAIL (std::string (prefix) + what); });
    stream.setListener ([&] (const runtime::HitResult& hit, int64_t onsetSample, const runtime::AnalysisInfo& info) {
        heard.push_back ({ onsetSample, hit.levelDb, hit.result.probabilities, info.generation });
    });
    stream.request (dsp::OnsetSettings {});
    REQUIRE (stream.takeRequest());
    constexpr int64_t start = 12345; // where the stream stood when the hits started
    stream.restart (model, rate, start);
    REQUIRE (stream.isOn());
    pushInChunks (stream, heard, samples, infoOf (model, 7));

    REQUIRE (heard.size() == reference.size());
    for (std::size_t i = 0; i < heard.size(); ++i)
    {
        CHECK (heard[i].onsetSample == start + reference[i].onset);
        CHECK (heard[i].levelDb == reference[i].levelDb);
        CHECK (heard[i].probabilities == referenceProbabilities[i]); // bit for bit
        CHECK (heard[i].generation == 7);
    }
}

TEST_CASE ("the hit stream is off until asked, the same settings go on, new ones restart, off stops", "[runtime][hits]")
{
    const auto model = resources::builtinModel();
    const double rate = 48000.0;
    const auto samples = testing::exampleSequence ({ "drums" }, rate, 1);
    const auto info = infoOf (model, 1);
    std::vector<HeardHit> heard;
    runtime::HitStream stream ([] (const char* prefix, const char* what) { FAIL (std::string (prefix) + what); });
    stream.setListener ([&] (const runtime::HitResult& hit, int64_t onsetSample, const runtime::AnalysisInfo&) {
        heard.push_back ({ onsetSample, hit.levelDb, {}, 0 });
    });

    // Nothing asked: no analyzer, even when restarted; nothing heard.
    CHECK_FALSE (stream.takeRequest());
    stream.restart (model, rate, 0);
    CHECK_FALSE (stream.isOn());
    CHECK (stream.push (samples.data(), samples.size(), info, {}) == 0);
    CHECK (heard.empty());

    stream.request (dsp::OnsetSettings {});
    CHECK (stream.takeRequest());
    CHECK_FALSE (stream.takeRequest()); // taken once
    stream.restart (model, rate, 0);
    REQUIRE (stream.isOn());
    stream.request (dsp::OnsetSettings {}); // the same again: the hits pending go on
    CHECK_FALSE (stream.takeRequest());
    dsp::OnsetSettings other;
    other.threshold = 2.0;
    stream.request (other);
    CHECK (stream.takeRequest());
    stream.restart (model, rate, 0);
    CHECK (stream.isOn());
    pushInChunks (stream, heard, samples, info);
    CHECK_FALSE (heard.empty());

    // No stream to analyse: stopped, and the settings stay for the next restart.
    stream.stop();
    CHECK_FALSE (stream.isOn());
    stream.restart (model, rate, 0);
    CHECK (stream.isOn());

    stream.request (std::nullopt);
    CHECK (stream.takeRequest());
    stream.restart (model, rate, 0);
    CHECK_FALSE (stream.isOn());
    heard.clear();
    CHECK (stream.push (samples.data(), samples.size(), info, {}) == 0);
    CHECK (heard.empty());
}

TEST_CASE ("the hit stream classifies its hits among the classes in play", "[runtime][hits]")
{
    const auto model = resources::builtinModel();
    const auto info = infoOf (model, 3);
    const auto inPlay = runtime::classesInPlay (info.labels, { "drums", "piano" });
    const auto samples = testing::exampleSequence ({ "drums" }, 44100.0, 1);
    std::vector<HeardHit> heard;
    runtime::HitStream stream ([] (const char* prefix, const char* what) { FAIL (std::string (prefix) + what); });
    stream.setListener ([&] (const runtime::HitResult& hit, int64_t onsetSample, const runtime::AnalysisInfo&) {
        heard.push_back ({ onsetSample, hit.levelDb, hit.result.probabilities, 0 });
    });
    stream.request (dsp::OnsetSettings {});
    REQUIRE (stream.takeRequest());
    stream.restart (model, 44100.0, 0);
    int asked = 0;
    pushInChunks (stream, heard, samples, info, [&] (const runtime::AnalysisInfo& asking) -> const std::vector<bool>& {
        ++asked;
        CHECK (asking.generation == 3);
        return inPlay;
    });
    CHECK (asked > 0);
    REQUIRE_FALSE (heard.empty());
    for (const auto& hit : heard)
        for (std::size_t c = 0; c < inPlay.size(); ++c)
            if (! inPlay[c])
                CHECK (hit.probabilities[c] == 0.0f);
}

TEST_CASE ("a hit stream that cannot run says why and stays off, until a request brings it back", "[runtime][hits]")
{
    const auto model = resources::builtinModel();
    std::vector<std::string> errors;
    runtime::HitStream stream ([&] (const char* prefix, const char* what) { errors.push_back (std::string (prefix) + what); });
    stream.request (dsp::OnsetSettings {});
    REQUIRE (stream.takeRequest());
    stream.restart (model, 500.0, 0); // a rate the onset detector refuses
    CHECK_FALSE (stream.isOn());
    REQUIRE (errors.size() == 1);
    CHECK (errors.front().rfind ("no per-hit analysis: ", 0) == 0);
    // The same settings asked again: with no analyzer running, they start it afresh.
    stream.request (dsp::OnsetSettings {});
    CHECK (stream.takeRequest());
    stream.restart (model, 44100.0, 0);
    CHECK (stream.isOn());
    CHECK (errors.size() == 1);
}
