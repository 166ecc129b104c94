#include "python/ModelCalls.h"

#include "cli/AudioPaths.h"
#include "cli/FileClassification.h"
#include "engine/file/Text.h"
#include "python/ArrayConversion.h"
#include "python/OptionKeywords.h"
#include "python/ResultRows.h"
#include "runtime/WindowAnalyzer.h"

#include <algorithm>
#include <sstream>

namespace py = pybind11;

namespace sonotype::python
{
namespace
{
    py::handle classifyWarning = PyExc_UserWarning; // set when the module is made

    /** A warning of the classify calls' category (an exception, with warnings as errors). */
    void warn (const std::string& message)
    {
        if (PyErr_WarnEx (classifyWarning.ptr(), message.c_str(), 1) != 0)
            throw py::error_already_set();
    }

    /** The command line's "warning: " lines as warnings (its other lines are errors, raised or rows). */
    void warnOf (const std::vector<std::string>& messages)
    {
        static constexpr std::string_view prefix = "warning: ";
        for (const auto& message : messages)
            if (message.rfind (prefix, 0) == 0)
                warn (engine::printable (message.substr (prefix.size())));
    }

    /** Text the engine made (a file's rows may quote a file name in any bytes) as a str. */
    py::str textObject (const std::string& text)
    {
        return py::reinterpret_steal<py::str> (PyUnicode_DecodeUTF8 (text.data(), static_cast<py::ssize_t> (text.size()), "surrogateescape"));
    }

    /** classify's options for one file, fitted to the model as classify fits them. */
    cli::ClassifyOptions fittedOptions (const LoadedModel& model, const py::kwargs& keywords, const std::string& path)
    {
        auto options = classifyOptionsFor (keywords, path);
        options.model = model.path(); // what messages call the model
        options.limits = model.limits();
        warnOf (cli::fitOptionsToModel (options, model.model()));
        return options;
    }

    /** The file classified; a path classify could not read (cli::collectFiles: a missing file, say)
        fails with the command line's message. A folder is refused: audio_files() lists its files. */
    cli::FileOutcome classified (const LoadedModel& model, const cli::ClassifyOptions& options, const std::string& path)
    {
        const py::gil_scoped_release release;
        std::vector<cli::PathProblem> errors, skipped;
        const auto files = cli::collectFiles ({ path }, errors, skipped);
        cli::FileOutcome outcome;
        if (! errors.empty() && files.empty())
        {
            outcome.messages.push_back ("error: " + path + ": " + errors.front().message);
            outcome.error = errors.front().message;
            outcome.failed = true;
            return outcome;
        }
        if (files.size() != 1 || files.front() != path)
            throw cli::UsageError (path + " is a folder: the classify calls take one file (audio_files() lists a folder's)");
        const auto analyzer = model.analyzer();
        return cli::classifyFile (path, model.sharedModel(), options, *analyzer);
    }
} // namespace

void setClassifyWarning (py::handle category)
{
    classifyWarning = category;
}

std::string pathBytes (const py::handle& path)
{
    return py::module_::import ("os").attr ("fsencode") (path).cast<std::string>();
}

py::object pathObject (const std::string& path)
{
    return py::module_::import ("os").attr ("fsdecode") (py::bytes (path));
}

py::object runModel (const LoadedModel& model, const py::args& inputs)
{
    const auto& info = model.model().info();
    const auto arrays = checkedInputs (info, inputs);
    std::vector<const float*> inputData;
    for (const auto& array : arrays)
        inputData.push_back (static_cast<const float*> (array.data()));
    std::vector<py::array_t<float>> outputs;
    std::vector<float*> outputData;
    for (const auto& shape : info.outputShapes)
    {
        outputs.push_back (arrayOfShape (shape));
        outputData.push_back (outputs.back().mutable_data());
    }
    {
        // run-model's path: the input copied into a session, one run, the outputs copied out.
        const py::gil_scoped_release release;
        const auto session = model.session();
        for (std::size_t i = 0; i < inputData.size(); ++i)
            std::copy_n (inputData[i], session->input (i).size(), session->input (i).begin());
        session->run();
        for (std::size_t o = 0; o < outputData.size(); ++o)
            std::copy (session->output (o).begin(), session->output (o).end(), outputData[o]);
    }
    if (outputs.size() == 1)
        return std::move (outputs.front());
    py::tuple all (outputs.size());
    for (std::size_t o = 0; o < outputs.size(); ++o)
        all[o] = std::move (outputs[o]);
    return all;
}

py::list classifyFileRows (const LoadedModel& model, const py::handle& path, const py::kwargs& keywords)
{
    const auto file = pathBytes (path);
    const auto options = fittedOptions (model, keywords, file);
    const auto outcome = classified (model, options, file);
    warnOf (outcome.messages);
    if (outcome.failed)
        throw ClassifyFailure (engine::printable (file + ": " + outcome.error));
    return resultRows (outcome, options, pathObject (file), runtime::classLabels (model.model()));
}

py::str classifyFileCsv (const LoadedModel& model, const py::handle& path, const py::kwargs& keywords)
{
    const auto file = pathBytes (path);
    const auto options = fittedOptions (model, keywords, file);
    const auto outcome = classified (model, options, file);
    warnOf (outcome.messages);
    const auto labels = runtime::classLabels (model.model());
    std::ostringstream out;
    cli::ClassifyOutput output (out, options, labels, cli::embeddingSizeOf (model.model()), false);
    cli::writeOutcome (output, file, cli::rowsOf (outcome, options, file, labels), outcome);
    return textObject (out.str());
}

py::str csvHeader (const LoadedModel& model, const py::kwargs& keywords)
{
    const auto options = fittedOptions (model, keywords, "-");
    return textObject (cli::csvHeader (options, runtime::classLabels (model.model()), cli::embeddingSizeOf (model.model())) + "\n");
}

py::str csvErrorRow (const LoadedModel& model, const py::handle& path, const std::string& message, const py::kwargs& keywords)
{
    const auto file = pathBytes (path);
    const auto options = fittedOptions (model, keywords, file);
    std::ostringstream out;
    cli::ClassifyOutput output (out, options, runtime::classLabels (model.model()), cli::embeddingSizeOf (model.model()), false);
    output.errorRow (file, message);
    return textObject (out.str());
}

py::tuple audioFiles (const py::handle& paths)
{
    std::vector<std::string> named;
    if (py::isinstance<py::str> (paths) || py::isinstance<py::bytes> (paths) || py::hasattr (paths, "__fspath__"))
        named.push_back (pathBytes (paths));
    else
        for (const auto& path : paths)
            named.push_back (pathBytes (path));
    std::vector<cli::PathProblem> errors, skipped;
    std::vector<std::string> files;
    {
        const py::gil_scoped_release release;
        files = cli::collectFiles (named, errors, skipped);
    }
    py::list fileList, skippedList, errorList;
    for (const auto& file : files)
        fileList.append (pathObject (file));
    for (const auto& [list, problems] : { std::pair { &skippedList, &skipped }, std::pair { &errorList, &errors } })
        for (const auto& problem : *problems)
            list->append (py::make_tuple (pathObject (problem.path), textObject (problem.message)));
    return py::make_tuple (fileList, skippedList, errorList);
}

} // namespace sonotype::python
