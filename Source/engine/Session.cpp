#include "engine/Session.h"

#include <chrono>

namespace sonotype::engine
{

Session::Session (std::shared_ptr<const Model> model)
    : model_ (std::move (model)), arena_ (model_->arenaFloats() + model_->scratchFloats())
{
    scratch_ = arena_.data() + model_->arenaFloats();
    const auto& nodes = model_->nodes();
    for (std::size_t n = 0; n < nodes.size(); ++n)
    {
        const auto& node = nodes[n];
        if (node.kernel->aliasesInput())
            continue;
        steps_.push_back ({ node.kernel.get(), n, inputPointers_.size(), outputPointers_.size() });
        for (const auto value : node.inputs)
            inputPointers_.push_back (value.present() ? pointer (value) : nullptr);
        for (const auto value : node.outputs)
            outputPointers_.push_back (const_cast<float*> (pointer (value)));
    }
}

const float* Session::pointer (ValueId value) const noexcept
{
    const auto& location = model_->location (value);
    return location.stored != nullptr ? location.stored : arena_.data() + location.arenaOffset;
}

std::span<float> Session::input (std::size_t i) noexcept
{
    const auto value = model_->inputValues()[i];
    return { const_cast<float*> (pointer (value)), static_cast<std::size_t> (model_->info().inputShapes[i].numElements()) };
}

std::span<const float> Session::output (std::size_t i) const noexcept
{
    const auto value = model_->outputValues()[i];
    return { pointer (value), static_cast<std::size_t> (model_->info().outputShapes[i].numElements()) };
}

void Session::run() noexcept
{
    for (const auto& step : steps_)
        step.op->run (inputPointers_.data() + step.firstInput, outputPointers_.data() + step.firstOutput, scratch_);
}

void Session::runTimed (std::span<double> secondsPerNode) noexcept
{
    using Clock = std::chrono::steady_clock;
    for (const auto& step : steps_)
    {
        const auto started = Clock::now();
        step.op->run (inputPointers_.data() + step.firstInput, outputPointers_.data() + step.firstOutput, scratch_);
        if (step.node < secondsPerNode.size())
            secondsPerNode[step.node] += std::chrono::duration<double> (Clock::now() - started).count();
    }
}

} // namespace sonotype::engine
