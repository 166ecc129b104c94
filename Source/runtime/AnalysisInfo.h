// What readers of the streaming runtime need to interpret its results: the model and the analysis
// settings they come from (one generation of the analysis worker).
#pragma once

#include "engine/Model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sonotype::runtime
{

/** What readers need to interpret results: the model and the analysis settings they come from.
    Every reconfigure() makes a new generation; results carry its number. */
struct AnalysisInfo
{
    std::shared_ptr<const engine::Model> model;
    std::vector<std::string> labels;
    double windowSeconds = 0.0, hopSeconds = 0.0, smoothingSeconds = 0.0;
    double modelSampleRate = 0.0;
    uint64_t generation = 0;
};

} // namespace sonotype::runtime
