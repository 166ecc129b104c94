// sonotype.engine, the module: Model (a model file loaded with the engine's checks and budgets,
// run on NumPy arrays as `sonotype run-model` runs it, files classified as `sonotype classify`
// classifies them), audio_files(), __version__ and the exceptions, which carry the messages the
// command line prints after "error: ". The work is ModelCalls'; here the names, the docstrings and
// the translation of the engine's exceptions.
#include "cli/Arguments.h"
#include "dsp/FrontendError.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFileKeys.h"
#include "python/ArrayConversion.h"
#include "python/ModelCalls.h"
#include "python/OptionKeywords.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using sonotype::python::LoadedModel;

namespace
{
constexpr const char* kModuleDoc = R"(The Sonotype engine in-process: the C++ engine `sonotype` runs, without a subprocess.

    model = sonotype.engine.Model("model.safetensors")   # or Model() for the built-in model
    y = model.run(x)                                      # x: float32, model.input_shape
    rows = model.classify_file("take.wav", segments=True) # what `sonotype classify` gives

run() equals `sonotype run-model` bit for bit; the classify calls give `sonotype classify`'s rows
for one file. Both release the GIL while the engine works. docs/PYTHON.md has more.)";

constexpr const char* kModelDoc = R"(Model(path=None, *, max_memory=None, max_ops=None)

A model file loaded with the engine's checks and budgets, as the command line loads it (path None:
the built-in model). max_memory (MiB) and max_ops are the command line's --max-memory and --max-ops
(None: their defaults). A file the engine refuses raises ModelError with the engine's message.

Threads: every method may be called from several threads at once, and the engine works with the GIL
released. Each call takes a session (and, to classify, a file analyzer) of the model's that no other
call is using, or makes one, and keeps it for the next call: calls on one Model from several
threads run at once, each in a session of its own.

Pickling a Model pickles its path and budgets: unpickled (in another process, say a Dask worker),
it loads the file again there.)";

constexpr const char* kRunDoc = R"(run(x, ...) -> numpy.ndarray or tuple

Runs the model's graph on x (one array per model input): float32 (TypeError otherwise) of exactly
the input's shape (ValueError otherwise), in any memory layout. Returns the output as a new float32
array of the output's shape; for a model with several outputs a tuple of them, output i being
`sonotype run-model --output-index i`. The result equals run-model's on the same file and input
bit for bit. The GIL is released while the engine runs.)";

constexpr const char* kClassifyFileDoc = R"(classify_file(path, **options) -> list of dict

Classifies one audio file as `sonotype classify` does and returns its rows, one dict per row: its
keys are the CSV's columns for these options in the same order (without the error column), its
values the numbers at full precision (the CSV rounds them): window rows (file, start_s, end_s, label,
confidence, one probability per class, padded and tail unless grid), summary=True one row (label
None where the CSV's is empty), segments=True segments, onsets=True hits (file, time_s, label,
confidence, level_db, one probability per class). Warnings (the command line's "warning: " lines)
are ClassifyWarning warnings; a file that cannot be classified raises ClassifyError with the command
line's message. The GIL is released while the engine works.

)";

constexpr const char* kClassifyCsvDoc = R"(classify_csv(path, **options) -> str

The CSV lines (no header) `sonotype classify` writes for this one file with these options, byte for
byte: its rows with the empty error column, or, for a file that cannot be classified, its error row
(the rows before it, if any, stay). csv_header(**options) followed by each file's classify_csv() in
the order of audio_files() (after csv_error_row() for each path audio_files() could not read) is
what `sonotype classify --jobs N` writes. Same options as classify_file().)";

using namespace sonotype;

/** ModelError, OptionError, ClassifyError and ClassifyWarning, and the engine's exceptions
    translated into them. */
void addExceptions (py::module_& m)
{
    static const py::exception<engine::ModelError> modelError (m, "ModelError", PyExc_ValueError);
    static const py::exception<cli::UsageError> optionError (m, "OptionError", PyExc_ValueError);
    static const py::exception<python::ClassifyFailure> classifyError (m, "ClassifyError", PyExc_RuntimeError);
    const auto classifyWarning = py::reinterpret_steal<py::object> (PyErr_NewException ("sonotype.engine.ClassifyWarning", PyExc_UserWarning, nullptr));
    m.attr ("ClassifyWarning") = classifyWarning;
    python::setClassifyWarning (classifyWarning);
    modelError.doc() = "A model file, or a model for these options, the engine refuses; the message is the engine's.";
    optionError.doc() = "Options the command line refuses (its message names the option as the command line does).";
    classifyError.doc() = "A file `sonotype classify` could not classify: 'FILE: why'.";
    // The messages as the command line prints them after "error: " (printable: names from files
    // never carry control characters).
    py::register_exception_translator ([] (std::exception_ptr caught) {
        try
        {
            if (caught)
                std::rethrow_exception (caught);
        }
        catch (const engine::ModelError& e)
        {
            PyErr_SetString (modelError.ptr(), e.what());
        }
        catch (const dsp::FrontendError& e)
        {
            PyErr_SetString (modelError.ptr(), engine::printable (e.what()).c_str());
        }
        catch (const cli::UsageError& e)
        {
            PyErr_SetString (optionError.ptr(), engine::printable (e.what()).c_str());
        }
        catch (const python::ClassifyFailure& e)
        {
            PyErr_SetString (classifyError.ptr(), e.what());
        }
    });
}

