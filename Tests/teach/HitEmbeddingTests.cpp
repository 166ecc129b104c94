// Hits taught from the model's token sequence (teach/HitEmbedding.h): the built-in model's stem
// tokens found by the graph's shape, their mean over the span as the embedding output, the scores
// untouched, and a taught file made on it computing the rule over that embedding.
#include "engine/Model.h"
#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"
#include "support/ExampleClips.h"
#include "teach/HitEmbedding.h"
#include "teach/TaughtModel.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace sonotype;

namespace
{
std::vector<std::uint8_t> builtinBytes()
{
    return { resources::builtinModelFile().begin(), resources::builtinModelFile().end() };
}

std::shared_ptr<const engine::Model> load (const std::vector<std::uint8_t>& bytes)
{
    return engine::Model::fromMemory (bytes.data(), bytes.size(), "hit embedding");
}

/** The model's answer and embedding for a clip, as a hit is classified. */
std::pair<std::vector<float>, std::vector<float>> clipResult (const std::shared_ptr<const engine::Model>& model, const std::vector<float>& clip)
{
    runtime::WindowAnalyzer analyzer (model, 16000.0, 1.0);
    runtime::WindowResult result;
    analyzer.analyzeClip (clip.data(), clip.size(), result);
    return { result.probabilities, { analyzer.embedding().begin(), analyzer.embedding().end() } };
}

/** `bytes` with every `from` replaced by `to` (of the same length). */
std::vector<std::uint8_t> replaced (std::vector<std::uint8_t> bytes, const std::string& from, const std::string& to)
{
    REQUIRE (from.size() == to.size());
    std::string text (bytes.begin(), bytes.end());
    for (auto at = text.find (from); at != std::string::npos; at = text.find (from, at + 1))
    {
        text.replace (at, from.size(), to);
        ++at;
    }
    return { text.begin(), text.end() };
}
} // namespace

TEST_CASE ("teach: a hit's embedding is the mean of the built-in model's stem tokens over 40-160 ms, its scores the base model's", "[teach]")
{
    const auto bytes = teach::hitEmbeddingModelFile (builtinBytes());
    REQUIRE (bytes.has_value());
    const auto model = load (*bytes);
    const auto base = resources::builtinModel();
    CHECK (model->info().embeddingOutput == std::optional<int> (1));
    CHECK (model->info().outputShapes.size() == 2);
    CHECK (model->info().outputShapes[1].toString() == "[1, 96]");
    CHECK (model->info().labels == base->info().labels);
    const auto& described = model->info().metadata.at ("hit_embedding");
    CHECK (described.find ("\"tokens\":[2,8]") != std::string::npos); // 51 tokens a second: 40 ms is token 2, 160 ms token 8
    CHECK (described.find ("\"of\":51") != std::string::npos);
    // Already a hit embedding: as it is.
    CHECK (teach::hitEmbeddingModelFile (*bytes) == bytes);
    // What it says, read back (the CLI prints it); nothing for a model without one, or one it cannot read.
    const auto info = teach::hitEmbeddingOf (*model);
    REQUIRE (info.has_value());
    CHECK (info->fromToken == 2);
    CHECK (info->toToken == 8);
    CHECK (info->numTokens == 51);
    CHECK (info->fromSeconds == 0.039); // token 2 of 51 a second
    CHECK (info->toSeconds == 0.157);
    CHECK_FALSE (teach::hitEmbeddingOf (*base).has_value());
    CHECK_FALSE (teach::hitEmbeddingOf (*load (replaced (*bytes, "\\\"of\\\":51", "\\\"of\\\":[]"))).has_value());

    // Each token alone: their mean is the embedding of the span.
    std::vector<std::shared_ptr<const engine::Model>> single;
    for (int k = 2; k < 8; ++k)
    {
        const auto one = teach::hitEmbeddingModelFile (builtinBytes(), { k / 51.0, (k + 1) / 51.0 });
        REQUIRE (one.has_value());
        CHECK (load (*one)->info().metadata.at ("hit_embedding").find ("\"tokens\":[" + std::to_string (k) + "," + std::to_string (k + 1) + "]")
               != std::string::npos);
        single.push_back (load (*one));
    }
    for (const auto* name : { "drums", "piano", "speech" })
    {
        const auto samples = testing::exampleClip (name, 16000.0);
        const std::vector<float> clip (samples.begin() + 4000, samples.begin() + 4000 + 1920); // a 0.12 s clip
        const auto [scores, embedding] = clipResult (model, clip);
        const auto [baseScores, baseEmbedding] = clipResult (base, clip);
        CHECK (scores == baseScores);       // output 0 is the base model's, bit for bit
        CHECK (embedding != baseEmbedding); // output 1 is not
        std::vector<double> mean (96, 0.0);
        for (const auto& m : single)
        {
            const auto e = clipResult (m, clip).second;
            REQUIRE (e.size() == 96);
            for (std::size_t i = 0; i < 96; ++i)
                mean[i] += e[i] / 6.0;
        }
        REQUIRE (embedding.size() == 96);
        for (std::size_t i = 0; i < 96; ++i)
            CHECK (embedding[i] == Approx (mean[i]).margin (1e-5));
    }
}

