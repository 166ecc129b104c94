// The keyword arguments of sonotype.engine's methods as the command line's options: Model()'s
// budgets (max_memory=512 is --max-memory 512) and the options of Model.classify_file(),
// classify_csv() and csv_header(), each one of `sonotype classify`'s (hop=0.5 is --hop 0.5,
// onsets=True --onsets, classes=["a", "b"] --classes a,b, onset_window=0.1 --onset-window 0.1).
// The command line's own parser reads them, so that defaults, checks and messages are its own.
// Called with the GIL held.
#pragma once

#include "cli/ClassifyOptions.h"
#include "cli/ModelLoading.h"

#include <pybind11/pybind11.h>

#include <string>

namespace sonotype::python
{

/** The keywords, each with its option's meaning, for the methods' docstrings. */
extern const char* const kClassifyKeywordsDoc;

/** classify's options for these keywords and one file (cli::parseClassifyOptions). A keyword left
    out or None keeps the option's default; False leaves a switch off. Throws TypeError for an
    unknown keyword or a value of the wrong type, cli::UsageError for one the command line refuses. */
cli::ClassifyOptions classifyOptionsFor (const pybind11::kwargs& keywords, const std::string& path);

/** The budgets --max-memory (MiB) and --max-ops give for these values (None: the default). */
cli::ModelLimitOptions limitOptionsFor (const pybind11::object& maxMemoryMib, const pybind11::object& maxOps);

} // namespace sonotype::python
