#include "python/LoadedModel.h"

namespace sonotype::python
{

LoadedModel::LoadedModel (const std::string& path, const cli::ModelLimitOptions& limits)
    : path_ (path), limits_ (limits), model_ (cli::loadModelOrBuiltin (path, limits))
{
}

template <typename Item>
std::unique_ptr<Item> LoadedModel::takeIdle (std::vector<std::unique_ptr<Item>>& pool) const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    if (pool.empty())
        return nullptr;
    auto item = std::move (pool.back());
    pool.pop_back();
    return item;
}

template <typename Item>
void LoadedModel::giveBack (std::vector<std::unique_ptr<Item>>& pool, std::unique_ptr<Item> item) const
{
    const std::lock_guard<std::mutex> lock (mutex_);
    pool.push_back (std::move (item));
}

// The pools' items (Lease, in the header, gives them back).
template void LoadedModel::giveBack (std::vector<std::unique_ptr<engine::Session>>&, std::unique_ptr<engine::Session>) const;
template void LoadedModel::giveBack (std::vector<std::unique_ptr<timeline::ReusedAnalyzer>>&, std::unique_ptr<timeline::ReusedAnalyzer>) const;

LoadedModel::Lease<engine::Session> LoadedModel::session() const
{
    auto session = takeIdle (sessions_);
    if (session == nullptr)
        session = std::make_unique<engine::Session> (model_);
    return { *this, sessions_, std::move (session) };
}

LoadedModel::Lease<timeline::ReusedAnalyzer> LoadedModel::analyzer() const
{
    auto analyzer = takeIdle (analyzers_);
    if (analyzer == nullptr)
        analyzer = std::make_unique<timeline::ReusedAnalyzer>();
    return { *this, analyzers_, std::move (analyzer) };
}

} // namespace sonotype::python
