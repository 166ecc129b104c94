// The fixture kit's pattern (rendered by `python3 -m sonotype.hits.kit`: fixtures/kit/pattern.wav,
// and pattern.txt with each hit's time and piece) and how many of a run's hits name it right.
#pragma once

#include "support/Fixtures.h"
#include "timeline/HitAnalysis.h"

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace sonotype::testing
{

struct RenderedHit
{
    double seconds = 0.0;
    std::string piece; // kick, snare or hat
};

/** The hits pattern.wav was rendered with, in time order. */
inline std::vector<RenderedHit> kitPattern()
{
    std::ifstream file (fixturePath ("kit/pattern.txt"));
    std::vector<RenderedHit> hits;
    for (RenderedHit hit; file >> hit.seconds >> hit.piece;)
        hits.push_back (hit);
    return hits;
}

/** The found hits within 25 ms of a rendered hit and labelled with its piece. */
inline int hitsNamedAsRendered (const timeline::HitAnalysisResult& found, const std::vector<RenderedHit>& rendered)
{
    int named = 0;
    for (const auto& hit : found.hits)
        for (const auto& truth : rendered)
            named += std::abs (hit.seconds - truth.seconds) < 0.025 && found.labels[static_cast<std::size_t> (hit.classIndex)] == truth.piece;
    return named;
}

} // namespace sonotype::testing
