// A model loaded for Python's sonotype.engine: the engine's Model, loaded as the command line loads
// it, and the sessions and file analyzers its calls reuse from one call to the next.
// Threading contract
// - Every method may be called from any thread, from several at once (Python's threads, with the
//   GIL released while the engine works).
// - The Model is immutable and shared. Sessions and analyzers are pooled: a call takes an idle one
//   (or makes a new one) under mutex_, uses it alone with no lock held, and gives it back under
//   mutex_. Calls on one model from several threads therefore run at once, each in a session (or an
//   analyzer) of its own; the pools hold as many as ran at once.
#pragma once

#include "cli/ModelLoading.h"
#include "engine/Session.h"
#include "timeline/FileAnalysis.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sonotype::python
{

class LoadedModel
{
public:
    /** The file at `path` under the budgets (cli::loadModelOrBuiltin), or the built-in model for an
        empty path. Throws engine::ModelError with the engine's message. */
    LoadedModel (const std::string& path, const cli::ModelLimitOptions& limits);

    const engine::Model& model() const noexcept { return *model_; }
    const std::shared_ptr<const engine::Model>& sharedModel() const noexcept { return model_; }
    /** The file it was loaded from; empty for the built-in model. */
    const std::string& path() const noexcept { return path_; }
    const cli::ModelLimitOptions& limits() const noexcept { return limits_; }

    /** A session or analyzer taken from the pool for one call, given back when it goes. */
    template <typename Item>
    class Lease
    {
    public:
        Lease (const LoadedModel& owner, std::vector<std::unique_ptr<Item>>& pool, std::unique_ptr<Item> item)
            : owner_ (owner), pool_ (pool), item_ (std::move (item))
        {
        }
        ~Lease() { owner_.giveBack (pool_, std::move (item_)); }
        Lease (const Lease&) = delete;
        Lease& operator= (const Lease&) = delete;

        Item& operator*() const noexcept { return *item_; }
        Item* operator->() const noexcept { return item_.get(); }

    private:
        const LoadedModel& owner_;
        std::vector<std::unique_ptr<Item>>& pool_;
        std::unique_ptr<Item> item_;
    };

    /** An idle session of the model, or a new one. */
    Lease<engine::Session> session() const;
    /** An idle file analyzer (the one a classify job reuses from file to file), or a new one. */
    Lease<timeline::ReusedAnalyzer> analyzer() const;

private:
    template <typename Item>
    std::unique_ptr<Item> takeIdle (std::vector<std::unique_ptr<Item>>& pool) const;
    template <typename Item>
    void giveBack (std::vector<std::unique_ptr<Item>>& pool, std::unique_ptr<Item> item) const;

    std::string path_;
    cli::ModelLimitOptions limits_;
    std::shared_ptr<const engine::Model> model_;
    mutable std::mutex mutex_;
    mutable std::vector<std::unique_ptr<engine::Session>> sessions_;           // idle, under mutex_
    mutable std::vector<std::unique_ptr<timeline::ReusedAnalyzer>> analyzers_; // idle, under mutex_
};

} // namespace sonotype::python
