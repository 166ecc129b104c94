// Teaching a model new classes (or its own, adapted) from a few examples: each example is the
// model's embedding (ModelInfo::embeddingOutput, computed in the same run as its scores) of an
// audio file's windows, averaged and L2-normalised, or of one hit (the per-hit mode). A class is
// the normalised mean of its examples, its prototype.
//
// The rule that scores a window (the same in leave-one-out checks here and in the model file
// TaughtModel writes, so what the check says is what the file does):
// - new classes (any taught class that is not one of the base model's): 20 x the cosine to each
//   prototype;
// - only the base model's own classes, adapted: the base head's probability over the taught
//   classes alone plus 5 x the cosine to the class's prototype (scores: 4 x (p + 5 cos)). Measured
//   outside the project on real recordings, this never did worse than the restricted head alone
//   and was best with one example per class.
// Then "unknown", for both rules, from two gates: what is far from every class (the distance gate)
// or much quieter than every example (the level gate) is never a confident class.
// - Distance: each class has a cosine below which a window is not that class, calibrated from its
//   own examples: d, the RMS over its examples of 1 - the cosine of each to the prototype of the
//   others (leave one out), times kSpreadFactor, and at least kMinDistance (examples that are
//   nearly copies of one sound, as one-shots at several velocities are, say nothing of how far a
//   new hit of the same piece lies) and at most kMaxDistance (the fixed 0.5 of before: never looser
//   than that). A class of one example has no spread of its own and keeps kMaxDistance. How far
//   the best class clears its own threshold, m = max over classes of (cos - threshold), sets
//   unknown's score: the best class's score - 20 m, so unknown
//   wins exactly when no class clears its threshold (with one threshold for all, as `--unknown-below`
//   gives, unknown's score is 20 x the threshold, the rule before the gates).
// - Level: a window whose level (teach/WindowLevel.h: the loudest of its features, in dB) lies
//   more than kLevelMarginDb under the quietest example's adds kLevelGain per dB under that to
//   unknown's score: 10 dB under it, unknown is ahead of any class by 40.
// No JUCE, no threads of its own: the CLI and the plugin's worker call it.
#pragma once

