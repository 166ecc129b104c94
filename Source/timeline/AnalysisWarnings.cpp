#include "timeline/AnalysisWarnings.h"

namespace sonotype::timeline
{
namespace
{
    /** The warnings every analysis of a file may give: the file's and its samples'. */
    std::vector<std::string> fileWarnings (const std::string& truncationWarning, int64_t numNonFiniteSamples)
    {
        std::vector<std::string> warnings;
        if (! truncationWarning.empty())
            warnings.push_back (truncationWarning);
        if (numNonFiniteSamples > 0)
            warnings.push_back (std::to_string (numNonFiniteSamples) + " NaN or infinite samples were replaced by 0");
        return warnings;
    }
} // namespace

std::vector<std::string> warningsOf (const FileAnalysisResult& result)
{
    auto warnings = fileWarnings (result.truncationWarning, result.numNonFiniteSamples);
    if (result.numNonFiniteWindows > 0)
        warnings.push_back ("the model's output was not finite (NaN or infinite) in " + std::to_string (result.numNonFiniteWindows) + " of "
                            + std::to_string (result.numWindows) + " windows");
    return warnings;
}

std::vector<std::string> warningsOf (const HitAnalysisResult& result)
{
    auto warnings = fileWarnings (result.truncationWarning, result.numNonFiniteSamples);
    if (result.numNonFiniteHits > 0)
        warnings.push_back ("the model's output was not finite (NaN or infinite) for " + std::to_string (result.numNonFiniteHits) + " of "
                            + std::to_string (result.hits.size()) + " hits");
    return warnings;
}

} // namespace sonotype::timeline
