// The live per-hit mode's classifier: a hit's signature (dsp::HitSignature, its first few
// milliseconds) against the signatures of the hits a kit was taught from, nearest neighbours in a
// scaled space. Learned by teach::learnLiveHits (the scales and the gate) and stored in the taught
// model file beside the prototypes of the 1 s model, so that the CLI (`classify --onsets --response
// live`), the plugin and a saved session classify a hit the same way.
//
// The rule: each dimension d is divided by its scale s_d (the spread of that number within a
// class, pooled over the classes, and never under a floor: docs/TEACH.md); a class's distance is
// the RMS over the dimensions of the difference to its nearest example; the hit is the nearest
// class, or "unknown" (no class, no note) when even that lies beyond the gate. The probabilities
// are exp(-(d_c^2 - d_best^2) / 2) normalised over the classes (unknown's share: its label, where
// the model has one, takes what the gate leaves).
//
// classify() allocates nothing and takes no lock (the plugin's audio thread runs it); the rest
// allocates. A classifier is immutable once made: any number of threads may classify with it.
#pragma once

#include "dsp/HitSignature.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sonotype::engine
{
class Model;
}

namespace sonotype::runtime
{

/** What is learned: the examples' signatures (numExamples x HitSignature::kSize, row-major), each
    example's label index, the scales, the gate and the span after the onset they were made with. */
struct LiveHitKit
{
    static constexpr int kMaxExamples = 4096;
    std::vector<float> signatures;
    std::vector<int> labels;
    std::vector<float> scales; // HitSignature::kSize, each > 0
    float gate = 0.0f;         // the distance beyond which a hit is unknown (> 0)
    double afterSeconds = dsp::HitSignature::kDefaultAfterSeconds;

    int numExamples() const noexcept { return static_cast<int> (labels.size()); }
    /** Throws std::invalid_argument naming what is wrong: sizes that do not agree, a label outside
        [0, numLabels), a scale or gate not finite and positive, a span outside HitSignature's
        range, no example or more than kMaxExamples, a value that is not finite. */
    void check (int numLabels) const;
};

/** The kit a taught model file carries (its "taught" record's "live_hits", naming its stored
    tensors), checked against the model's labels; nullopt for a model without one. Throws
    std::invalid_argument for one that is there but broken (a file from elsewhere may say anything:
    the message says what). */
std::optional<LiveHitKit> liveHitKitOf (const engine::Model& model);

class LiveHitClassifier
{
public:
    /** Throws as LiveHitKit::check. `unknownLabel`: the label unknown hits get in probabilities
        (-1: the model has none). */
    LiveHitClassifier (LiveHitKit kit, int numLabels, int unknownLabel);

    /** The label index of the hit, or -1 for unknown; its probabilities over the model's labels
        into `probabilities` (numLabels() values). No allocation, no lock. */
    int classify (const dsp::HitSignature::Values& signature, std::span<float> probabilities) const noexcept;
    /** The scaled distance from `signature` to each label's nearest example (numLabels values;
        labels without examples get infinity). No allocation. */
    void distances (const dsp::HitSignature::Values& signature, std::span<float> out) const noexcept;

    int numLabels() const noexcept { return numLabels_; }
    const LiveHitKit& kit() const noexcept { return kit_; }

private:
    LiveHitKit kit_;
    std::vector<float> scaled_; // the signatures divided by the scales
    int numLabels_, unknownLabel_;
};

/** The classifier of the kit `model` carries (liveHitKitOf), its unknown hits labelled "unknown"
    where the model has that label; null for a model without a kit. Throws as liveHitKitOf. */
std::shared_ptr<const LiveHitClassifier> liveHitClassifierFor (const engine::Model& model);

} // namespace sonotype::runtime
