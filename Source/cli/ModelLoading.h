// Loading a model file for a CLI command, under the memory and work budgets the command line sets
// (--max-memory MIB, --max-ops N; see engine::LoadLimits for the defaults).
#pragma once

#include "cli/Arguments.h"
#include "engine/Model.h"

namespace sonotype::cli
{

/** The budget options every model-loading command accepts. */
struct ModelLimitOptions
{
    double maxMemoryMib = static_cast<double> (engine::LoadLimits::kDefaultMaxMemoryBytes >> 20);
    double maxOpsPerRun = engine::LoadLimits::kDefaultMaxOpsPerRun;

    /** The limits given on the command line (the defaults where none was given). */
    engine::LoadLimits limits() const;
};

/** Adds --max-memory and --max-ops to the command, under their own heading of its help. */
void addModelLimitOptions (CLI::App& command, ModelLimitOptions& options);

/** Model::load (path, options.limits()). */
std::shared_ptr<const engine::Model> loadModel (const std::string& path, const ModelLimitOptions& options);

/** loadModel (path, options), or the built-in model for an empty path (what every command does
    without --model). */
std::shared_ptr<const engine::Model> loadModelOrBuiltin (const std::string& path, const ModelLimitOptions& options);

} // namespace sonotype::cli
