// The sonotype subcommands. Each returns the process exit code: 0 success, 1 failure, 2 bad usage.
#pragma once

#include <string>
#include <vector>

namespace sonotype::cli
{

int runModelCommand (const std::vector<std::string>& args);
int inspectCommand (const std::vector<std::string>& args);
int featuresCommand (const std::vector<std::string>& args);
int classifyCommand (const std::vector<std::string>& args);

} // namespace sonotype::cli
