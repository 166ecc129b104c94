// Teaching a model new classes (or its own, adapted) from a few examples: each example is the
// model's embedding (ModelInfo::embeddingOutput, computed in the same run as its scores) of an
// audio file's windows, averaged and L2-normalised, or of one hit (the per-hit mode). A class is
// the normalised mean of its examples, its prototype.
//
// The rule that scores a window (the same in leave-one-out checks here and in the model file
// TaughtModel writes, so what the check says is what the file does):
// - new classes (any taught class that is not one of the base model's): cosine similarity to each
//   prototype; "unknown" when the best is below `unknownBelow` (scores: 20 x cosine, and unknown a
//   constant 20 x unknownBelow);
// - only the base model's own classes, adapted: the base head's probability over the taught
//   classes alone plus 5 x the cosine to the class's prototype (scores: 4 x (p + 5 cos)). Measured
//   outside the project on real recordings, this never did worse than the restricted head alone
//   and was best with one example per class.
// No JUCE, no threads of its own: the CLI and the plugin's worker call it.
#pragma once

#include "dsp/OnsetDetector.h"
#include "engine/Model.h"

#include <memory>
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

/** What is learned: the prototypes and the rule. */
struct Head
{
    std::vector<std::string> labels;            // the taught classes, then "unknown" when new classes have one
    std::vector<std::vector<float>> prototypes; // one per taught class, L2-normalised
    bool adapted = false;                       // every class is one of the base model's: the combined rule
    std::vector<int> baseIndex;                 // adapted: each class's index in the base model's output
    double unknownBelow = 0.5;                  // new classes: best cosine below this is "unknown" (-1: never)
    double hitClipSeconds = 0.0;                // taught from hits: the clip they were embedded from (0: from files)
    static constexpr float kAdaptedCosineWeight = 5.0f, kAdaptedScale = 4.0f, kNewScale = 20.0f;
};

/** Learns a head from the classes (each with at least one example). Throws std::invalid_argument
    for no class, a class without examples, two classes of one name, or a name that is not a valid
    label (engine::checkDisplayText's rules). */
Head learn (const std::vector<TaughtClass>& classes, const std::vector<std::string>& baseLabels, double unknownBelow = 0.5);

/** The head's scores for one example (as the taught model file computes them: index = label). */
std::vector<float> scores (const Head& head, const std::vector<float>& embedding, const std::vector<float>& baseProbabilities);

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
Confusion leaveOneFileOut (const std::vector<TaughtClass>& classes, const std::vector<std::string>& baseLabels, double unknownBelow = 0.5);

} // namespace sonotype::teach
