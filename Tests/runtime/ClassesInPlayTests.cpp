// Only the classes in play (WindowAnalyzer::setClassesInPlay): the others 0, the answer a softmax
// over their logits alone, which equals the full answer renormalised over them; all or none in
// play is the full answer, bit for bit; labels the model lacks are named.
#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"
#include "support/ExampleClips.h"

#include <catch2/catch.hpp>

#include <numeric>

using namespace sonotype;

namespace
{
std::vector<runtime::WindowResult> analyzeAll (const std::vector<float>& samples, const std::vector<bool>& inPlay, double smoothing = 0.0)
{
    runtime::WindowAnalyzer analyzer (resources::builtinModel(), 16000.0, 0.5, smoothing);
    analyzer.setClassesInPlay (inPlay);
    analyzer.push (samples.data(), samples.size());
    analyzer.finish();
    std::vector<runtime::WindowResult> results;
    for (auto k = analyzer.nextWindow(); k <= analyzer.newestCompleteWindow(); ++k)
        analyzer.analyze (k, results.emplace_back());
    return results;
}
} // namespace

TEST_CASE ("classes in play: the others get 0, the rest is the full answer renormalised over them", "[runtime][classes]")
{
    const auto model = resources::builtinModel();
    const auto labels = runtime::classLabels (*model);
    const auto inPlay = runtime::classesInPlay (labels, { "piano", "guitar", "bass" });
    REQUIRE (std::count (inPlay.begin(), inPlay.end(), true) == 3);
    const auto samples = testing::exampleSequence ({ "piano", "guitar" }, 16000.0, 1);
    const auto full = analyzeAll (samples, {});
    const auto restricted = analyzeAll (samples, inPlay);
    REQUIRE (full.size() == restricted.size());
    REQUIRE (full.size() > 4);
    for (std::size_t w = 0; w < full.size(); ++w)
    {
        double sum = 0.0;
        for (std::size_t c = 0; c < labels.size(); ++c)
            sum += inPlay[c] ? full[w].probabilities[c] : 0.0;
        for (std::size_t c = 0; c < labels.size(); ++c)
        {
            INFO ("window " << w << ", " << labels[c]);
            if (inPlay[c])
                CHECK (restricted[w].probabilities[c] == Approx (full[w].probabilities[c] / sum).epsilon (1e-5).margin (1e-7));
            else
                CHECK (restricted[w].probabilities[c] == 0.0f);
        }
        CHECK (std::accumulate (restricted[w].probabilities.begin(), restricted[w].probabilities.end(), 0.0) == Approx (1.0).epsilon (1e-6));
        CHECK (inPlay[static_cast<std::size_t> (restricted[w].topClass)]);
    }
    // All or none in play: the full answer, bit for bit.
    for (const auto& mask : { std::vector<bool> (labels.size(), true), std::vector<bool> (labels.size(), false) })
    {
        const auto same = analyzeAll (samples, mask);
        for (std::size_t w = 0; w < full.size(); ++w)
            CHECK (same[w].probabilities == full[w].probabilities);
    }
    // With smoothing, the restriction comes first: smoothed answers stay inside the classes in play.
    for (const auto& result : analyzeAll (samples, inPlay, 1.0))
        for (std::size_t c = 0; c < labels.size(); ++c)
            if (! inPlay[c])
                CHECK (result.probabilities[c] == 0.0f);
}

TEST_CASE ("classes in play: a label the model lacks is named, a mask of another length refused", "[runtime][classes]")
{
    const auto model = resources::builtinModel();
    const auto labels = runtime::classLabels (*model);
    CHECK_THROWS_WITH (runtime::classesInPlay (labels, { "piano", "kick" }), Catch::Contains ("'kick' is not a class of this model")
                                                                                 && Catch::Contains ("silence, noise, speech"));
    CHECK (runtime::classesInPlay (labels, {}) == std::vector<bool> (labels.size(), true));
    runtime::WindowAnalyzer analyzer (model, 48000.0, 0.25);
    CHECK_THROWS_WITH (analyzer.setClassesInPlay ({ true, false }), Catch::Contains ("2 flags for a model of 12 classes"));
}
