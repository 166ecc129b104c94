// The hostile model-file corpus (Tests/data/hostile-models, written by its make_corpus.py): each
// file with the message it must be refused with, read from manifest.json.
#pragma once

#include "engine/file/Json.h"
#include "engine/file/LoadLimits.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sonotype::testing
{

struct HostileModel
{
    std::string path, expect, description;
    std::string stage; // "load" (refused by Model::load), "frontend" (loads, refused by the front end) or "valid"
    engine::LoadLimits limits;
};

inline std::string hostileModelsDir()
{
    return SONOTYPE_HOSTILE_MODELS_DIR;
}

inline std::vector<HostileModel> hostileModels()
{
    std::ifstream stream (hostileModelsDir() + "/manifest.json");
    if (! stream)
        throw std::runtime_error ("cannot open " + hostileModelsDir() + "/manifest.json");
    std::stringstream text;
    text << stream.rdbuf();
    std::vector<HostileModel> models;
    const auto manifest = engine::parseJson (text.str());
    for (const auto& item : manifest.asArray())
    {
        HostileModel model;
        model.path = hostileModelsDir() + "/" + item.at ("file").asString();
        model.expect = item.at ("expect").asString();
        model.description = item.at ("description").asString();
        model.stage = item.at ("stage").asString();
        if (const auto& mib = item.at ("max_memory_mib"); ! mib.isNull())
            model.limits.maxMemoryBytes = static_cast<std::size_t> (mib.asInt()) << 20;
        models.push_back (model);
    }
    return models;
}

} // namespace sonotype::testing
