#include "cli/ModelLoading.h"

#include "resources/BuiltinModel.h"

namespace sonotype::cli
{

engine::LoadLimits ModelLimitOptions::limits() const
{
    engine::LoadLimits limits;
    limits.maxMemoryBytes = static_cast<std::size_t> (maxMemoryMib * 1024.0 * 1024.0);
    limits.maxOpsPerRun = maxOpsPerRun;
    return limits;
}

void addModelLimitOptions (CLI::App& command, ModelLimitOptions& options)
{
    const std::string group = "model budgets (a model that needs more is refused before anything is allocated or run)";
    addNumberOption (command, "--max-memory", options.maxMemoryMib, 1.0, 1024.0 * 1024.0, false, "a number", "MIB",
                     "memory the model may take, activations included (default 2048)")
        ->group (group);
    addNumberOption (command, "--max-ops", options.maxOpsPerRun, 1.0, 1e15, false, "a number", "N",
                     "operations one inference may do, in multiply-adds of a matrix product, every\n"
                     "other step weighed by its time (default 1e11: about 2-5 s on one core)")
        ->group (group);
}

std::shared_ptr<const engine::Model> loadModel (const std::string& path, const ModelLimitOptions& options)
{
    return engine::Model::load (path, options.limits());
}

std::shared_ptr<const engine::Model> loadModelOrBuiltin (const std::string& path, const ModelLimitOptions& options)
{
    return path.empty() ? resources::builtinModel() : loadModel (path, options);
}

} // namespace sonotype::cli
