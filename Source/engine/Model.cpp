#include "engine/Model.h"

#include "engine/CpuDispatch.h"
#include "engine/Fusion.h"
#include "engine/file/Json.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFileKeys.h"
#include "engine/file/ModelMetadata.h"

#include <algorithm>
#include <cstdio>

namespace sonotype::engine
{
namespace
{
    std::string describeOps (double ops)
    {
        char text[32];
        std::snprintf (text, sizeof (text), "%.3g", ops);
        return text;
    }

    /** What output 0 holds: read from the node computing it, through reshapes (which keep the
        class axis last when its size is kept). Before fusion, which turns nodes into aliases. */
    OutputScores outputScores (const Graph& graph)
    {
        auto value = graph.outputs.front();
        const auto& output = graph.shape (value);
        const int64_t classes = output.rank() > 0 ? output[output.rank() - 1] : 1;
        for (auto node = graph.nodes.rbegin(); node != graph.nodes.rend(); ++node)
        {
            if (std::find (node->outputs.begin(), node->outputs.end(), value) == node->outputs.end())
                continue;
            if (node->kind == OpKind::reshape)
            {
                value = node->inputs.front();
                continue;
            }
            if (node->kind == OpKind::sigmoid)
                return OutputScores::independentProbabilities;
            if (node->rowLength == classes)
                return node->kind == OpKind::logSoftmax ? OutputScores::logProbabilities : OutputScores::probabilities;
            return OutputScores::logits;
        }
        return OutputScores::logits;
    }
} // namespace

std::shared_ptr<const Model> Model::load (const std::string& path, const LoadLimits& limits)
{
    LoadBudget budget (limits);
    return fromFile (ModelFile::read (path, budget), path, budget);
}

std::shared_ptr<const Model> Model::fromMemory (const std::uint8_t* bytes, std::size_t numBytes, const std::string& name, const LoadLimits& limits)
{
    LoadBudget budget (limits);
    return fromFile (ModelFile::parse (bytes, numBytes, name, budget), name, budget);
}

std::shared_ptr<const Model> Model::fromFile (ModelFile file, const std::string& name, LoadBudget& budget)
{
    std::shared_ptr<Model> model (new Model());
    model->file_ = std::move (file);
    model->info_.name = name;
    try
    {
        model->build (budget);
    }
    catch (const ModelError& e)
    {
        throw ModelError ("model file '" + name + "': " + e.what());
    }
    catch (const JsonError& e)
    {
        throw ModelError ("model file '" + name + "': graph metadata: " + e.what());
    }
    return model;
}

void Model::build (LoadBudget& budget)
{
    const auto& metadata = file_.metadata();
    graph_ = buildGraph (graphOf (metadata), file_, *activeKernelPath().workWeights, budget);
    for (const auto v : graph_.inputs)
        info_.inputShapes.push_back (graph_.shape (v));
    for (const auto v : graph_.outputs)
        info_.outputShapes.push_back (graph_.shape (v));
    info_.opsPerRun = graph_.opsPerRun;
    info_.multiplyAdds = graph_.multiplyAdds;
    for (const auto& node : graph_.nodes)
        ++info_.opCounts[std::string (node.op())];

    info_.labels = readLabels (metadata, info_.outputShapes.front(), budget);
    info_.embeddingOutput = readEmbeddingOutput (metadata, info_.outputShapes.size());
    info_.classNotes = readClassNotes (metadata, info_.labels, budget);
    readFrontend (budget);
    info_.scores = outputScores (graph_);

    const auto readers = countReaders (graph_);
    // Outputs nothing reads (attention's probabilities, say) need not be computed; an op told so
    // may then fuse more.
    for (auto& node : graph_.nodes)
        for (std::size_t i = 1; i < node.outputs.size(); ++i)
            if (readers[node.outputs[i].index()] == 0)
                node.kernel->outputUnused (i);
    fuseNodes (graph_, readers, budget);

    info_.metadata = metadata;
    info_.numParameters = file_.numWeightFloats();
    info_.numNodes = graph_.nodes.size();
    memory_ = planMemory (graph_);
    budget.claim (memory_.arenaFloats + memory_.scratchFloats, sizeof (float), "one session's activations");
    info_.activationBytes = (memory_.arenaFloats + memory_.scratchFloats) * sizeof (float);
    info_.activationBytesWithoutReuse = memory_.bytesWithoutReuse;
    info_.loadBytes = budget.usedBytes();
    // Checked once the memory is: a model too big for both is refused for its memory.
    checkWork (budget.limits());
}

void Model::readFrontend (LoadBudget& budget)
{
    const auto& metadata = file_.metadata();
    const auto frontend = metadata.find (keys::frontend);
    if (frontend == metadata.end())
        return;
    // The front end is part of the file: validated here, its buffers and work inside the budgets.
    info_.frontend = FrontendSettings::forModel (frontend->second, info_.inputShapes.front(), file_);
    info_.frontendJson = frontend->second;
    if (info_.frontend.has_value())
    {
        const auto cost = info_.frontend->cost();
        budget.claim (cost.bytes, "one analyzer's front end");
        info_.frontendBytes = cost.bytes;
        info_.frontendOpsPerWindow = activeKernelPath().workWeights->operations (cost.perWindow);
    }
}

void Model::checkWork (const LoadLimits& limits) const
{
    const double maxOps = limits.maxOpsPerRun;
    if (info_.frontendOpsPerWindow > info_.opsPerRun && info_.opsPerRun + info_.frontendOpsPerWindow > maxOps && ! info_.frontend->isWaveform())
    {
        const auto& f = *info_.frontend;
        throw ModelError ("the front end needs about " + describeOps (info_.frontendOpsPerWindow) + " operations per window (n_fft "
                          + std::to_string (f.nFft) + ", " + std::to_string (f.framesPerWindow()) + " frames of " + std::to_string (f.nMels)
                          + " mel bands), the graph " + describeOps (info_.opsPerRun) + ": more than the work budget of " + describeOps (maxOps));
    }
    if (info_.opsPerRun + info_.frontendOpsPerWindow > maxOps)
        throw ModelError ("the graph needs about " + describeOps (info_.opsPerRun) + " operations per run, more than the work budget of "
                          + describeOps (maxOps) + " (" + graph_.heaviest + " alone: " + describeOps (graph_.heaviestOps) + ")");
}

} // namespace sonotype::engine
