#include "resources/BuiltinModel.h"

#include <BinaryData.h>

#include <mutex>

namespace sonotype::resources
{

std::span<const std::uint8_t> builtinModelFile()
{
    return { reinterpret_cast<const std::uint8_t*> (BinaryData::default_safetensors), static_cast<std::size_t> (BinaryData::default_safetensorsSize) };
}

std::shared_ptr<const engine::Model> builtinModel()
{
    static std::once_flag once;
    static std::shared_ptr<const engine::Model> model;
    std::call_once (once, [] {
        model = engine::Model::fromMemory (reinterpret_cast<const std::uint8_t*> (BinaryData::default_safetensors),
                                           static_cast<std::size_t> (BinaryData::default_safetensorsSize), kBuiltinModelName);
    });
    return model;
}

} // namespace sonotype::resources
