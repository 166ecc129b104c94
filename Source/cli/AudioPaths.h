// The audio files named on a command line: files as given, folders searched recursively for the
// extensions the readers know; what is skipped and what cannot be read, said with the reason.
#pragma once

#include <string>
#include <vector>

namespace sonotype::cli
{

struct PathProblem
{
    std::string path, message;
};

/** Files to read: named files as given, folders searched for audio files; sorted, each once. What a
    folder holds that is not read goes to skipped, paths that cannot be read to errors. */
std::vector<std::string> collectFiles (const std::vector<std::string>& paths, std::vector<PathProblem>& errors, std::vector<PathProblem>& skipped);

} // namespace sonotype::cli
