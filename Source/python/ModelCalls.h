// What sonotype.engine's Model methods and functions do, each through the code the command line
// runs: run() is run-model's session run, the classify calls are one file of `sonotype classify`
// (cli::FileClassification, its rows and error rows by cli::ClassifyOutput), audio_files() is its
// folder search (cli::collectFiles). Called with the GIL held; each releases it while the engine
// or the file system works. The exceptions they raise are EngineModule.cpp's.
#pragma once

#include "python/LoadedModel.h"

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

namespace sonotype::python
{

/** A file that could not be classified (classify_file): "FILE: why", as the command line's error
    line says it. */
struct ClassifyFailure : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

/** The category of the warnings the classify calls give (the command line's "warning: " lines). */
void setClassifyWarning (pybind11::handle category);

/** A path (str, bytes or os.PathLike) as the file system's bytes, and back. */
std::string pathBytes (const pybind11::handle& path);
pybind11::object pathObject (const std::string& path);

/** Model.run(*inputs): the output, or a tuple of the outputs for a model with several. */
pybind11::object runModel (const LoadedModel& model, const pybind11::args& inputs);

/** Model.classify_file(path, **options): one dict per row. */
pybind11::list classifyFileRows (const LoadedModel& model, const pybind11::handle& path, const pybind11::kwargs& keywords);

/** Model.classify_csv(path, **options): the file's CSV lines, error row included. */
pybind11::str classifyFileCsv (const LoadedModel& model, const pybind11::handle& path, const pybind11::kwargs& keywords);

/** Model.csv_header(**options) and Model.csv_error_row(path, message, **options). */
pybind11::str csvHeader (const LoadedModel& model, const pybind11::kwargs& keywords);
pybind11::str csvErrorRow (const LoadedModel& model, const pybind11::handle& path, const std::string& message, const pybind11::kwargs& keywords);

/** audio_files(paths): (files, skipped, errors). */
pybind11::tuple audioFiles (const pybind11::handle& paths);

} // namespace sonotype::python
