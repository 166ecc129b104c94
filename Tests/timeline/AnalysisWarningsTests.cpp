// The warnings of a file's analysis, in the words the CLI prints after "warning: FILE: " and the app
// shows under the file's timeline: each text, and their order.
#include "timeline/AnalysisWarnings.h"

#include <catch2/catch.hpp>

using namespace sonotype;

TEST_CASE ("warnings of a file analysed window by window: the truncated file, NaN samples, the model's output", "[timeline][classify]")
{
    timeline::FileAnalysisResult result;
    CHECK (timeline::warningsOf (result).empty());
    result.truncationWarning = "the header claims 100 samples but the file holds 50 (truncated file); classified what is there";
    result.numNonFiniteSamples = 3;
    result.numWindows = 12;
    result.numNonFiniteWindows = 2;
    CHECK (timeline::warningsOf (result)
           == std::vector<std::string> { "the header claims 100 samples but the file holds 50 (truncated file); classified what is there",
                                         "3 NaN or infinite samples were replaced by 0",
                                         "the model's output was not finite (NaN or infinite) in 2 of 12 windows" });
    result.truncationWarning.clear();
    result.numNonFiniteWindows = 0;
    CHECK (timeline::warningsOf (result) == std::vector<std::string> { "3 NaN or infinite samples were replaced by 0" });
}

TEST_CASE ("warnings of a file analysed hit by hit: the model's output for some hits", "[timeline][classify]")
{
    timeline::HitAnalysisResult result;
    CHECK (timeline::warningsOf (result).empty());
    result.hits.resize (5);
    result.numNonFiniteHits = 1;
    result.numNonFiniteSamples = 7;
    CHECK (timeline::warningsOf (result)
           == std::vector<std::string> { "7 NaN or infinite samples were replaced by 0",
                                         "the model's output was not finite (NaN or infinite) for 1 of 5 hits" });
}