void addModel (py::module_& m)
{
    // labels and embedding_output are named as the model file names them (engine/file/ModelFileKeys.h).
    py::class_<LoadedModel> (m, "Model", kModelDoc)
        .def (py::init ([] (const py::object& path, const py::object& maxMemory, const py::object& maxOps) {
                  const auto limits = python::limitOptionsFor (maxMemory, maxOps);
                  const auto file = path.is_none() ? std::string() : python::pathBytes (path);
                  if (! path.is_none() && file.empty())
                      throw py::value_error ("path is empty: give a model file, or None for the built-in model");
                  const py::gil_scoped_release release;
                  return std::make_unique<LoadedModel> (file, limits);
              }),
              py::arg ("path") = py::none(), py::kw_only(), py::arg ("max_memory") = py::none(), py::arg ("max_ops") = py::none())
        .def (py::pickle (
            [] (const LoadedModel& model) {
                // Its file and budgets: unpickled (in another process, a Dask worker's), the file is loaded again there.
                return py::make_tuple (model.path().empty() ? py::object (py::none()) : python::pathObject (model.path()),
                                       model.limits().maxMemoryMib, model.limits().maxOpsPerRun);
            },
            [] (const py::tuple& state) {
                if (state.size() != 3)
                    throw std::runtime_error ("not a pickled sonotype.engine.Model");
                cli::ModelLimitOptions limits;
                limits.maxMemoryMib = state[1].cast<double>();
                limits.maxOpsPerRun = state[2].cast<double>();
                const auto file = state[0].is_none() ? std::string() : python::pathBytes (state[0]);
                const py::gil_scoped_release release;
                return std::make_unique<LoadedModel> (file, limits);
            }))
        .def ("run", &python::runModel, kRunDoc)
        .def ("classify_file", &python::classifyFileRows, py::arg ("path"), (std::string (kClassifyFileDoc) + python::kClassifyKeywordsDoc).c_str())
        .def ("classify_csv", &python::classifyFileCsv, py::arg ("path"), kClassifyCsvDoc)
        .def ("csv_header", &python::csvHeader, "csv_header(**options) -> str\n\nThe CSV header line (with its line break) `sonotype classify` writes for these options.")
        .def ("csv_error_row", &python::csvErrorRow, py::arg ("path"), py::arg ("message"),
              "csv_error_row(path, message, **options) -> str\n\nThe error row `sonotype classify` writes for a path it could not read "
              "(audio_files()' errors).")
        .def_property_readonly (
            "path", [] (const LoadedModel& model) { return model.path().empty() ? py::object (py::none()) : python::pathObject (model.path()); },
            "The model file; None for the built-in model.")
        .def_property_readonly (
            engine::keys::labels, [] (const LoadedModel& model) { return model.model().info().labels; }, "The class labels, in output order (empty if none).")
        .def_property_readonly (
            "input_shape", [] (const LoadedModel& model) { return python::shapeTuple (model.model().info().inputShapes.front()); },
            "The input's shape (the first input's, for a model with several: see input_shapes).")
        .def_property_readonly (
            "input_shapes",
            [] (const LoadedModel& model) {
                py::list shapes;
                for (const auto& shape : model.model().info().inputShapes)
                    shapes.append (python::shapeTuple (shape));
                return shapes;
            },
            "Each input's shape, in the order run() takes them.")
        .def_property_readonly (
            "outputs",
            [] (const LoadedModel& model) {
                py::list shapes;
                for (const auto& shape : model.model().info().outputShapes)
                    shapes.append (python::shapeTuple (shape));
                return shapes;
            },
            "Each output's shape, in output order: the engine names outputs by index (run-model's --output-index).")
        .def_property_readonly (
            engine::keys::embeddingOutput, [] (const LoadedModel& model) { return model.model().info().embeddingOutput; },
            "Which output is the model's embedding (what `sonotype learn` averages), or None.")
        .def ("__repr__", [] (const LoadedModel& model) {
            const auto& info = model.model().info();
            std::string text = "<sonotype.engine.Model " + (model.path().empty() ? std::string ("built-in") : "'" + info.name + "'") + ": input";
            for (const auto& shape : info.inputShapes)
                text += " " + shape.toString();
            text += " -> output";
            for (const auto& shape : info.outputShapes)
                text += " " + shape.toString();
            text += ", " + std::to_string (info.labels.size()) + " labels>";
            return engine::printable (text);
        });
}
} // namespace

PYBIND11_MODULE (engine, m)
{
    m.doc() = kModuleDoc;
    m.attr ("__version__") = SONOTYPE_VERSION;
    addExceptions (m);
    addModel (m);
    m.def ("audio_files", &python::audioFiles, py::arg ("paths"),
           R"(audio_files(paths) -> (files, skipped, errors)

The audio files `sonotype classify` reads for these paths (a path or a list of them): named files as
given, folders searched recursively, sorted, each once. skipped: (path, why) for what a folder held
that is not read (classify names each on stderr); errors: (path, why) for each path that could not
be read (classify writes an error row for each, csv_error_row(), before the files' rows, and fails).)");
}
