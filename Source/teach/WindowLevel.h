// A window's level as a taught model's graph sees it, for the level gate (teach/Prototypes.h): the
// loudest of the window's log-mel features, back in the decibels the front end computed them in
// (the feature times the front end's std plus its mean). It is an output of the graph, made of engine
// ops, so that the examples' levels at learning and every window's level when the taught model runs
// come from the same nodes: what `learn` calibrates the gate on is what the file compares with.
// Only a log-mel front end in decibels with one mean and one std (the built-in model's, and every
// model exported with AmplitudeToDB and scalar normalisation) has such a level; for any other
// front end there is none and a taught model has no level gate.
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

/** The model file with one more output: the level, [1, 1], in dB; its index is the metadata's
    "level_output". A file that already has one comes back as it is; nullopt for a model whose front
    end has no level (see above). Throws std::invalid_argument for a file that is not a model file
    the engine's reader takes. */
std::optional<std::vector<std::uint8_t>> levelModelFile (std::span<const std::uint8_t> baseFile);

/** The output of `model` that holds its window's level (its metadata's "level_output", checked to be
    one of its outputs of one number), or nullopt. */
std::optional<std::size_t> levelOutputOf (const engine::Model& model);

} // namespace sonotype::teach
