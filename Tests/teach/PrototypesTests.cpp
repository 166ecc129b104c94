// Teaching: prototypes from examples, the scoring rules, leave-one-file-out, and the taught model
// file, whose engine output must be what the rule computes (the check people read before writing
// a model has to describe the model written).
#include "engine/Model.h"
#include "engine/Session.h"
#include "formats/AudioFileReader.h"
#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"
#include "support/EncodedAudio.h"
#include "support/ExampleClips.h"
#include "support/Fixtures.h"
#include "teach/ExampleSet.h"
#include "teach/TaughtModel.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace sonotype;

namespace
{
teach::Example unitExample (const std::string& source, std::vector<float> direction)
{
    double norm = 0.0;
    for (float x : direction)
        norm += x * x;
    for (auto& x : direction)
        x = static_cast<float> (x / std::sqrt (norm));
    return { source, direction, {}, 1 };
}

std::vector<float> softmax (const std::vector<float>& scores)
{
    const float top = *std::max_element (scores.begin(), scores.end());
    std::vector<float> out;
    double sum = 0.0;
    for (float s : scores)
        sum += out.emplace_back (std::exp (s - top));
    for (auto& p : out)
        p = static_cast<float> (p / sum);
    return out;
}
} // namespace

TEST_CASE ("teach: a class is the mean of its examples, new classes score by cosine, unknown below the threshold", "[teach]")
{
    const std::vector<teach::TaughtClass> classes { { "kick", { unitExample ("a.wav", { 1, 0.1f, 0 }), unitExample ("b.wav", { 1, -0.1f, 0 }) } },
                                                    { "snare", { unitExample ("c.wav", { 0, 1, 0 }) } } };
    const auto head = teach::learn (classes, { "silence", "speech" }, 0.5);
    CHECK_FALSE (head.adapted);
    REQUIRE (head.labels == std::vector<std::string> { "kick", "snare", "unknown" });
    CHECK (head.prototypes[0][0] == Approx (1.0f));
    CHECK (head.prototypes[0][1] == Approx (0.0f).margin (1e-6));
    const auto s = teach::scores (head, { 0.6f, 0.8f, 0.0f }, {});
    CHECK (s[0] == Approx (20.0f * 0.6f));
    CHECK (s[1] == Approx (20.0f * 0.8f));
    CHECK (s[2] == Approx (20.0f * 0.5f));
    const auto far = teach::scores (head, { 0.0f, 0.0f, 1.0f }, {}); // close to no class: unknown
    CHECK (std::max_element (far.begin(), far.end()) - far.begin() == 2);
    CHECK_THROWS_WITH (teach::learn ({ { "kick", {} } }, {}, 0.5), Catch::Contains ("'kick' has no examples"));
    CHECK_THROWS_WITH (teach::learn ({ classes[0], classes[0] }, {}, 0.5), Catch::Contains ("'kick' is given twice"));
    CHECK_THROWS_WITH (teach::learn ({ { "unknown", classes[0].examples } }, {}, 0.5), Catch::Contains ("--unknown-below -1"));
    CHECK_THROWS (teach::learn ({ { std::string ("bad\x9b"
                                                 "name"),
                                    classes[0].examples } },
                                {}, 0.5));
}

TEST_CASE ("teach: the model's own classes, adapted: its head over them plus 5 x cosine", "[teach]")
{
    const std::vector<teach::TaughtClass> classes { { "piano", { unitExample ("p.wav", { 1, 0 }) } }, { "bass", { unitExample ("b.wav", { 0, 1 }) } } };
    const auto head = teach::learn (classes, { "silence", "piano", "organ", "bass" }, 0.5);
    REQUIRE (head.adapted);
    CHECK (head.labels == std::vector<std::string> { "piano", "bass", "unknown" }); // unknown too, by the same gates
    CHECK (head.baseIndex == std::vector<int> { 1, 3 });
    const auto s = teach::scores (head, { 1, 0 }, { 0.1f, 0.2f, 0.5f, 0.2f }); // over piano and bass: 0.5 each
    CHECK (s[0] == Approx (4.0f * (0.5f + 5.0f)));
    CHECK (s[1] == Approx (4.0f * (0.5f + 0.0f)));
}