TEST_CASE ("teach: a model without a token sequence (or a front end to time it) keeps its embedding for hits", "[teach]")
{
    // The built-in model's graph without a concat (the op renamed: the file is only searched, not loaded).
    CHECK_FALSE (teach::hitEmbeddingModelFile (replaced (builtinBytes(), "\\\"concat\\\"", "\\\"concaT\\\"")).has_value());
    // Without its front end's settings: no seconds to find the tokens by.
    CHECK_FALSE (teach::hitEmbeddingModelFile (replaced (builtinBytes(), "\"frontend\"", "\"frontenD\"")).has_value());
    CHECK_THROWS_AS (teach::hitEmbeddingModelFile (builtinBytes(), { 0.2, 0.1 }), std::invalid_argument);
    CHECK_THROWS_AS (teach::hitEmbeddingModelFile (std::vector<std::uint8_t> (4, 0)), std::invalid_argument);
}

TEST_CASE ("teach: a model taught from hits computes the rule over the hit embedding, and says what it was taught from", "[teach]")
{
    const auto bytes = teach::hitEmbeddingModelFile (builtinBytes());
    REQUIRE (bytes.has_value());
    const auto model = load (*bytes);
    // Two classes of clips (0.12 s of the examples), as hits would be taught.
    std::vector<teach::TaughtClass> classes;
    for (const auto* name : { "drums", "guitar" })
    {
        teach::TaughtClass taught { name, {} };
        const auto samples = testing::exampleClip (name, 16000.0);
        for (std::size_t at = 0; at + 1920 <= samples.size() && taught.examples.size() < 5; at += 6000)
        {
            auto [probabilities, embedding] = clipResult (model, { samples.begin() + static_cast<std::ptrdiff_t> (at),
                                                                   samples.begin() + static_cast<std::ptrdiff_t> (at + 1920) });
            double norm = 0.0;
            for (float x : embedding)
                norm += x * x;
            for (auto& x : embedding)
                x = static_cast<float> (x / std::sqrt (norm));
            taught.examples.push_back ({ std::string (name) + "@" + std::to_string (at), embedding, probabilities, 1 });
        }
        classes.push_back (std::move (taught));
    }
    for (const bool adapted : { false, true })
    {
        auto taughtClasses = classes;
        if (! adapted)
            for (auto& c : taughtClasses)
                c.name = "my " + c.name;
        auto head = teach::learn (taughtClasses, model->info().labels, 0.5);
        REQUIRE (head.adapted == adapted);
        head.hitClipSeconds = 0.12;
        const auto file = teach::taughtModelFile (*bytes, "built-in", head);
        const auto taught = engine::Model::fromMemory (file.data(), file.size(), "taught");
        const auto& record = taught->info().metadata.at ("taught");
        CHECK (record.find ("\"embedding\":{") != std::string::npos);
        CHECK (record.find ("\"tokens\":[2,8]") != std::string::npos);
        CHECK (record.find ("\"onset_window\":0.12") != std::string::npos);
        const auto samples = testing::exampleClip ("piano", 16000.0);
        for (std::size_t at = 0; at + 1920 <= samples.size(); at += 5000)
        {
            const std::vector<float> clip (samples.begin() + static_cast<std::ptrdiff_t> (at), samples.begin() + static_cast<std::ptrdiff_t> (at + 1920));
            auto [probabilities, embedding] = clipResult (model, clip);
            const auto fromTaught = clipResult (taught, clip);
            CHECK (fromTaught.second == embedding); // the taught file's embedding is the hit embedding
            double norm = 0.0;
            for (float x : embedding)
                norm += x * x;
            for (auto& x : embedding)
                x = static_cast<float> (x / std::sqrt (norm));
            auto expected = teach::scores (head, embedding, probabilities);
            const float top = *std::max_element (expected.begin(), expected.end());
            double sum = 0.0;
            for (auto& s : expected)
                sum += (s = std::exp (s - top));
            REQUIRE (fromTaught.first.size() == expected.size());
            for (std::size_t c = 0; c < expected.size(); ++c)
                CHECK (fromTaught.first[c] == Approx (expected[c] / sum).margin (2e-5));
        }
    }
}
