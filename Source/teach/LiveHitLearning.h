// Learning the live per-hit classifier (runtime/LiveHitClassifier.h) from the taught hits'
// signatures: the examples are kept as they are (nearest neighbours need no training), and what
// is learned is how far apart numbers of one piece lie: each dimension's scale, the spread within
// a class pooled over the classes and never under a floor (examples that are one sample at several
// velocities say nothing of how a piece varies when played), and the gate beyond which a hit is
// no taught piece. The leave-one-out check says how many of the examples the rest would name right.
// No JUCE, no threads: the CLI's and the plugin's teaching (teach::Lesson) call it.
#pragma once

#include "runtime/LiveHitClassifier.h"
#include "teach/Prototypes.h"

#include <optional>
#include <vector>

namespace sonotype::teach
{

/** The scales' floors, in dB: a band's share, a part of the attack's movement, the level. */
inline constexpr float kLiveBandFloorDb = 3.0f, kLiveSegmentFloorDb = 3.0f, kLiveLevelFloorDb = 12.0f;
/** The scale of a number some example has not: any difference in it then counts for nothing. */
inline constexpr float kLiveIgnoredScale = 1e6f;
/** The gate: this many times the 90th percentile of the examples' distances to their class's
    nearest other example, and at least kLiveMinGate. */
inline constexpr float kLiveGateFactor = 3.0f, kLiveMinGate = 6.0f;

/** The kit from the classes' examples that have a signature (Example::signature), label c for
    class c (the head's order); nullopt when no example has one (the model was not taught from
    hits, or the hits were found by the exact detector only). */
std::optional<runtime::LiveHitKit> learnLiveHits (const std::vector<TaughtClass>& classes, double afterSeconds);

/** Each example with a signature classified by the kit without it: how many, and how many right. */
struct LiveHitCheck
{
    int correct = 0, total = 0;
};
LiveHitCheck leaveOneOut (const runtime::LiveHitKit& kit, int numClasses);

} // namespace sonotype::teach
