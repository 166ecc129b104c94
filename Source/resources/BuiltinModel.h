// The built-in model, embedded in every binary (JUCE binary data from Resources/models/).
#pragma once

#include "engine/Model.h"

#include <cstdint>
#include <memory>
#include <span>

namespace sonotype::resources
{

/** The built-in classifier (12 classes: silence, noise, speech, drums, piano, ...); loaded once,
    shared. Throws engine::ModelError only if the embedded file were damaged (a test checks it). */
std::shared_ptr<const engine::Model> builtinModel();

/** The built-in model's file, as embedded (what a model taught on top of it extends). */
std::span<const std::uint8_t> builtinModelFile();

/** The name under which the built-in model reports itself. */
inline constexpr const char* kBuiltinModelName = "built-in";

} // namespace sonotype::resources
