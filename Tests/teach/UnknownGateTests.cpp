// The gates that make a taught model answer "unknown" (teach/Prototypes.h): the distance gate's
// calibration from the examples' leave-one-out spread, the level gate under the quietest example,
// the file's graph computing both as the rule does, and a kit taught from hits answering unknown
// in window mode for silence, room noise and speech.
#include "engine/Model.h"
#include "formats/AudioFileReader.h"
#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"
#include "support/ExampleClips.h"
#include "support/Fixtures.h"
#include "teach/Lesson.h"
#include "teach/WindowLevel.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace sonotype;

namespace
{
teach::Example example (const std::string& source, std::vector<float> direction, float levelDb = -10.0f)
{
    double norm = 0.0;
    for (float x : direction)
        norm += x * x;
    for (auto& x : direction)
        x = static_cast<float> (x / std::sqrt (norm));
    teach::Example out { source, direction, {}, 1 };
    out.levelDb = levelDb;
    return out;
}

std::size_t top (const std::vector<float>& scores)
{
    return static_cast<std::size_t> (std::max_element (scores.begin(), scores.end()) - scores.begin());
}

/** The windows of `samples` through `model` (a taught one), the label of each. */
std::vector<std::string> windowLabels (const std::shared_ptr<const engine::Model>& model, const std::vector<float>& samples, double rate)
{
    runtime::WindowAnalyzer analyzer (model, rate, 0.25);
    analyzer.push (samples.data(), samples.size());
    analyzer.finish();
    std::vector<std::string> labels;
    runtime::WindowResult result;
    for (auto k = analyzer.nextWindow(); k <= analyzer.newestCompleteWindow(); ++k)
    {
        analyzer.analyze (k, result);
        labels.push_back (analyzer.labels()[static_cast<std::size_t> (result.topClass)]);
    }
    return labels;
}
} // namespace

TEST_CASE ("teach: each class's distance gate comes from its examples' leave-one-out spread, within its bounds", "[teach][unknown]")
{
    // Class a: three examples at angles 0, +t and -t in one plane, spread enough to set its own threshold.
    const float t = 0.35f;
    const std::vector<teach::TaughtClass> classes {
        { "a", { example ("a1", { 1, 0, 0, 0 }), example ("a2", { std::cos (t), std::sin (t), 0, 0 }), example ("a3", { std::cos (t), -std::sin (t), 0, 0 }) } },
        { "b", { example ("b1", { 0, 0, 1, 0 }), example ("b2", { 0, 0, 1, 0.01f }) } }, // nearly copies: the bound below holds
        { "c", { example ("c1", { 0, 0, 0, 1 }) } }                                      // one example: the others' spread
    };
    const auto head = teach::learn (classes, {});
    REQUIRE (head.labels == std::vector<std::string> { "a", "b", "c", "unknown" });
    REQUIRE (head.cosineBelow.size() == 3);
    // The spread of a, computed as the rule says: the RMS of each example's distance to the others' prototype.
    const auto loo = [] (std::vector<float> left, std::vector<float> other1, std::vector<float> other2) {
        std::vector<float> mean (4);
        double norm = 0.0;
        for (std::size_t i = 0; i < 4; ++i)
            norm += (mean[i] = other1[i] + other2[i]) * mean[i];
        double cosine = 0.0;
        for (std::size_t i = 0; i < 4; ++i)
            cosine += left[i] * mean[i] / std::sqrt (norm);
        return 1.0 - cosine;
    };
    const auto& a = classes[0].examples;
    const double d1 = loo (a[0].embedding, a[1].embedding, a[2].embedding), d2 = loo (a[1].embedding, a[0].embedding, a[2].embedding),
                 d3 = loo (a[2].embedding, a[0].embedding, a[1].embedding);
    const double spreadA = std::sqrt ((d1 * d1 + d2 * d2 + d3 * d3) / 3.0);
    CHECK (head.spread[0] == Approx (spreadA).epsilon (1e-4));
    CHECK (head.cosineBelow[0] == Approx (1.0 - std::clamp (3.0 * spreadA, 0.15, 0.5)).epsilon (1e-4));
    CHECK (1.0 - head.cosineBelow[0] > 0.15);                                // this spread is wide enough to set it
    CHECK (head.cosineBelow[1] == Approx (1.0 - teach::Head::kMinDistance)); // b's examples are nearly one sound
    CHECK (std::isnan (head.spread[2]));                                     // c has no spread of its own: the rule before the gates
    CHECK (head.cosineBelow[2] == Approx (1.0f - teach::Head::kMaxDistance));
    // Unknown exactly when no class clears its threshold.
    const auto between = teach::scores (head, example ("x", { 1, 0, 2, 1 }).embedding, {}); // 0.41 to a and c, 0.82 to b
    CHECK (top (between) == 3);
    const auto near = teach::scores (head, example ("x", { 1, 0.1f, 0, 0 }).embedding, {});
    CHECK (top (near) == 0);
    // --unknown-below: one threshold for every class, unknown's score 20 x it (the rule before the gates); -1: no unknown.
    const auto fixed = teach::learn (classes, {}, 0.4);
    CHECK (fixed.cosineBelow == std::vector<float> { 0.4f, 0.4f, 0.4f });
    CHECK (teach::scores (fixed, example ("x", { 1, 0, 1, 0 }).embedding, {})[3] == Approx (20.0f * 0.4f));
    CHECK_FALSE (teach::learn (classes, {}, -1.0).hasUnknown());
}

