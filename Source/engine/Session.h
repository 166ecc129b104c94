// Runs a Model: owns the activation arena; run() does no allocation, no locking, no I/O.
// One Session per thread; many Sessions may share one Model.
#pragma once

#include "engine/Model.h"

#include <span>

namespace sonotype::engine
{

class Session
{
public:
    explicit Session (std::shared_ptr<const Model> model);

    const Model& model() const noexcept { return *model_; }
    std::shared_ptr<const Model> sharedModel() const noexcept { return model_; }

    /** Where to write input i (shape model().info().inputShapes[i]) before run(). */
    std::span<float> input (std::size_t i = 0) noexcept;
    /** Output i after run(), valid until the next run(). */
    std::span<const float> output (std::size_t i = 0) const noexcept;

    /** Computes the outputs from the inputs. Real-time safe: no allocation, locks or system calls. */
    void run() noexcept;

    /** run(), timing each node: adds the seconds node i took to secondsPerNode[i] (indices of
        model().nodes(); nodes that alias their input take no time). For profiling, not real time. */
    void runTimed (std::span<double> secondsPerNode) noexcept;

private:
    struct Step
    {
        const Op* op;
        std::size_t node, firstInput, firstOutput;
    };
    const float* pointer (ValueId value) const noexcept;

    std::shared_ptr<const Model> model_;
    AlignedBuffer arena_;
    float* scratch_ = nullptr;
    std::vector<Step> steps_;
    std::vector<const float*> inputPointers_;
    std::vector<float*> outputPointers_;
};

} // namespace sonotype::engine
