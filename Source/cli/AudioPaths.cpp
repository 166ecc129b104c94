#include "cli/AudioPaths.h"

#include "formats/AudioFormats.h"

#include <algorithm>
#include <filesystem>

namespace sonotype::cli
{

std::vector<std::string> collectFiles (const std::vector<std::string>& paths, std::vector<PathProblem>& errors,
                                       std::vector<PathProblem>& skipped)
{
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const auto& path : paths)
    {
        std::error_code error;
        const auto status = fs::status (path, error);
        if (error || ! fs::exists (status))
        {
            errors.push_back ({ path, "no such file or folder" });
            continue;
        }
        if (! fs::is_directory (status))
        {
            files.push_back (path);
            continue;
        }
        std::size_t found = 0;
        for (auto it = fs::recursive_directory_iterator (path, fs::directory_options::skip_permission_denied, error);
             ! error && it != fs::recursive_directory_iterator(); it.increment (error))
        {
            const auto name = it->path().string();
            if (it->is_directory (error))
                continue;
            if (! it->is_regular_file (error))
                skipped.push_back ({ name, "not a regular file" });
            else if (! formats::isReadableAudioFile (name))
                skipped.push_back ({ name, it->path().has_extension() ? "unsupported extension (" + it->path().extension().string() + ")"
                                                                      : std::string ("no file extension") });
            else
            {
                files.push_back (name);
                ++found;
            }
        }
        if (error)
            errors.push_back ({ path, error.message() });
        if (found == 0)
            errors.push_back ({ path, "no audio files (" + formats::readableExtensionsText() + ") in this folder" });
    }
    std::sort (files.begin(), files.end());
    files.erase (std::unique (files.begin(), files.end()), files.end());
    std::sort (skipped.begin(), skipped.end(), [] (const PathProblem& a, const PathProblem& b) { return a.path < b.path; });
    return files;
}

} // namespace sonotype::cli