#include "dsp/OnsetDetector.h"
#include "engine/Model.h"
#include "runtime/LiveHitClassifier.h"

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sonotype::teach
{

/** One example: the normalised mean embedding of a file's windows (or of one hit), with the base
    model's mean probabilities over the same windows (for the adapted classes' rule). */
struct Example
{
    std::string source;           // the file (and hit time): leave-one-out leaves out a whole file
    std::vector<float> embedding; // L2-normalised
    std::vector<float> probabilities;
    int numWindows = 0;
    float levelDb = std::numeric_limits<float>::quiet_NaN(); // the loudest window's level (WindowLevel.h); NaN: not measured
    std::vector<float> signature {};                         // a hit's first milliseconds (dsp::HitSignature), for the live per-hit mode; empty: none
};

struct ExampleSettings
{
    double hopSeconds = 0.25;
    bool hits = false;         // one example per hit (onsets) instead of one per file
    double clipSeconds = 0.12; // hits: the clip each hit is embedded from (0.12 s classified drum pieces best: docs/TEACH.md)
};

/** The examples a file gives (one, or one per hit). Throws for a file that is not audio, a model
    without an embedding output ("… was exported without an embedding: export it with
    embedding=…"), and the analyzer's errors. */
std::vector<Example> examplesOf (const std::string& path, const std::shared_ptr<const engine::Model>& model, const ExampleSettings& settings);

/** The example a sound in memory gives (mono samples at `sampleRate`, e.g. a recording from the
    plugin's input): the same windows and mean as a file of those samples. Throws as examplesOf. */
Example exampleOfSamples (std::span<const float> samples, double sampleRate, const std::string& source,
                          const std::shared_ptr<const engine::Model>& model, double hopSeconds = 0.25);

/** The examples a sound in memory gives in the per-hit mode: one per hit the onset detector finds
    in it (runtime::HitClassifier with `onsets` and settings.clipSeconds, as classify --onsets),
    each with source "<source>@<onset seconds>"; none when it finds no hit. Throws as examplesOf. */
std::vector<Example> hitExamplesOfSamples (std::span<const float> samples, double sampleRate, const std::string& source,
                                           const std::shared_ptr<const engine::Model>& model, const ExampleSettings& settings,
                                           const dsp::OnsetSettings& onsets = {});

struct TaughtClass
{
    std::string name;
    std::vector<Example> examples;
};

/** What unknown is told by: a cosine for every class (calibrated) or one for all. */
inline constexpr double kCalibratedUnknown = std::numeric_limits<double>::quiet_NaN();

/** What is learned: the prototypes, the rule and its gates. */
struct Head
{
    std::vector<std::string> labels;                              // the taught classes, then "unknown" when it has one
    std::vector<std::vector<float>> prototypes;                   // one per taught class, L2-normalised
    bool adapted = false;                                         // every class is one of the base model's: the combined rule
    std::vector<int> baseIndex;                                   // adapted: each class's index in the base model's output
    double unknownBelow = kCalibratedUnknown;                     // as learned with: NaN calibrated, else one cosine for all (-1: no unknown)
    std::vector<float> cosineBelow;                               // the distance gate: per class (empty: no unknown)
    std::vector<float> spread;                                    // per class: the leave-one-out RMS distance its gate came from (NaN: none)
    float levelBelowDb = std::numeric_limits<float>::quiet_NaN(); // the level gate (NaN: none)
    double hitClipSeconds = 0.0;                                  // taught from hits: the clip they were embedded from (0: from files)
    std::optional<runtime::LiveHitKit> live;                      // taught from hits: the live per-hit classifier (teach/LiveHitLearning.h)
    static constexpr float kAdaptedCosineWeight = 5.0f, kAdaptedScale = 4.0f, kNewScale = 20.0f;
    static constexpr float kSpreadFactor = 3.0f, kMinDistance = 0.15f, kMaxDistance = 0.5f;
    static constexpr float kLevelMarginDb = 30.0f, kLevelGain = 4.0f;
    /** Unknown's score falls by this much per unit of cosine the best class clears its threshold by
        (the cosine's weight in both rules' scores). */
    float gateGain() const noexcept { return adapted ? kAdaptedScale * kAdaptedCosineWeight : kNewScale; }
    bool hasUnknown() const noexcept { return labels.size() > prototypes.size(); }
    /** Class c's cosine threshold: its calibrated one, else one for all (unknownBelow, or the rule
        before the gates for a head made by hand without either). */
    float threshold (std::size_t c) const noexcept
    {
        if (cosineBelow.size() == prototypes.size())
            return cosineBelow[c];
        return std::isnan (unknownBelow) ? 1.0f - kMaxDistance : static_cast<float> (unknownBelow);
    }
};

/** Learns a head from the classes (each with at least one example). Throws std::invalid_argument
    for no class, a class without examples, two classes of one name, or a name that is not a valid
    label (engine::checkDisplayText's rules). `unknownBelow`: kCalibratedUnknown (the gates above),
    one cosine for every class (with the level gate), or -1 (no unknown, no gates). */
Head learn (const std::vector<TaughtClass>& classes, const std::vector<std::string>& baseLabels, double unknownBelow = kCalibratedUnknown);

/** The head's scores for one example (as the taught model file computes them: index = label);
    `levelDb` NaN: the level gate does not apply. */
std::vector<float> scores (const Head& head, const std::vector<float>& embedding, const std::vector<float>& baseProbabilities,
                           float levelDb = std::numeric_limits<float>::quiet_NaN());

/** Leave one file out: each file's examples classified by a head learned without them (in a
    class whose examples all come from one file, as hits do, each example is left out alone).
    counts[true][predicted], predicted over head.labels (so "unknown" is a column). Two examples
    with the same source must be the same example. */
struct Confusion
{
    std::vector<std::string> labels;
    std::vector<std::vector<int>> counts;
    std::vector<std::vector<int>> predicted; // [class][example]: the label index it got, in the classes' own order
    int correct = 0, total = 0;
};
Confusion leaveOneFileOut (const std::vector<TaughtClass>& classes, const std::vector<std::string>& baseLabels,
                           double unknownBelow = kCalibratedUnknown);

} // namespace sonotype::teach
