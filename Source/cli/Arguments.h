// Minimal command-line parsing for the sonotype subcommands: --flag, --option VALUE, positionals.
#pragma once

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace sonotype::cli
{

/** A bad command line: message for stderr, exit code 2. */
struct UsageError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

class Arguments
{
public:
    /** Parses args; `options` take a value, `flags` do not; anything else starting with '-' is an error. */
    Arguments (const std::vector<std::string>& args, const std::set<std::string>& options, const std::set<std::string>& flags);

    bool flag (const std::string& name) const { return flags_.count (name) > 0; }
    bool has (const std::string& name) const { return values_.count (name) > 0; }
    const std::string& value (const std::string& name) const; // throws UsageError if absent
    std::string valueOr (const std::string& name, const std::string& fallback) const;
    const std::vector<std::string>& positionals() const noexcept { return positionals_; }

private:
    std::map<std::string, std::string> values_;
    std::set<std::string> flags_;
    std::vector<std::string> positionals_;
};

} // namespace sonotype::cli
