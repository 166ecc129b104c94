#include "cli/ModelLoading.h"

#include <cmath>
#include <cstdio>

namespace sonotype::cli
{

const char* const kModelLimitHelp = R"(
model budgets (a model that needs more is refused before anything is allocated or run):
  --max-memory MIB     memory the model may take, activations included (default 2048)
  --max-ops N          operations one inference may do, in multiply-adds of a matrix product, every
                       other step weighed by its time (default 1e11: about 2-5 s on one core)
)";

engine::LoadLimits modelLimits (const Arguments& arguments)
{
    auto parse = [&] (const char* option, double low, double high) {
        const auto& text = arguments.value (option);
        try
        {
            std::size_t used = 0;
            const double value = std::stod (text, &used);
            if (used == text.size() && std::isfinite (value) && value >= low && value <= high)
                return value;
        }
        catch (const std::exception&)
        {
        }
        char range[96];
        std::snprintf (range, sizeof range, " must be a number from %g to %g, not '", low, high);
        throw UsageError (option + std::string (range) + text + "'");
    };
    engine::LoadLimits limits;
    if (arguments.has ("--max-memory"))
        limits.maxMemoryBytes = static_cast<std::size_t> (parse ("--max-memory", 1.0, 1024.0 * 1024.0) * 1024.0 * 1024.0);
    if (arguments.has ("--max-ops"))
        limits.maxOpsPerRun = parse ("--max-ops", 1.0, 1e15);
    return limits;
}

std::shared_ptr<const engine::Model> loadModel (const std::string& path, const Arguments& arguments)
{
    return engine::Model::load (path, modelLimits (arguments));
}

std::set<std::string> withModelLimitOptions (std::set<std::string> options)
{
    options.insert (kModelLimitOptions.begin(), kModelLimitOptions.end());
    return options;
}

} // namespace sonotype::cli