TEST_CASE ("teach: leave one file out says how often each class comes out right", "[teach]")
{
    const std::vector<teach::TaughtClass> classes { { "a", { unitExample ("a1", { 1, 0.1f }), unitExample ("a2", { 1, -0.1f }), unitExample ("x", { 0.1f, 1 }) } },
                                                    { "b", { unitExample ("b1", { 0.1f, 1 }), unitExample ("b2", { -0.1f, 1 }) } } };
    const auto confusion = teach::leaveOneFileOut (classes, {}, -1.0);
    REQUIRE (confusion.labels == std::vector<std::string> { "a", "b" });
    CHECK (confusion.counts[0] == std::vector<int> { 2, 1 }); // "x" sounds like b
    CHECK (confusion.counts[1] == std::vector<int> { 0, 2 });
    CHECK (confusion.correct == 4);
    CHECK (confusion.total == 5);
    // Hits of one file each: each hit is left out alone, not the whole class.
    const std::vector<teach::TaughtClass> hits { { "kick", { unitExample ("k.wav@0.5", { 1, 0 }), unitExample ("k.wav@1.0", { 1, 0.05f }) } },
                                                 { "hat", { unitExample ("h.wav@0.5", { 0, 1 }), unitExample ("h.wav@1.0", { 0.05f, 1 }) } } };
    CHECK (teach::leaveOneFileOut (hits, {}, 0.5).correct == 4);
}

TEST_CASE ("teach: the taught model file computes what the rule computes, and classify runs it", "[teach]")
{
    const auto base = resources::builtinModel();
    REQUIRE (base->info().embeddingOutput.has_value());
    const auto folder = juce::File::createTempFile ("teach");
    folder.createDirectory();
    // Examples: the example clips as files, taught as new classes and as the model's own.
    std::vector<teach::TaughtClass> fresh, adapted;
    for (const auto& [name, clip] : { std::pair<const char*, const char*> { "talk", "speech" }, { "beat", "drums" }, { "keys", "piano" } })
    {
        const auto path = testing::exampleFile (clip).getFullPathName().toStdString();
        const auto examples = teach::examplesOf (path, base, {});
        REQUIRE (examples.size() == 1);
        CHECK (examples[0].numWindows > 2);
        fresh.push_back ({ name, examples });
        adapted.push_back ({ clip, examples });
    }
    for (const auto* classes : { &fresh, &adapted })
    {
        const auto head = teach::learn (*classes, base->info().labels, 0.5);
        CHECK (head.adapted == (classes == &adapted));
        const auto bytes = teach::taughtModelFile (resources::builtinModelFile(), "built-in", head);
        const auto taught = engine::Model::fromMemory (bytes.data(), bytes.size(), "taught");
        CHECK (taught->info().labels == head.labels);
        CHECK (taught->info().embeddingOutput == std::optional<int> (1));
        CHECK (taught->info().metadata.at ("taught").find ("\"base\":\"built-in\"") != std::string::npos);
        // Window by window: the taught model's answer = the rule over the base model's embedding.
        const auto samples = testing::exampleSequence ({ "piano", "guitar", "speech" }, 16000.0, 1);
        runtime::WindowAnalyzer baseAnalyzer (base, 16000.0, 0.5), taughtAnalyzer (taught, 16000.0, 0.5);
        for (auto* analyzer : { &baseAnalyzer, &taughtAnalyzer })
        {
            analyzer->push (samples.data(), samples.size());
            analyzer->finish();
        }
        int windows = 0;
        for (auto k = baseAnalyzer.nextWindow(); k <= baseAnalyzer.newestCompleteWindow(); ++k, ++windows)
        {
            runtime::WindowResult fromBase, fromTaught;
            baseAnalyzer.analyze (k, fromBase);
            taughtAnalyzer.analyze (k, fromTaught);
            std::vector<float> unit (baseAnalyzer.embedding().begin(), baseAnalyzer.embedding().end());
            double norm = 0.0;
            for (float x : unit)
                norm += x * x;
            for (auto& x : unit)
                x = static_cast<float> (x / std::sqrt (norm));
            const auto expected = softmax (teach::scores (head, unit, fromBase.probabilities));
            REQUIRE (fromTaught.probabilities.size() == expected.size());
            for (std::size_t c = 0; c < expected.size(); ++c)
                CHECK (fromTaught.probabilities[c] == Approx (expected[c]).margin (2e-5));
            // The taught model's embedding is the base model's.
            CHECK (std::equal (baseAnalyzer.embedding().begin(), baseAnalyzer.embedding().end(), taughtAnalyzer.embedding().begin()));
        }
        CHECK (windows > 8);
    }
    folder.deleteRecursively();
}

