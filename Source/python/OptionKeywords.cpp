#include "python/OptionKeywords.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace py = pybind11;

namespace sonotype::python
{
namespace
{
    enum class Kind
    {
        number,  // a float or an int (not a bool): the option's value as Python writes it (repr, exact)
        choice,  // a str
        classes, // a str or a sequence of str: comma-separated
        flag,    // a bool: True gives the option
    };

    struct Keyword
    {
        std::string_view name;
        Kind kind;
    };

    // classify's options that fit one file's rows. --format, --output, --jobs, --shard, --model and
    // the budgets belong to the command line or to Model(); --to-end and --error-rows are defaults.
    constexpr std::array kKeywords {
        Keyword { "hop", Kind::number },
        Keyword { "smooth", Kind::number },
        Keyword { "classes", Kind::classes },
        Keyword { "onsets", Kind::flag },
        Keyword { "segments", Kind::flag },
        Keyword { "summary", Kind::flag },
        Keyword { "grid", Kind::flag },
        Keyword { "threshold", Kind::number },
        Keyword { "response", Kind::choice },
        Keyword { "onset_threshold", Kind::number },
        Keyword { "onset_gap", Kind::number },
        Keyword { "onset_silence", Kind::number },
        Keyword { "onset_window", Kind::number },
        Keyword { "embeddings", Kind::flag },
    };

    /** The command line's option for a keyword: onset_window is --onset-window. */
    std::string optionNamed (std::string_view keyword)
    {
        std::string option = "--" + std::string (keyword);
        std::replace (option.begin(), option.end(), '_', '-');
        return option;
    }

    std::string typeName (const py::handle& value)
    {
        return py::str (value.get_type().attr ("__name__"));
    }

    /** The option's arguments for the keyword's value (none for None or False). */
    std::vector<std::string> argumentsFor (const Keyword& keyword, const py::handle& value)
    {
        const auto name = std::string (keyword.name);
        const auto option = optionNamed (keyword.name);
        if (value.is_none())
            return {};
        switch (keyword.kind)
        {
            case Kind::flag:
                if (! py::isinstance<py::bool_> (value))
                    throw py::type_error (name + " must be True or False, not " + typeName (value));
                return value.cast<bool>() ? std::vector<std::string> { option } : std::vector<std::string> {};
            case Kind::number:
                if (py::isinstance<py::bool_> (value) || py::isinstance<py::str> (value) || ! PyNumber_Check (value.ptr()))
                    throw py::type_error (name + " must be a number, not " + typeName (value));
                // As Python writes the number (shortest exact digits), which the option reads back exactly.
                if (py::isinstance<py::int_> (value))
                    return { option, py::str (value) };
                return { option, py::repr (py::float_ (py::reinterpret_borrow<py::object> (value))) };
            case Kind::choice:
                if (! py::isinstance<py::str> (value))
                    throw py::type_error (name + " must be a str, not " + typeName (value));
                return { option, value.cast<std::string>() };
            case Kind::classes:
                break;
        }
        if (py::isinstance<py::str> (value))
            return { option, value.cast<std::string>() };
        if (! py::isinstance<py::sequence> (value))
            throw py::type_error (name + " must be a str or a sequence of str, not " + typeName (value));
        std::string joined;
        for (const auto& label : py::reinterpret_borrow<py::sequence> (value))
        {
            if (! py::isinstance<py::str> (label))
                throw py::type_error (name + " must hold labels (str), not " + typeName (label));
            joined += (joined.empty() ? "" : ",") + label.cast<std::string>();
        }
        return { option, joined };
    }
} // namespace

const char* const kClassifyKeywordsDoc = R"(Keywords (each one of `sonotype classify`'s options; left out or None: the option's default):
    hop=0.25          --hop: seconds between windows
    smooth=0.0        --smooth: the probabilities' smoothing time constant, seconds (0: off)
    classes=None      --classes: the labels in play (a list, or "a,b"); the others get 0
    onsets=False      --onsets: one row per hit instead of per window
    segments=False    --segments: one row per segment
    summary=False     --summary: one row per file
    grid=False        --grid: windows on the hop's grid only (no padded or tail windows)
    threshold=30      --threshold: segments and summaries, percent
    response="exact"  --response: with onsets, "exact" or "live"
    onset_threshold, onset_gap, onset_silence, onset_window: --onset-threshold, --onset-gap,
                      --onset-silence, --onset-window (with onsets)
    embeddings=False  --embeddings: window rows get the model's embedding (embedding_0, ...)
A value the command line refuses raises OptionError with its message.)";

cli::ClassifyOptions classifyOptionsFor (const py::kwargs& keywords, const std::string& path)
{
    std::vector<std::string> arguments;
    for (const auto& [key, value] : keywords)
    {
        const auto name = key.cast<std::string>();
        const auto* keyword = std::find_if (kKeywords.begin(), kKeywords.end(), [&] (const Keyword& k) { return k.name == name; });
        if (keyword == kKeywords.end())
            throw py::type_error ("unexpected keyword argument '" + name + "' (see help(sonotype.engine.Model.classify_file))");
        const auto more = argumentsFor (*keyword, value);
        arguments.insert (arguments.end(), more.begin(), more.end());
    }
    arguments.insert (arguments.end(), { "--", path }); // a path that starts with '-' is a path
    return cli::parseClassifyOptions (arguments);
}

cli::ModelLimitOptions limitOptionsFor (const py::object& maxMemoryMib, const py::object& maxOps)
{
    std::vector<std::string> arguments;
    for (const auto& [keyword, value] : { std::pair { Keyword { "max_memory", Kind::number }, maxMemoryMib },
                                          std::pair { Keyword { "max_ops", Kind::number }, maxOps } })
    {
        const auto more = argumentsFor (keyword, value);
        arguments.insert (arguments.end(), more.begin(), more.end());
    }
    cli::ModelLimitOptions limits;
    const auto app = cli::makeApp();
    cli::addModelLimitOptions (*cli::addCommand (*app, "model", "", ""), limits);
    cli::parseCommandArguments (*app, "model", arguments);
    return limits;
}

} // namespace sonotype::python
