#include "engine/OpTable.h"

#include "engine/Op.h"
#include "engine/file/ModelError.h"
#include "engine/kernels/Kernels.h"

#include <array>

namespace sonotype::engine
{
namespace
{
    using namespace kernels;
    using K = OpKind;

    // Inputs: min, max, required. Outputs: min, max.
    constexpr std::array<OpSpec, kNumOpKinds> kOps { {
        { K::relu, "relu", 1, 1, 1, 1, 1, makeElementwise },
        { K::sigmoid, "sigmoid", 1, 1, 1, 1, 1, makeElementwise },
        { K::tanh, "tanh", 1, 1, 1, 1, 1, makeElementwise },
        { K::exp, "exp", 1, 1, 1, 1, 1, makeElementwise },
        { K::exp2, "exp2", 1, 1, 1, 1, 1, makeElementwise },
        { K::log, "log", 1, 1, 1, 1, 1, makeElementwise },
        { K::log2, "log2", 1, 1, 1, 1, 1, makeElementwise },
        { K::log10, "log10", 1, 1, 1, 1, 1, makeElementwise },
        { K::log1p, "log1p", 1, 1, 1, 1, 1, makeElementwise },
        { K::expm1, "expm1", 1, 1, 1, 1, 1, makeElementwise },
        { K::sqrt, "sqrt", 1, 1, 1, 1, 1, makeElementwise },
        { K::rsqrt, "rsqrt", 1, 1, 1, 1, 1, makeElementwise },
        { K::neg, "neg", 1, 1, 1, 1, 1, makeElementwise },
        { K::abs, "abs", 1, 1, 1, 1, 1, makeElementwise },
        { K::erf, "erf", 1, 1, 1, 1, 1, makeElementwise },
        { K::sin, "sin", 1, 1, 1, 1, 1, makeElementwise },
        { K::cos, "cos", 1, 1, 1, 1, 1, makeElementwise },
        { K::reciprocal, "reciprocal", 1, 1, 1, 1, 1, makeElementwise },
        { K::silu, "silu", 1, 1, 1, 1, 1, makeElementwise },
        { K::hardsigmoid, "hardsigmoid", 1, 1, 1, 1, 1, makeElementwise },
        { K::hardswish, "hardswish", 1, 1, 1, 1, 1, makeElementwise },
        { K::sign, "sign", 1, 1, 1, 1, 1, makeElementwise },
        { K::floor, "floor", 1, 1, 1, 1, 1, makeElementwise },
        { K::ceil, "ceil", 1, 1, 1, 1, 1, makeElementwise },
        { K::round, "round", 1, 1, 1, 1, 1, makeElementwise },
        { K::trunc, "trunc", 1, 1, 1, 1, 1, makeElementwise },
        { K::logicalNot, "logical_not", 1, 1, 1, 1, 1, makeElementwise },
        { K::mish, "mish", 1, 1, 1, 1, 1, makeElementwise },
        { K::softplus, "softplus", 1, 1, 1, 1, 1, makeElementwise },
        { K::gelu, "gelu", 1, 1, 1, 1, 1, makeElementwise },
        { K::clamp, "clamp", 1, 1, 1, 1, 1, makeElementwise },
        { K::leakyRelu, "leaky_relu", 1, 1, 1, 1, 1, makeElementwise },
        { K::elu, "elu", 1, 1, 1, 1, 1, makeElementwise },
        { K::add, "add", 2, 2, 2, 1, 1, makeElementwise },
        { K::sub, "sub", 2, 2, 2, 1, 1, makeElementwise },
        { K::mul, "mul", 2, 2, 2, 1, 1, makeElementwise },
        { K::div, "div", 2, 2, 2, 1, 1, makeElementwise },
        { K::pow, "pow", 2, 2, 2, 1, 1, makeElementwise },
        { K::maximum, "maximum", 2, 2, 2, 1, 1, makeElementwise },
        { K::minimum, "minimum", 2, 2, 2, 1, 1, makeElementwise },
        { K::eq, "eq", 2, 2, 2, 1, 1, makeElementwise },
        { K::ne, "ne", 2, 2, 2, 1, 1, makeElementwise },
        { K::lt, "lt", 2, 2, 2, 1, 1, makeElementwise },
        { K::le, "le", 2, 2, 2, 1, 1, makeElementwise },
        { K::gt, "gt", 2, 2, 2, 1, 1, makeElementwise },
        { K::ge, "ge", 2, 2, 2, 1, 1, makeElementwise },
        { K::logicalAnd, "logical_and", 2, 2, 2, 1, 1, makeElementwise },
        { K::logicalOr, "logical_or", 2, 2, 2, 1, 1, makeElementwise },
        { K::where, "where", 3, 3, 3, 1, 1, makeElementwise },
        { K::reshape, "reshape", 1, 1, 1, 1, 1, makeLayout },
        { K::permute, "permute", 1, 1, 1, 1, 1, makeLayout },
        { K::expand, "expand", 1, 1, 1, 1, 1, makeLayout },
        { K::slice, "slice", 1, 1, 1, 1, 1, makeLayout },
        { K::concat, "concat", 1, 4096, 1, 1, 1, makeLayout },
        { K::pad, "pad", 1, 1, 1, 1, 1, makeLayout },
        { K::indexSelect, "index_select", 1, 1, 1, 1, 1, makeLayout },
        { K::asStrided, "as_strided", 1, 1, 1, 1, 1, makeLayout },
        { K::asStridedScatter, "as_strided_scatter", 2, 2, 2, 1, 1, makeLayout },
        { K::gather, "gather", 2, 2, 2, 1, 1, makeLayout },
        { K::reduceSum, "reduce_sum", 1, 1, 1, 1, 1, makeReduction },
        { K::reduceMean, "reduce_mean", 1, 1, 1, 1, 1, makeReduction },
        { K::reduceMax, "reduce_max", 1, 1, 1, 1, 1, makeReduction },
        { K::reduceMin, "reduce_min", 1, 1, 1, 1, 1, makeReduction },
        { K::var, "var", 1, 1, 1, 1, 1, makeReduction },
        { K::argmax, "argmax", 1, 1, 1, 1, 1, makeReduction },
        { K::argmin, "argmin", 1, 1, 1, 1, 1, makeReduction },
        { K::softmax, "softmax", 1, 1, 1, 1, 1, makeReduction },
        { K::logSoftmax, "log_softmax", 1, 1, 1, 1, 1, makeReduction },
        { K::cumsum, "cumsum", 1, 1, 1, 1, 1, makeReduction },
        { K::topk, "topk", 1, 1, 1, 1, 2, makeReduction },
        { K::layerNorm, "layer_norm", 1, 3, 1, 1, 1, makeNormalization },
        { K::batchNorm, "batch_norm", 3, 5, 3, 1, 1, makeNormalization },
        { K::gemm, "gemm", 2, 3, 2, 1, 1, makeGemm },
        { K::conv, "conv", 2, 3, 2, 1, 1, makeConv },
        { K::maxPool, "max_pool", 1, 1, 1, 1, 1, makePooling },
        { K::avgPool, "avg_pool", 1, 1, 1, 1, 1, makePooling },
        { K::adaptiveAvgPool, "adaptive_avg_pool", 1, 1, 1, 1, 1, makePooling },
        { K::attention, "attention", 3, 4, 3, 1, 2, makeAttention },
        // x, h0, c0, then five per direction: its factory checks the counts, after mode and sizes.
        { K::rnn, "rnn", 0, kCountedByOp, 0, 0, kCountedByOp, makeRecurrent },
        { K::stft, "stft", 1, 2, 1, 1, 1, makeSpectral },
        { K::complexAbs, "complex_abs", 1, 1, 1, 1, 1, makeSpectral },
    } };

    constexpr bool inKindOrder()
    {
        for (std::size_t i = 0; i < kOps.size(); ++i)
            if (static_cast<std::size_t> (kOps[i].kind) != i || kOps[i].name.empty() || kOps[i].make == nullptr)
                return false;
        return true;
    }
    static_assert (inKindOrder(), "kOps lists every OpKind once, in enumerator order, each with a name and a factory");
} // namespace

std::span<const OpSpec> opTable() noexcept
{
    return kOps;
}

const OpSpec& opSpec (OpKind kind) noexcept
{
    return kOps[static_cast<std::size_t> (kind)];
}

const OpSpec* findOp (std::string_view name) noexcept
{
    for (const auto& spec : kOps)
        if (spec.name == name)
            return &spec;
    return nullptr;
}

std::unique_ptr<Op> createOp (const OpArgs& args)
{
    const auto& spec = opSpec (args.kind());
    if (spec.maxInputs != kCountedByOp)
        args.expectInputs (spec.minInputs, spec.maxInputs, spec.requiredInputs);
    if (spec.maxOutputs != kCountedByOp)
        args.expectOutputs (spec.minOutputs, spec.maxOutputs);
    return spec.make (args);
}

} // namespace sonotype::engine
