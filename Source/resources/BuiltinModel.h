// The built-in model, embedded in every binary (JUCE binary data from Resources/models/).
#pragma once

#include "engine/Model.h"

#include <memory>

namespace sonotype::resources
{

/** The built-in classifier (12 classes: silence, noise, speech, drums, piano, ...); loaded once,
    shared. Throws engine::ModelError only if the embedded file were damaged (a test checks it). */
std::shared_ptr<const engine::Model> builtinModel();

/** The name under which the built-in model reports itself. */
inline constexpr const char* kBuiltinModelName = "built-in";

} // namespace sonotype::resources
