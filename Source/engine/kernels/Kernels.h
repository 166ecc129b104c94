// Factories of the engine's ops, grouped by kernel file; the op table is in OpRegistry.cpp.
#pragma once

#include "engine/Op.h"

namespace sonotype::engine::kernels
{

// Elementwise.cpp
std::unique_ptr<Op> makeUnary (const OpArgs&);
std::unique_ptr<Op> makeBinary (const OpArgs&);
std::unique_ptr<Op> makeWhere (const OpArgs&);

// Layout.cpp
std::unique_ptr<Op> makeReshape (const OpArgs&);
/** An op whose output is its input's memory: what a node becomes once fused into its producer. */
std::unique_ptr<Op> makeAlias();
std::unique_ptr<Op> makePermute (const OpArgs&);
std::unique_ptr<Op> makeExpand (const OpArgs&);
std::unique_ptr<Op> makeSlice (const OpArgs&);
std::unique_ptr<Op> makeConcat (const OpArgs&);
std::unique_ptr<Op> makePad (const OpArgs&);
std::unique_ptr<Op> makeIndexSelect (const OpArgs&);
std::unique_ptr<Op> makeAsStrided (const OpArgs&);
std::unique_ptr<Op> makeAsStridedScatter (const OpArgs&);
std::unique_ptr<Op> makeGather (const OpArgs&);

// Reduction.cpp
std::unique_ptr<Op> makeReduce (const OpArgs&);
std::unique_ptr<Op> makeArgReduce (const OpArgs&);
std::unique_ptr<Op> makeSoftmax (const OpArgs&);
std::unique_ptr<Op> makeCumsum (const OpArgs&);
std::unique_ptr<Op> makeTopK (const OpArgs&);

// Normalization.cpp
std::unique_ptr<Op> makeLayerNorm (const OpArgs&);
std::unique_ptr<Op> makeBatchNorm (const OpArgs&);

// MatMul.cpp, Convolution.cpp, Pooling.cpp, Attention.cpp
std::unique_ptr<Op> makeGemm (const OpArgs&);
std::unique_ptr<Op> makeConv (const OpArgs&);
std::unique_ptr<Op> makePool (const OpArgs&);
std::unique_ptr<Op> makeAdaptiveAvgPool (const OpArgs&);
std::unique_ptr<Op> makeAttention (const OpArgs&);

// Recurrent.cpp
std::unique_ptr<Op> makeRecurrent (const OpArgs&);

// Spectral.cpp
std::unique_ptr<Op> makeStft (const OpArgs&);
std::unique_ptr<Op> makeComplexAbs (const OpArgs&);

} // namespace sonotype::engine::kernels
