// What a hit is taught and classified from (`sonotype learn --hits`): not the model's embedding
// output but its token sequence, the local spectro-temporal patterns its convolutional stem makes
// before the transformer and the class token see them, averaged over 40-160 ms of the hit's clip.
// The embedding output (the class token after the last layer) is trained to tell instruments
// apart, and names a drum piece of a kit it was not taught from right for 0.73 of the hits; the
// tokens do so for 0.90 (docs/TEACH.md, "Teaching", measured with both on the same patterns).
//
// The token sequence is found by the graph's shape, not by a name: the one `concat` over the last
// axis of a stored [1, d, 1] tensor (the class token) and a computed [1, d, T] value (T tokens over
// the model's window, in time order: the built-in model's stem, 51 tokens a second). A model with
// no such sequence, or no front end to say how long its window is, keeps its embedding output.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace sonotype::engine
{
class Model;
}

namespace sonotype::teach
{

struct HitEmbeddingSpan
{
    // Of the clip (which starts 10 ms before the onset), the tokens averaged: chosen on five kits
    // with each of six Debian kits left out in turn (docs/TEACH.md).
    double fromSeconds = 0.04, toSeconds = 0.16;
};

/** The model file whose embedding output is the mean of its token sequence over `span` (tokens
    round(from x T / window) up to round(to x T / window)), made of engine ops (a slice and a mean);
    output 0 and every other output are the base model's. The metadata's "hit_embedding" says
    which value and tokens (and a taught file's "taught" repeats it). A file that already has a
    hit embedding comes back as it is; nullopt for a model with no token sequence. Throws
    std::invalid_argument for a file that is not a model file the engine's reader takes
    (engine::ModelFileWriter), and for a span outside (0, 60] seconds or empty. */
std::optional<std::vector<std::uint8_t>> hitEmbeddingModelFile (std::span<const std::uint8_t> baseFile, const HitEmbeddingSpan& span = {});

/** What a model's "hit_embedding" says: tokens [fromToken, toToken) of the sequence's numTokens
    are averaged, fromSeconds to toSeconds of a hit's clip (rounded to milliseconds). */
struct HitEmbeddingSpanInfo
{
    int64_t fromToken = 0, toToken = 0, numTokens = 0;
    double fromSeconds = 0.0, toSeconds = 0.0;
};

/** The hit embedding a model file says it computes (hitEmbeddingModelFile's record), read with the
    engine's JSON reader; nullopt for a model without one, or with one that does not read as
    hitEmbeddingModelFile writes it (a file from elsewhere may say anything there). */
std::optional<HitEmbeddingSpanInfo> hitEmbeddingOf (const engine::Model& model);

} // namespace sonotype::teach
