// The sonotype subcommands. Each adds itself to the app and returns the function that runs it once
// the command line is parsed; that returns the process exit code: 0 success, 1 failure, 2 bad usage.
#pragma once

#include "cli/Arguments.h"

#include <functional>

namespace sonotype::cli
{

using CommandRun = std::function<int()>;

CommandRun addClassifyCommand (CLI::App& app);
CommandRun addRunModelCommand (CLI::App& app);
CommandRun addInspectCommand (CLI::App& app);
CommandRun addFeaturesCommand (CLI::App& app);
CommandRun addLearnCommand (CLI::App& app);

} // namespace sonotype::cli
