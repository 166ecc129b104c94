// A file's results (cli::FileOutcome) as Model.classify_file() returns them: one dict per row,
// its keys the columns `sonotype classify` writes for the options, in the same order (the error
// column aside: a file that is not classified raises instead), its values at full precision (the
// numbers as the engine computed them, where the CSV rounds them to 3 or 6 decimals).
// Called with the GIL held.
#pragma once

#include "cli/FileClassification.h"

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace sonotype::python
{

/** The rows: windows (file, start_s, end_s, label, confidence, one probability per class by label,
    padded and tail as bools unless grid, embedding_0, ... with embeddings), a summary (file, label
    (None when no class holds any time), share, one share per class, duration_s, windows,
    mean_<class> per class), segments (file, start_s, end_s, label, confidence) or hits (file,
    time_s, label, confidence, level_db, one probability per class). */
pybind11::list resultRows (const cli::FileOutcome& outcome, const cli::ClassifyOptions& options, const pybind11::object& file,
                           const std::vector<std::string>& labels);

} // namespace sonotype::python