TEST_CASE ("teach: a taught model is taught again: its head stays, the new head's tensors get names of their own", "[teach]")
{
    // Heads of unit prototypes along the first axes (what they compute is checked above).
    const auto headOf = [] (std::vector<std::string> labels, std::size_t numTaught, std::vector<int> baseIndex) {
        teach::Head head;
        head.labels = std::move (labels);
        for (std::size_t c = 0; c < numTaught; ++c)
        {
            std::vector<float> prototype (96, 0.0f);
            prototype[c] = 1.0f;
            head.prototypes.push_back (prototype);
        }
        head.adapted = ! baseIndex.empty();
        head.baseIndex = std::move (baseIndex);
        return head;
    };
    const auto first = teach::taughtModelFile (resources::builtinModelFile(), "built-in", headOf ({ "x", "y", "unknown" }, 2, {}));
    const auto second = teach::taughtModelFile (first, "first", headOf ({ "a", "b", "c", "unknown" }, 3, {}));
    const auto third = teach::taughtModelFile (second, "second", headOf ({ "c", "a" }, 2, { 2, 0 })); // adapted: the second head's scores
    const auto load = [] (const std::vector<std::uint8_t>& bytes) { return engine::Model::fromMemory (bytes.data(), bytes.size(), "taught"); };
    const auto base = resources::builtinModel();
    const auto twice = load (second), thrice = load (third);
    CHECK (twice->info().labels == std::vector<std::string> { "a", "b", "c", "unknown" });
    CHECK (thrice->info().labels == std::vector<std::string> { "c", "a" });
    for (const auto* name : { "taught.prototypes", "taught2.prototypes", "taught2.cosine_below" })
        CHECK (twice->storedTensor (name) != nullptr);
    CHECK (thrice->storedTensor ("taught3.cosine_weight") != nullptr);
    CHECK (thrice->info().metadata.at ("taught").find ("\"base\":\"second\"") != std::string::npos);
    // The embedding is still the base model's, bit for bit.
    engine::Session fromBase (base), fromThrice (thrice);
    for (auto* session : { &fromBase, &fromThrice })
    {
        auto input = session->input (0);
        for (std::size_t i = 0; i < input.size(); ++i)
            input[i] = std::sin (0.01f * static_cast<float> (i));
        session->run();
    }
    CHECK (std::equal (fromBase.output (1).begin(), fromBase.output (1).end(), fromThrice.output (1).begin(), fromThrice.output (1).end()));
}

TEST_CASE ("teach: a model without an embedding output cannot be taught, and says how to export one", "[teach]")
{
    // The built-in model's file with its embedding_output taken out of the metadata.
    auto bytes = std::vector<std::uint8_t> (resources::builtinModelFile().begin(), resources::builtinModelFile().end());
    const std::string key = "\"embedding_output\"";
    const auto at = std::string (bytes.begin(), bytes.end()).find (key);
    REQUIRE (at != std::string::npos);
    std::copy_n ("\"embedding_outpux\"", key.size(), bytes.begin() + static_cast<std::ptrdiff_t> (at)); // an unknown key, ignored
    const auto model = engine::Model::fromMemory (bytes.data(), bytes.size(), "no embedding");
    REQUIRE_FALSE (model->info().embeddingOutput.has_value());
    CHECK_THROWS_WITH (teach::examplesOf (testing::exampleFile ("speech").getFullPathName().toStdString(), model, {}),
                       Catch::Contains ("without an embedding output") && Catch::Contains ("embedding="));
}

