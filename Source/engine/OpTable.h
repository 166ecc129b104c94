// The engine's ops, in one table: for each op its kind, its name in model files, how many inputs
// and outputs a node of it takes, and the factory that builds it. Everything else that names an op
// (fusion, what a model's output holds, `sonotype inspect --ops`, the exporter's tests, the list in
// docs/ENGINE.md) reads this table or switches on OpKind.
// Adding an op: one enumerator here, one row in OpTable.cpp (in enumerator order: a static_assert
// checks it), one case in its kernel file's factory, one row in docs/ENGINE.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace sonotype::engine
{

class Op;
class OpArgs;

enum class OpKind : std::uint8_t
{
    // Elementwise, one input (kernels/Elementwise.cpp).
    relu,
    sigmoid,
    tanh,
    exp,
    exp2,
    log,
    log2,
    log10,
    log1p,
    expm1,
    sqrt,
    rsqrt,
    neg,
    abs,
    erf,
    sin,
    cos,
    reciprocal,
    silu,
    hardsigmoid,
    hardswish,
    sign,
    floor,
    ceil,
    round,
    trunc,
    logicalNot,
    mish,
    softplus,
    gelu,
    clamp,
    leakyRelu,
    elu,
    // Elementwise, two or three inputs, broadcast.
    add,
    sub,
    mul,
    div,
    pow,
    maximum,
    minimum,
    eq,
    ne,
    lt,
    le,
    gt,
    ge,
    logicalAnd,
    logicalOr,
    where,
    // Layout: views, copies and gathers (kernels/Layout.cpp).
    reshape,
    permute,
    expand,
    slice,
    concat,
    pad,
    indexSelect,
    asStrided,
    asStridedScatter,
    gather,
    // Reductions along axes (kernels/Reduction.cpp).
    reduceSum,
    reduceMean,
    reduceMax,
    reduceMin,
    var,
    argmax,
    argmin,
    softmax,
    logSoftmax,
    cumsum,
    topk,
    // Normalisation, products, convolution, pooling, attention, recurrence, spectra.
    layerNorm,
    batchNorm,
    gemm,
    conv,
    maxPool,
    avgPool,
    adaptiveAvgPool,
    attention,
    rnn,
    stft,
    complexAbs,
};
constexpr std::size_t kNumOpKinds = static_cast<std::size_t> (OpKind::complexAbs) + 1;

/** In an OpSpec's maxInputs and maxOutputs: the op checks its counts itself, which depend on its
    attributes (rnn: five inputs per direction), before or after its attributes as it always has. */
constexpr std::uint16_t kCountedByOp = 0xffff;

/** Builds an op from arguments whose input and output counts the table has checked. */
using OpFactory = std::unique_ptr<Op> (*) (const OpArgs&);

struct OpSpec
{
    OpKind kind;
    std::string_view name;                              // as model files, `inspect --ops` and docs/ENGINE.md spell it
    std::uint16_t minInputs, maxInputs, requiredInputs; // null (absent optional) inputs count; the first requiredInputs must be present
    std::uint16_t minOutputs, maxOutputs;
    OpFactory make;
};

/** Every op, in OpKind order. */
std::span<const OpSpec> opTable() noexcept;
const OpSpec& opSpec (OpKind kind) noexcept;
inline std::string_view opName (OpKind kind) noexcept { return opSpec (kind).name; }
/** The op called `name` in a model file, or nullptr. */
const OpSpec* findOp (std::string_view name) noexcept;

/** Builds the node `args` describes: checks its input and output counts against the table, then
    calls the op's factory; throws ModelError for bad counts, attributes or shapes. */
std::unique_ptr<Op> createOp (const OpArgs& args);

} // namespace sonotype::engine
