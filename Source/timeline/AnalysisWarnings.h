// What the analysis of a file found wrong short of failing, in the words both `sonotype classify`
// (on stderr, after "warning: FILE: ") and the app (under a file's timeline, joined by "; ") use:
// the texts are written here once. Pure functions: any thread.
#pragma once

#include "timeline/FileAnalysis.h"
#include "timeline/HitAnalysis.h"

#include <string>
#include <vector>

namespace sonotype::timeline
{

/** The warnings of a file analysed window by window, in this order: the file is shorter than its
    header says (the reader's words), NaN or infinite samples were replaced by 0, the model's output
    was not finite in some windows (which classify counts as a file not classified). */
std::vector<std::string> warningsOf (const FileAnalysisResult& result);

/** The same for a file analysed hit by hit: the model's output not finite for some hits. */
std::vector<std::string> warningsOf (const HitAnalysisResult& result);

} // namespace sonotype::timeline
