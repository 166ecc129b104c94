// The table of engine ops: name -> factory.  docs/ENGINE.md documents each op's inputs and attributes.
#include "engine/kernels/Kernels.h"
#include "engine/ModelError.h"

#include <algorithm>
#include <map>

namespace sonotype::engine
{
namespace
{
    using Factory = std::unique_ptr<Op> (*) (const OpArgs&);

    const std::map<std::string, Factory>& table()
    {
        using namespace kernels;
        static const std::map<std::string, Factory> ops = [] {
            std::map<std::string, Factory> t;
            for (const char* name : { "relu", "sigmoid", "tanh", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "neg", "abs", "erf",
                                      "sin", "cos", "reciprocal", "silu", "hardsigmoid", "hardswish", "sign", "floor", "ceil", "round", "trunc",
                                      "logical_not", "mish", "softplus", "gelu", "clamp", "leaky_relu", "elu" })
                t[name] = makeUnary;
            for (const char* name : { "add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
                                      "logical_or" })
                t[name] = makeBinary;
            t["where"] = makeWhere;
            t["reshape"] = makeReshape;
            t["permute"] = makePermute;
            t["expand"] = makeExpand;
            t["slice"] = makeSlice;
            t["concat"] = makeConcat;
            t["pad"] = makePad;
            t["index_select"] = makeIndexSelect;
            t["as_strided"] = makeAsStrided;
            t["as_strided_scatter"] = makeAsStridedScatter;
            t["gather"] = makeGather;
            for (const char* name : { "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "var" })
                t[name] = makeReduce;
            t["argmax"] = makeArgReduce;
            t["argmin"] = makeArgReduce;
            t["softmax"] = makeSoftmax;
            t["log_softmax"] = makeSoftmax;
            t["cumsum"] = makeCumsum;
            t["topk"] = makeTopK;
            t["layer_norm"] = makeLayerNorm;
            t["batch_norm"] = makeBatchNorm;
            t["gemm"] = makeGemm;
            t["conv"] = makeConv;
            t["max_pool"] = makePool;
            t["avg_pool"] = makePool;
            t["adaptive_avg_pool"] = makeAdaptiveAvgPool;
            t["attention"] = makeAttention;
            t["rnn"] = makeRecurrent;
            t["stft"] = makeStft;
            t["complex_abs"] = makeComplexAbs;
            return t;
        }();
        return ops;
    }
} // namespace

std::unique_ptr<Op> createOp (const OpArgs& args)
{
    const auto& ops = table();
    const auto it = ops.find (args.op());
    if (it == ops.end())
        throw ModelError ("unknown op " + quote (args.op()) + " (this engine runs: see `sonotype inspect --ops`)");
    return it->second (args);
}

std::vector<std::string> supportedOps()
{
    std::vector<std::string> names;
    for (const auto& entry : table())
        names.push_back (entry.first);
    return names;
}

} // namespace sonotype::engine
