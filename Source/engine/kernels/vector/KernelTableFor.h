// The table of one instruction set's kernels, built from the templates of this folder for the
// registers the including file is compiled for (Kernels*.cpp).
#pragma once

#include "engine/kernels/vector/AttentionKernel.h"
#include "engine/kernels/vector/PackedGemm.h"
#include "engine/kernels/vector/RecurrentKernels.h"
#include "engine/kernels/vector/RowKernels.h"
#include "engine/kernels/vector/WinogradKernels.h"

namespace sonotype::engine::kernels
{
namespace
{
    /** Rows: the micro-kernel's rows of C (with 2 registers of columns, 2 * Rows accumulators). */
    template <int Rows>
    KernelTable vectorKernelTable() noexcept
    {
        using Gemm = PackedGemm<Rows>;
        KernelTable table {};
        table.gemmScratchFloats = &Gemm::scratchFloats;
        table.gemm = &Gemm::gemm;
        table.gemmColumnBias = &Gemm::gemmColumnBias;
        table.packedAFloats = &Gemm::packedAFloats;
        table.packedBFloats = &Gemm::packedBFloats;
        table.packA = &Gemm::packA;
        table.packB = &Gemm::packB;
        table.packedColumns = Gemm::kColumns;
        table.tileRows = 1; // the last rows of C run on a kernel of as many rows (PackedGemm::forRows)
        table.tileColumns = Gemm::kColumns;
        table.shiftedGemm = &Gemm::shiftedGemm;
        table.shiftedRowPairs = &Gemm::shiftedRowPairs;
        table.winogradSplit = &winogradSplitImpl;
        table.winogradInput = &winogradInputImpl;
        table.winogradOutput = &winogradOutputImpl;
        table.softmaxRows = &softmaxRowsImpl;
        table.layerNormRows = &layerNormRowsImpl;
        table.attentionScratchFloats = &attentionScratchFloatsImpl;
        table.attention = &attentionImpl;
        table.maxInto = &maxIntoImpl;
        table.addInto = &addIntoImpl;
        table.copy = &copyImpl;
        table.geluErf = &geluErfImpl;
        table.geluTanh = &geluTanhImpl;
        table.exp = &expImpl;
        table.log = &logImpl;
        table.log10 = &log10Impl;
        table.sigmoid = &sigmoidImpl;
        table.silu = &siluImpl;
        table.tanh = &tanhImpl;
        table.lstmCell = &lstmCellImpl;
        table.gruCell = &gruCellImpl;
        table.packedRowTimes = &packedRowTimesImpl<Rows>;
        table.rowTimesRows = &rowTimesRowsImpl;
        return table;
    }
} // namespace
} // namespace sonotype::engine::kernels
