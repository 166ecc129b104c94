// The sonotype command line, parsed by CLI11: subcommands, `--` to end the options, typed options
// with ranges checked strictly (a whole number is decimal digits, nothing else), help generated from
// the options. A bad command line exits with status 2 and a message naming the option.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace sonotype::cli
{

/** A bad command line found after parsing (e.g. a missing PATH): message for stderr, exit code 2. */
struct UsageError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

/** The `sonotype` app: help in our layout ("usage: ..." first, then the description, the options and
    the footer), no "Usage:" banner of CLI11's, options listed as `--name TYPE`. */
std::unique_ptr<CLI::App> makeApp();

/** A subcommand with that layout; `footer` is printed after the options. */
CLI::App* addCommand (CLI::App& app, const std::string& name, const std::string& summary, const std::string& description,
                      const std::string& footer = {});

/** The command's option as `--name TYPE` with a whole-number value from low to high: decimal digits only,
    so "-1", "0x10", "1e3" and numbers past the range are refused by name. */
CLI::Option* addWholeOption (CLI::App& command, const std::string& name, std::size_t& value, std::size_t low, std::size_t high,
                             const std::string& type, const std::string& description);
CLI::Option* addWholeOption (CLI::App& command, const std::string& name, unsigned& value, unsigned low, unsigned high,
                             const std::string& type, const std::string& description);
CLI::Option* addWholeOption (CLI::App& command, const std::string& name, int& value, int low, int high, const std::string& type,
                             const std::string& description);

/** The command's option with a finite number as value, from low to high (low excluded when
    lowExcluded); `what` describes it in messages ("a number of seconds"). */
CLI::Option* addNumberOption (CLI::App& command, const std::string& name, double& value, double low, double high, bool lowExcluded,
                              const std::string& what, const std::string& type, const std::string& description);

/** Parses args (argv without the program name): app.parse(), except that a `--` after the command
    ends its options wherever it stands, everything after it going to the command's positional
    argument (CLI11 2.1 hands what follows a `--` to the parent app once the positional has one
    value). Throws CLI::ParseError. */
void parseCommandLine (CLI::App& app, std::vector<std::string> args);

/** Parses `command`'s options from `arguments` (what follows the command's name on a command line)
    as parseCommandLine does, for callers other than the command line (Python's sonotype.engine):
    a bad one throws UsageError with the message the command line prints after "error: ". */
void parseCommandArguments (CLI::App& app, const std::string& command, const std::vector<std::string>& arguments);

/** The message and exit code for a failed parse (2, or 0 for --help), written to `out` / `err`. */
int reportParseError (const CLI::App& app, const CLI::ParseError& error, std::ostream& out, std::ostream& err);

} // namespace sonotype::cli