TEST_CASE ("taught examples round-trip through their JSON, and hostile text is refused with what is wrong", "[teach]")
{
    teach::ExampleSet set;
    set.learnedOn = "built-in#0011223344556677";
    set.hits = true;
    set.hitsChosen = true;
    set.unknownBelow = 0.3;
    set.classes.push_back ({ "kick", { { "input 1", { 0.5f, -0.25f, 1.0f, -1.0f, 0.0f } } }, -1 });
    set.classes.push_back ({ "snare", {}, 40 });
    const auto back = teach::decodeExampleSet (teach::encodeExampleSet (set));
    REQUIRE (back.classes.size() == 2);
    CHECK (back.classes[0].note == -1); // none chosen: none written
    CHECK (back.classes[1].note == 40);
    CHECK (teach::encodeExampleSet (set).find (R"("note":40)") != std::string::npos);
    CHECK (back.learnedOn == set.learnedOn);
    CHECK (back.hits);
    CHECK (back.hitsChosen);
    CHECK (back.unknownBelow == 0.3);
    // A set without "hits" leaves the choice to the examples' lengths; one with the old default
    // threshold 0.5 (which nothing could change) or none gets the calibrated gates.
    const auto old = teach::decodeExampleSet (R"({"sample_rate":16000,"unknown_below":0.5,"learned_on":"","classes":[]})");
    CHECK_FALSE (old.hits);
    CHECK_FALSE (old.hitsChosen);
    CHECK (std::isnan (old.unknownBelow));
    CHECK (std::isnan (teach::decodeExampleSet (teach::encodeExampleSet ({})).unknownBelow));
    CHECK (back.classes[0].examples[0].source == "input 1");
    REQUIRE (back.classes[0].examples[0].samples.size() == 5);
    for (std::size_t i = 0; i < 5; ++i)
        CHECK (back.classes[0].examples[0].samples[i] == Approx (set.classes[0].examples[0].samples[i]).margin (1.0 / 32767));
    CHECK (back.classes[1].examples.empty());

    const auto refused = [] (const std::string& json) {
        try
        {
            teach::decodeExampleSet (json);
        }
        catch (const std::invalid_argument& e)
        {
            return std::string (e.what());
        }
        return std::string ("accepted");
    };
    const std::string head = R"({"sample_rate":16000,"unknown_below":0.5,"learned_on":"","classes":)";
    CHECK_THAT (refused ("[[[["), Catch::Contains ("not valid JSON"));
    CHECK_THAT (refused (std::string (200, '[')), Catch::Contains ("not valid JSON")); // deeper than the parser goes
    CHECK_THAT (refused (R"({"sample_rate":1e9,"unknown_below":0.5,"learned_on":"","classes":[]})"), Catch::Contains ("sample rate"));
    CHECK_THAT (refused (head + R"([{"name":"kick","examples":[{"source":"a","pcm16":"!!!!"}]}]})"), Catch::Contains ("no 16-bit samples"));
    CHECK_THAT (refused (head + R"([{"name":"kick","examples":[{"source":"a","pcm16":"AA=="}]}]})"), Catch::Contains ("no 16-bit samples")); // one byte: half a sample
    CHECK_THAT (refused (head + R"([{"name":"","examples":[]}]})"), Catch::Contains ("class name"));
    CHECK_THAT (refused (head + R"([{"name":"kick"}]})"), Catch::Contains ("missing key 'examples'"));
    CHECK_THAT (refused (head + R"([{"name":"kick","examples":[],"note":128}]})"), Catch::Contains ("the note of the class 'kick' is not a MIDI note"));
    CHECK_THAT (refused (head + R"([{"name":"kick","examples":[],"note":"C1"}]})"), Catch::Contains ("the note of the class 'kick' is not a MIDI note"));
    CHECK_THAT (refused (R"({"sample_rate":16000,"unknown_below":0.5,"hits":1,"learned_on":"","classes":[]})"), Catch::Contains ("expected a boolean"));
    // An example over 10 s is refused before it is decoded.
    const std::string longExample (static_cast<std::size_t> (16000 * 11 * 2 / 3 * 4), 'A');
    CHECK_THAT (refused (head + R"([{"name":"kick","examples":[{"source":"a","pcm16":")" + longExample + R"("}]}]})"), Catch::Contains ("longer than 10 s"));
}

TEST_CASE ("teach: a sound in memory gives the hits a file of it gives, each its own example", "[teach][hits]")
{
    const auto path = sonotype::testing::fixturePath ("kit/snare/snare.wav");
    teach::ExampleSettings settings;
    settings.hits = true;
    const auto fromFile = teach::examplesOf (path, resources::builtinModel(), settings);
    formats::AudioFileReader reader (path);
    const auto samples = sonotype::testing::readAll (reader);
    const auto fromMemory = teach::hitExamplesOfSamples (samples, reader.sampleRate(), "input 1", resources::builtinModel(), settings);
    REQUIRE (fromFile.size() >= 5);
    REQUIRE (fromMemory.size() == fromFile.size());
    for (std::size_t i = 0; i < fromFile.size(); ++i)
    {
        CHECK (fromMemory[i].source.substr (0, 8) == "input 1@");
        CHECK (fromMemory[i].source.substr (8) == fromFile[i].source.substr (path.size() + 1)); // the same onset
        CHECK (fromMemory[i].embedding == fromFile[i].embedding);
        CHECK (fromMemory[i].probabilities == fromFile[i].probabilities);
    }
    CHECK (teach::hitExamplesOfSamples (std::vector<float> (16000, 0.0f), 16000.0, "silence", resources::builtinModel(), settings).empty());
}
