// What readers of the streaming runtime need to interpret its results: the model and the analysis
// settings they come from (one generation of the analysis worker); and how the worker asks which
// of a generation's classes are in play.
#pragma once

#include "engine/Model.h"

#include <cstdint>
#include <functional>
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

/** The classes in play for a generation (WindowAnalyzer::setClassesInPlay), asked on the worker
    before each window and each chunk of the per-hit analysis. */
using ClassSelector = std::function<const std::vector<bool>&(const AnalysisInfo&)>;

} // namespace sonotype::runtime
