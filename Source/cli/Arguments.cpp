#include "cli/Arguments.h"
#include "engine/file/Text.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace sonotype::cli
{
namespace
{
    constexpr std::size_t kHelpWidth = 100; // the usage line wraps before this column

    /** CLI11's formatter in our layout: the usage line first, lowercase, listing every option. */
    class HelpFormatter : public CLI::Formatter
    {
    public:
        /** `description`: the help's text under the usage line, if not the app's description (a
            subcommand's description is its one-line summary in `sonotype --help`). */
        explicit HelpFormatter (std::string description = {}) : description_ (std::move (description))
        {
            column_width (23);
            label ("Usage", "usage");
            label ("Positionals", "arguments");
        }

        std::string make_help (const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override
        {
            if (mode == CLI::AppFormatMode::Sub)
                return make_expanded (app);
            std::string help = make_usage (app, name);
            const auto& description = description_.empty() ? app->get_description() : description_;
            if (! description.empty())
                help += "\n" + description + "\n";
            help += make_positionals (app);
            // Each group of options under its heading (CLI11's make_groups adds blank lines).
            for (const auto& group : app->get_groups())
            {
                const auto options = app->get_options ([&group] (const CLI::Option* o) { return o->get_group() == group && o->nonpositional(); });
                if (! group.empty() && ! options.empty())
                    help += make_group (group, false, options);
            }
            help += make_subcommands (app, mode);
            if (! app->get_footer().empty())
                help += "\n" + app->get_footer() + "\n";
            return help;
        }

        std::string make_usage (const CLI::App* app, std::string name) const override
        {
            const std::string start = get_label ("Usage") + ": " + name;
            if (! app->get_subcommands ({}).empty())
                return start + " COMMAND [ARGS...]\n";
            std::vector<std::string> words;
            for (const auto* option : app->get_options ([app] (const CLI::Option* o) { return o->nonpositional() && o != app->get_help_ptr(); }))
            {
                // The model budgets are listed under their own heading, not in the usage line.
                if (option->get_group() != "options")
                    continue;
                auto word = option->get_name (false, true) + make_option_opts (option);
                words.push_back (option->get_required() ? word : "[" + word + "]");
            }
            // A positional's option_text is how the usage line shows it (e.g. "PATH...").
            for (const auto* option : app->get_options ([] (const CLI::Option* o) { return o->get_positional(); }))
                words.push_back (option->get_option_text().empty() ? option->get_name (true, false) : option->get_option_text());
            std::string usage = start, line = start;
            const std::string indent (start.size() + 1, ' ');
            for (const auto& word : words)
            {
                if (line.size() + 1 + word.size() > kHelpWidth && line != start)
                {
                    usage += "\n" + indent;
                    line = indent;
                }
                else
                {
                    usage += " ";
                    line += " ";
                }
                usage += word;
                line += word;
            }
            return usage + "\n";
        }

        std::string make_option_opts (const CLI::Option* option) const override
        {
            return option->get_positional() || option->get_type_name().empty() ? std::string() : " " + option->get_type_name();
        }

    private:
        std::string description_;
    };

    /** Strictly decimal digits (no sign, space, base prefix or exponent), within [low, high]; the text
        becomes the canonical digits, so that CLI11's conversion (base 0: "010" would be octal) reads it
        as written. */
    template <typename T>
    CLI::Option* addWhole (CLI::App& command, const std::string& name, T& value, T low, T high, const std::string& type,
                           const std::string& description)
    {
        const auto range = std::to_string (low) + " to " + std::to_string (high);
        CLI::Validator check (
            [low, high, range] (std::string& text) -> std::string {
                const auto bad = "must be a whole number from " + range + ", not '" + text + "'";
                if (text.empty() || text.size() > 19 || text.find_first_not_of ("0123456789") != std::string::npos)
                    return bad;
                const auto number = std::strtoull (text.c_str(), nullptr, 10);
                if (number < static_cast<unsigned long long> (low) || number > static_cast<unsigned long long> (high))
                    return bad;
                text = std::to_string (number);
                return {};
            },
            "", "whole number");
        return command.add_option (name, value, description)->type_name (type)->transform (check); // (a transform may rewrite the text; a check may not)
    }
} // namespace

std::unique_ptr<CLI::App> makeApp()
{
    auto app = std::make_unique<CLI::App> ("", "sonotype");
    app->formatter (std::make_shared<HelpFormatter>());
    app->option_defaults()->group ("options");
    app->set_help_flag ("-h,--help", "show this help")->group ("options");
    app->require_subcommand (1);
    return app;
}

CLI::App* addCommand (CLI::App& app, const std::string& name, const std::string& summary, const std::string& description,
                      const std::string& footer)
{
    auto* command = app.add_subcommand (name, summary);
    command->group ("commands");
    command->formatter (std::make_shared<HelpFormatter> (description));
    command->get_help_ptr()->group ("options");
    command->footer (footer);
    return command;
}

CLI::Option* addWholeOption (CLI::App& command, const std::string& name, std::size_t& value, std::size_t low, std::size_t high,
                             const std::string& type, const std::string& description)
{
    return addWhole (command, name, value, low, high, type, description);
}

CLI::Option* addWholeOption (CLI::App& command, const std::string& name, unsigned& value, unsigned low, unsigned high,
                             const std::string& type, const std::string& description)
{
    return addWhole (command, name, value, low, high, type, description);
}

CLI::Option* addWholeOption (CLI::App& command, const std::string& name, int& value, int low, int high, const std::string& type,
                             const std::string& description)
{
    return addWhole (command, name, value, low, high, type, description);
}

CLI::Option* addNumberOption (CLI::App& command, const std::string& name, double& value, double low, double high, bool lowExcluded,
                              const std::string& what, const std::string& type, const std::string& description)
{
    char range[128];
    if (lowExcluded)
        std::snprintf (range, sizeof range, "greater than %g, at most %g", low, high);
    else
        std::snprintf (range, sizeof range, "from %g to %g", low, high);
    CLI::Validator check (
        [low, high, lowExcluded, what, range = std::string (range)] (std::string& text) -> std::string {
            char* end = nullptr;
            errno = 0;
            const double number = text.empty() ? std::nan ("") : std::strtod (text.c_str(), &end);
            if (end == text.c_str() + text.size() && std::isfinite (number) && (lowExcluded ? number > low : number >= low) && number <= high)
                return {};
            return "must be " + what + " " + range + ", not '" + text + "'";
        },
        "", "number");
    return command.add_option (name, value, description)->type_name (type)->check (check);
}

void parseCommandLine (CLI::App& app, std::vector<std::string> args)
{
    std::vector<std::string> rest; // after the command's `--`
    CLI::App* command = nullptr;
    for (auto* sub : app.get_subcommands ({}))
        if (! args.empty() && sub->check_name (args[0]))
            command = sub;
    for (std::size_t i = 1; command != nullptr && i < args.size(); ++i)
    {
        if (args[i] == "--")
        {
            rest.assign (args.begin() + static_cast<std::ptrdiff_t> (i) + 1, args.end());
            args.resize (i);
            break;
        }
        // An option that takes a value takes the next argument, `--` included.
        if (args[i].rfind ("--", 0) == 0 && args[i].find ('=') == std::string::npos)
            if (const auto* option = command->get_option_no_throw (args[i]); option != nullptr && option->get_expected_min() > 0)
                ++i;
    }
    // An option given twice takes its last value, as it always has (CLI11 would refuse the repeat).
    for (auto* sub : app.get_subcommands ({}))
        for (auto* option : sub->get_options ([] (CLI::Option* o) { return ! o->get_positional() && o->get_expected_max() == 1; }))
            option->multi_option_policy (CLI::MultiOptionPolicy::TakeLast);
    std::reverse (args.begin(), args.end()); // CLI11 takes the last first
    app.parse (args);
    if (rest.empty())
        return;
    const auto positionals = command->get_options ([] (const CLI::Option* o) { return o->get_positional(); });
    if (positionals.empty())
        throw CLI::ExtrasError (command->get_name(), rest);
    for (const auto& value : rest)
        positionals.back()->add_result (value);
    positionals.back()->run_callback();
}

void parseCommandArguments (CLI::App& app, const std::string& command, const std::vector<std::string>& arguments)
{
    std::vector<std::string> commandLine { command };
    commandLine.insert (commandLine.end(), arguments.begin(), arguments.end());
    try
    {
        parseCommandLine (app, commandLine);
    }
    catch (const CLI::ParseError& e)
    {
        std::ostringstream out, err;
        reportParseError (app, e, out, err);
        auto message = err.str();
        if (message.rfind ("error: ", 0) == 0)
            message.erase (0, 7);
        while (! message.empty() && message.back() == '\n')
            message.pop_back();
        throw UsageError (message);
    }
}

int reportParseError (const CLI::App& app, const CLI::ParseError& error, std::ostream& out, std::ostream& err)
{
    if (dynamic_cast<const CLI::CallForHelp*> (&error) != nullptr)
    {
        out << app.help();
        return 0;
    }
    if (dynamic_cast<const CLI::CallForVersion*> (&error) != nullptr)
    {
        out << error.what() << "\n";
        return 0;
    }
    // The command being parsed: the one selected on the command line, else the app itself.
    const CLI::App* command = &app;
    for (const auto* sub : app.get_subcommands())
        command = sub;
    std::string message = error.what();
    const bool extras = dynamic_cast<const CLI::ExtrasError*> (&error) != nullptr;
    auto left = command->remaining (false);
    left.erase (std::remove (left.begin(), left.end(), "--"), left.end());
    if (command == &app && (extras || dynamic_cast<const CLI::RequiredError*> (&error) != nullptr))
    {
        // No command: none given (the help), or an unknown one.
        if (left.empty())
        {
            err << app.help();
            return 2;
        }
        if (left.front().size() < 2 || left.front()[0] != '-')
        {
            err << "error: unknown command '" << engine::printable (left.front()) << "'\n\n"
                << app.help();
            return 2;
        }
    }
    if ((extras || command == &app) && ! left.empty())
    {
        const auto& first = left.front();
        if (first.size() > 1 && first[0] == '-')
            message = "unknown option " + first.substr (0, first.find ('='));
        else
            message = "unexpected argument '" + first + "'";
    }
    // Messages quote the command line: printable() keeps terminal escapes out of stderr.
    err << "error: " << engine::printable (message) << "\n";
    return 2;
}

} // namespace sonotype::cli
