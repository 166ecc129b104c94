// The factories of the engine's ops, one per kernel file, each a switch over the OpKinds that file
// implements (the op table in engine/OpTable.cpp names which); the arguments' input and output
// counts are checked before a factory is called.
#pragma once

#include "engine/Op.h"

namespace sonotype::engine::kernels
{

std::unique_ptr<Op> makeElementwise (const OpArgs&);   // Elementwise.cpp: unary, binary, where
std::unique_ptr<Op> makeLayout (const OpArgs&);        // Layout.cpp: views, copies, gathers
std::unique_ptr<Op> makeReduction (const OpArgs&);     // Reduction.cpp: reductions, softmax, cumsum, topk
std::unique_ptr<Op> makeNormalization (const OpArgs&); // Normalization.cpp: layer_norm, batch_norm
std::unique_ptr<Op> makeGemm (const OpArgs&);          // MatMul.cpp
std::unique_ptr<Op> makeConv (const OpArgs&);          // Convolution.cpp
std::unique_ptr<Op> makePooling (const OpArgs&);       // Pooling.cpp: max_pool, avg_pool, adaptive_avg_pool
std::unique_ptr<Op> makeAttention (const OpArgs&);     // Attention.cpp
std::unique_ptr<Op> makeRecurrent (const OpArgs&);     // Recurrent.cpp
std::unique_ptr<Op> makeSpectral (const OpArgs&);      // Spectral.cpp: stft, complex_abs

/** An op whose output is its input's memory: what a node becomes once fused into its producer. */
std::unique_ptr<Op> makeAlias();

} // namespace sonotype::engine::kernels
