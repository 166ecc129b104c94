// Loading a model file for a CLI command, under the memory and work budgets the command line sets
// (--max-memory MIB, --max-ops N; see engine::LoadLimits for the defaults).
#pragma once

#include "cli/Arguments.h"
#include "engine/Model.h"

namespace sonotype::cli
{

/** The options every model-loading command accepts, for Arguments. */
inline const std::set<std::string> kModelLimitOptions { "--max-memory", "--max-ops" };

/** Help text lines describing them. */
extern const char* const kModelLimitHelp;

/** The limits given on the command line; throws UsageError for a bad value. */
engine::LoadLimits modelLimits (const Arguments& arguments);

/** Model::load (path, modelLimits (arguments)). */
std::shared_ptr<const engine::Model> loadModel (const std::string& path, const Arguments& arguments);

/** `options` plus kModelLimitOptions. */
std::set<std::string> withModelLimitOptions (std::set<std::string> options);

} // namespace sonotype::cli
