#include "cli/Arguments.h"

namespace sonotype::cli
{

Arguments::Arguments (const std::vector<std::string>& args, const std::set<std::string>& options, const std::set<std::string>& flags)
{
    for (std::size_t i = 0; i < args.size(); ++i)
    {
        const auto& arg = args[i];
        if (arg.size() < 2 || arg[0] != '-' || arg == "--")
        {
            positionals_.push_back (arg);
            continue;
        }
        auto name = arg;
        std::string inlineValue;
        bool hasInlineValue = false;
        if (const auto equals = arg.find ('='); equals != std::string::npos)
        {
            name = arg.substr (0, equals);
            inlineValue = arg.substr (equals + 1);
            hasInlineValue = true;
        }
        if (options.count (name))
        {
            if (hasInlineValue)
                values_[name] = inlineValue;
            else if (i + 1 < args.size())
                values_[name] = args[++i];
            else
                throw UsageError (name + " needs a value");
        }
        else if (flags.count (name) && ! hasInlineValue)
            flags_.insert (name);
        else
            throw UsageError ("unknown option " + name);
    }
}

const std::string& Arguments::value (const std::string& name) const
{
    const auto it = values_.find (name);
    if (it == values_.end())
        throw UsageError (name + " is required");
    return it->second;
}

std::string Arguments::valueOr (const std::string& name, const std::string& fallback) const
{
    const auto it = values_.find (name);
    return it == values_.end() ? fallback : it->second;
}

} // namespace sonotype::cli
