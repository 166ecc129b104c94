// The engine's operation interface: one Op object per graph node, built and checked at load time,
// run many times.  run() must not allocate, lock or throw: all checking happens in the factory.
#pragma once

#include "engine/OpTable.h"
#include "engine/file/Shape.h"
#include "engine/file/Work.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sonotype::engine
{

class JsonValue;
class LoadBudget;

/** Ranges of number attributes: a float's finite values, and multipliers and scales. */
constexpr double kFiniteFloat = 3.4028234663852886e38;
constexpr double kMaxFactor = 1e9;

/** What a factory gets to build an op: attributes, input shapes (absent optional inputs are
    nullopt) and the output shapes the file declares, which the op must confirm, and the load's
    memory budget, from which an op claims the tables it builds. */
class OpArgs
{
public:
    OpArgs (OpKind kind, const JsonValue* attrs, std::vector<std::optional<Shape>> inputs, std::vector<Shape> outputs, LoadBudget& budget,
            std::vector<const float*> constants = {});

    OpKind kind() const noexcept { return kind_; }
    std::size_t numInputs() const noexcept { return inputs_.size(); }
    bool hasInput (std::size_t i) const noexcept { return i < inputs_.size() && inputs_[i].has_value(); }
    const Shape& input (std::size_t i) const; // throws if absent
    /** Input i's values when they are stored in the model file (weights), else nullptr: an op may
        prepare them at load (pack them for its kernel). They never change after load. */
    const float* constant (std::size_t i) const noexcept { return i < constants_.size() ? constants_[i] : nullptr; }
    std::size_t numOutputs() const noexcept { return outputs_.size(); }
    const Shape& output (std::size_t i) const;

    /** Throws unless the node has between min and max inputs (and the first `numRequired` present).
        createOp() checks the op table's counts; an op whose count depends on its attributes (rnn)
        checks that count itself. */
    void expectInputs (std::size_t min, std::size_t max, std::size_t numRequired) const;
    void expectOutputs (std::size_t min, std::size_t max) const;
    /** Throws if the declared shape of output i differs from the one the op computes. */
    void checkOutput (std::size_t i, const Shape& computed) const;

    bool has (const char* name) const noexcept;
    int64_t integer (const char* name) const;
    int64_t integer (const char* name, int64_t fallback) const;
    /** A number attribute within [low, high] (checked as a double; NaN and infinity never pass):
        every number an op takes from the file has a documented range. */
    double real (const char* name, double low, double high) const;
    double real (const char* name, double fallback, double low, double high) const;
    bool flag (const char* name, bool fallback) const;
    std::string text (const char* name, const std::string& fallback) const;
    std::vector<int64_t> integers (const char* name) const;
    /** An axis attribute of a rank-`rank` value: -rank..rank-1, as PyTorch takes a dim (negative
        counts from the end); returns it as 0..rank-1. A 0-d value has no axes. */
    int axis (const char* name, int rank) const;
    /** axis() for the ops where PyTorch also takes dim 0 or -1 of a 0-d value and computes as on
        a one-element vector (reductions, softmax, cumsum, arg-reductions, topk, index_select):
        for rank 0 it returns 0 for those two, and the op computes on the value as on [1]. */
    int axisOrScalar (const char* name, int rank) const;

    /** Claims memory for a table of `count` items the op is about to build at load time; throws
        ModelError when the model's memory budget does not allow it. */
    void claimTable (std::uint64_t count, std::size_t itemBytes, const char* what) const;
    /** The load's memory budget itself, for a preparing step an op shares with foldScaleShift(). */
    LoadBudget& budget() const noexcept { return *budget_; }

private:
    const JsonValue* attribute (const char* name) const;
    OpKind kind_;
    const JsonValue* attrs_;
    std::vector<std::optional<Shape>> inputs_;
    std::vector<Shape> outputs_;
    LoadBudget* budget_;
    std::vector<const float*> constants_;
};

/** A max pooling over the last two axes whose windows tile its input: window = stride, 1 or 2
    each way (not both 1), no padding, no dilation; out is its output's size (floor or ceil mode). */
struct MaxPoolTiling
{
    int64_t windowH = 1, windowW = 1, outH = 1, outW = 1;
};

class Op
{
public:
    virtual ~Op() = default;

    /** The steps one run() takes beyond one pass over its inputs and outputs and one call, by kind
        (engine/file/Work.h): every further pass over memory (zero fills, padded planes, copies), every
        row or call whose fixed cost counts, and each kind of arithmetic. Computed at load; the
        model adds the passes and the call, weighs the steps for the kernel path and refuses a
        graph whose total exceeds LoadLimits::maxOpsPerRun. */
    virtual Work work() const noexcept { return {}; }

    /** Multiply-adds of the products and convolutions in one run() (FLOPs are twice this). */
    virtual double multiplyAdds() const noexcept { return 0.0; }

    /** Floats of temporary memory run() needs (shared between ops, not kept across calls). */
    virtual std::size_t scratchFloats() const noexcept { return 0; }

    /** True when output 0 is input 0's memory under another shape: the planner aliases it and
        run() is never called. */
    virtual bool aliasesInput() const noexcept { return false; }

    /** Told at load that nothing reads output i (not output 0): an op may then skip computing it,
        and must leave its buffer alone. Called before scratchFloats(). */
    virtual void outputUnused (std::size_t /*i*/) noexcept {}

    // ----- fusion at load (engine/Fusion.h): an op absorbs the one op that reads its output --------
    /** When this op is y = x * scale[c] + shift[c] over axis 1 with constant scale and shift
        (eval-mode BatchNorm), writes them and returns true. `constants` are the node's inputs'
        stored values (null where not stored). */
    virtual bool scaleShift (const std::vector<const float*>& /*constants*/, std::vector<float>& /*scale*/, std::vector<float>& /*shift*/) const
    {
        return false;
    }
    /** Folds a following per-channel scale and shift (over axis 1) into this op's weights; false
        if this op cannot (then nothing changed). Claims what it keeps from the load budget. */
    virtual bool foldScaleShift (const std::vector<float>& /*scale*/, const std::vector<float>& /*shift*/, LoadBudget&) { return false; }
    /** Applies a following ReLU to its output itself; false if it cannot. */
    virtual bool fuseRelu() noexcept { return false; }
    /** When this op is a max pooling of the MaxPoolTiling kind, says how. */
    virtual std::optional<MaxPoolTiling> maxPoolTiling() const noexcept { return std::nullopt; }
    /** Applies a following max pooling (after any ReLU it fused) itself: its output is then the
        pooled one, in the pooling output's layout; false if it cannot. */
    virtual bool fuseMaxPool (const MaxPoolTiling& /*pooling*/) noexcept { return false; }
    /** Adds a following add's other operand (a residual connection: as many elements as the
        output, in its order) to its output itself, reading it as input `input` (the fusion
        appends it to the node); false if it cannot. */
    virtual bool fuseResidual (std::size_t /*input*/) noexcept { return false; }

    // ----- layout at load (engine/Fusion.h): a permute read or written through strides -------------
    /** When this op is a permute: for each output axis, the input axis it takes. */
    virtual std::optional<std::vector<int>> permutation() const { return std::nullopt; }
    /** Reads input `input` through strides: element idx of that input (its declared shape) at
        offset + sum idx[a] * strides[a] of the buffer it is given (a permute's input, or the input
        of a slice before it: those are then not run). False if this op cannot (then nothing
        changed). */
    virtual bool readInputStrided (std::size_t /*input*/, const std::vector<int64_t>& /*strides*/, int64_t /*offset*/) noexcept { return false; }
    /** When this op's output is a view of its input (a slice): rewrites a reader's view of the
        output's buffer (element idx at offset + sum idx[a] * strides[a], idx < extents) into the
        same elements' view of the input's buffer, and returns true; false (nothing changed) when
        that view is not a strided one. */
    virtual bool viewOfInput (const std::vector<int64_t>& /*extents*/, std::vector<int64_t>& /*strides*/, int64_t& /*offset*/) const noexcept
    {
        return false;
    }
    /** Writes output 0 through strides: element idx at sum idx[a] * strides[a] of its buffer (the
        layout of the permute that reads it, which is then not run). False if this op cannot (then
        nothing changed). Claims what it keeps (weights in another layout) from the load budget. */
    virtual bool writeOutputStrided (const std::vector<int64_t>& /*strides*/, LoadBudget&) { return false; }

    virtual void run (const float* const* inputs, float* const* outputs, float* scratch) const noexcept = 0;
};

/** `value` as an axis of a rank-`rank` value (see OpArgs::axis; `scalarAsVector`: as
    OpArgs::axisOrScalar), or throws ModelError naming `what`, the value and the valid range. */
int checkedAxis (int64_t value, int rank, bool scalarAsVector, const std::string& what);

} // namespace sonotype::engine