TEST_CASE ("teach: the level gate makes material much quieter than every example unknown, whatever its cosine", "[teach][unknown]")
{
    const std::vector<teach::TaughtClass> classes { { "a", { example ("a1", { 1, 0 }, -12.0f), example ("a2", { 1, 0.1f }, -5.0f) } },
                                                    { "b", { example ("b1", { 0, 1 }, -20.0f), example ("b2", { 0.1f, 1 }, -8.0f) } } };
    const auto head = teach::learn (classes, {});
    CHECK (head.levelBelowDb == Approx (-20.0f - teach::Head::kLevelMarginDb));
    const auto onA = example ("x", { 1, 0.05f }).embedding;
    CHECK (top (teach::scores (head, onA, {}, -49.0f)) == 0);                                  // quiet, above the gate
    CHECK (top (teach::scores (head, onA, {}, -62.0f)) == 2);                                  // 12 dB under it: unknown
    CHECK (top (teach::scores (head, onA, {}, std::numeric_limits<float>::quiet_NaN())) == 0); // no level: no gate
    // An example without a level (a model without a level output): no level gate.
    auto unmeasured = classes;
    unmeasured[1].examples[1].levelDb = std::numeric_limits<float>::quiet_NaN();
    CHECK (std::isnan (teach::learn (unmeasured, {}).levelBelowDb));
    // The adapted rule has the same gates.
    const auto adapted = teach::learn ({ { "piano", classes[0].examples }, { "bass", classes[1].examples } }, { "silence", "piano", "bass" });
    REQUIRE (adapted.adapted);
    CHECK (top (teach::scores (adapted, onA, { 0.1f, 0.8f, 0.1f }, -62.0f)) == 2);
    CHECK (top (teach::scores (adapted, onA, { 0.1f, 0.8f, 0.1f }, -30.0f)) == 0);
}

TEST_CASE ("teach: a kit taught from hits answers unknown for silence, room noise and speech windows, as its rule does", "[teach][unknown][hits]")
{
    const auto base = resources::builtinModel();
    const auto bytes = resources::builtinModelFile();
    teach::LessonSettings settings;
    settings.hits = true;
    teach::Lesson lesson ({ bytes.begin(), bytes.end() }, base, "built-in", settings);
    REQUIRE (teach::levelOutputOf (*lesson.embedder()).has_value());
    std::vector<teach::TaughtClass> classes;
    for (const auto* piece : { "kick", "snare", "hat" })
        classes.push_back ({ piece, lesson.examplesOfFile (testing::fixturePath (std::string ("kit/") + piece + "/" + piece + ".wav")) });
    for (const auto& taught : classes)
    {
        REQUIRE (taught.examples.size() == 5);
        for (const auto& e : taught.examples)
            CHECK (std::isfinite (e.levelDb));
    }
    const auto learned = lesson.learn (classes);
    CHECK (learned.confusion.correct == 15); // the gates leave the kit's own hits named
    const auto taught = lesson.build (learned.head).model;
    REQUIRE (taught->info().labels.back() == "unknown");
    REQUIRE (teach::levelOutputOf (*taught) == std::optional<std::size_t> (2));

    const double rate = 44100.0;
    std::vector<float> silence (static_cast<std::size_t> (3 * rate), 0.0f), noise (silence.size());
    std::mt19937 random (7);
    std::normal_distribution<float> gauss (0.0f, 0.001f); // -60 dBFS RMS
    float low = 0.0f;
    for (auto& x : noise)
        x = low = 0.995f * low + 0.1f * gauss (random); // a room's rumble, about -60 dBFS
    for (const auto* sound : { &silence, &noise })
        for (const auto& label : windowLabels (taught, *sound, rate))
            CHECK (label == "unknown");
    const auto speech = testing::exampleSequence ({ "speech" }, 16000.0, 1);
    int unknown = 0, windows = 0;
    for (const auto& label : windowLabels (taught, speech, 16000.0))
    {
        unknown += label == "unknown" ? 1 : 0;
        ++windows;
    }
    CHECK (unknown >= windows * 9 / 10);

    // The file's answer is the rule's, its level gate included: window by window on the embedder's outputs.
    runtime::WindowAnalyzer fromEmbedder (lesson.embedder(), 16000.0, 0.25), fromTaught (taught, 16000.0, 0.25);
    std::vector<float> quietSpeech (speech);
    for (std::size_t i = quietSpeech.size() / 2; i < quietSpeech.size(); ++i)
        quietSpeech[i] *= 0.001f; // its second half 60 dB down: the level gate's side
    for (auto* analyzer : { &fromEmbedder, &fromTaught })
    {
        analyzer->push (quietSpeech.data(), quietSpeech.size());
        analyzer->finish();
    }
    for (auto k = fromEmbedder.nextWindow(); k <= fromEmbedder.newestCompleteWindow(); ++k)
    {
        runtime::WindowResult a, b;
        fromEmbedder.analyze (k, a);
        fromTaught.analyze (k, b);
        std::vector<float> unit (fromEmbedder.embedding().begin(), fromEmbedder.embedding().end());
        const auto level = fromEmbedder.output (*teach::levelOutputOf (*lesson.embedder()))[0];
        CHECK (fromTaught.output (2)[0] == Approx (level).margin (1e-4));
        double norm = 0.0;
        for (float x : unit)
            norm += x * x;
        for (auto& x : unit)
            x = static_cast<float> (x / std::sqrt (norm));
        const auto s = teach::scores (learned.head, unit, a.probabilities, level);
        const float topScore = *std::max_element (s.begin(), s.end());
        double sum = 0.0;
        for (float x : s)
            sum += std::exp (x - topScore);
        for (std::size_t c = 0; c < s.size(); ++c)
            CHECK (b.probabilities[c] == Approx (std::exp (s[c] - topScore) / sum).margin (2e-5));
    }
}
