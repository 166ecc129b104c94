// The conv's Winograd strategy (Convolution.h): 3x3, stride 1, no dilation, at least
// Conv::kWinogradMinChannels channels each way, on a path with the transforms. Winograd F(2x2, 3x3)
// or F(4x2, 3x3): the plan (tile height, the split input, chunks of tiles sized for L2), the
// weights transformed in double and packed at load, and the run: the input split and transformed,
// one product per transformed element, the output transform with the bias, ReLU and a fused max
// pooling. The transforms themselves are vector/WinogradKernels.h.
#include "engine/kernels/Convolution.h"

#include "engine/file/AlignedBuffer.h"
#include "engine/file/CheckedArithmetic.h"
#include "engine/file/LoadBudget.h"
#include "engine/file/ModelError.h"

#include <algorithm>
#include <cmath>

namespace sonotype::engine::kernels
{

/** Winograd F(2x2, 3x3) or F(4x2, 3x3) (vector/WinogradKernels.h has the transforms). Each
    block of 2 or 4 output rows by 2 columns (a tile) comes from the 4x4 or 6x4 inputs around
    it: B^T d B per input channel, then for each of the 16 or 24 elements a product of the
    transformed weights [cout, cin] by the transformed inputs [cin, tiles], then A^T m A per
    output channel: per output and input channel 4 or 3 multiplies where the direct
    convolution does 9. 4-row tiles where they take fewer products (the rows rounded up to
    the tile count): the built-in model's 16 -> 32 convolution took 0.183 ms with 2-row
    tiles, 0.145 ms with 4-row ones (AMD EPYC, AVX2 path). Their transform's coefficients
    (up to 8) round a few times more than the 2-row tiles' 0 and +-1 (2e-6 against 4e-7 on
    outputs of about 3, measured), far inside the parity bound. Tiles of 4 x 4 (F(4, 3)
    both ways) would take a fifth of the products away but round about five times more
    again (1.1e-5 on outputs of about 2.5, measured: past the parity bound). The padded
    input is split once into even and odd columns, so that the transforms read whole
    registers of consecutive tiles; the tiles go through in chunks whose transformed inputs
    and products stay in a core's L2 cache. */
void Conv::planWinograd()
{
    const char* what = "the conv's Winograd buffers";
    const int64_t cinG = inChannels_ / groups_, coutG = outChannels_ / groups_;
    const auto tileRowsFor = [this] (int64_t rows) { return (outH_ + rows - 1) / rows; };
    tileRows_ = 24 * tileRowsFor (4) < 16 * tileRowsFor (2) ? 4 : 2;
    elements_ = 4 * (tileRows_ + 2);
    tilesH_ = tileRowsFor (tileRows_);
    tilesW_ = (outW_ + 1) / 2;
    splitRow_ = tilesW_ + 1; // even (or odd) columns of a padded row the tiles read
    // The padded rows the tiles read, split, in tileRows_ planes per channel (row py in
    // plane py % tileRows_), each one row after another. Tile t of the tile rows laid end to
    // end (each row's extra tile, never written out, included) reads elements t and t + 1
    // of its rows tileRows_ * ty + r: one run of the input transform covers any span of tiles.
    splitLength_ = checkedAdd (checkedMul (tilesH_ + 1, splitRow_, what), 1, what);
    const int64_t tiles = tilesH_ * splitRow_;
    const int64_t split = checkedMul (cinG, checkedMul (splitLength_, 2 * tileRows_, what), what);
    if (split > kMaxElements)
        throw ModelError ("the conv's Winograd input would hold more than 2^40 floats");
    const int64_t columns = plan_.kernels().tileColumns;
    const int64_t fit = (int64_t { 1 } << 16) / (elements_ * (cinG + coutG)) / columns * columns;
    winogradChunk_ = std::min (std::max (fit, columns), (tiles + columns - 1) / columns * columns);
    splitFloats_ = AlignedBuffer::roundUp (static_cast<std::size_t> (split));
    // A tile's elements lie a matrix apart; one cache line more keeps them off one cache
    // set (4 KiB apart, 16 addresses would contend for a set's 8 ways).
    transformedStride_ = checkedAdd (checkedMul (cinG, winogradChunk_, what), 16, what);
    productStride_ = checkedAdd (checkedMul (coutG, winogradChunk_, what), 16, what);
    transformedFloats_ = AlignedBuffer::roundUp (static_cast<std::size_t> (checkedMul (elements_, transformedStride_, what)));
    productFloats_ = AlignedBuffer::roundUp (static_cast<std::size_t> (checkedMul (elements_, productStride_, what)));
    channelOffsets_.clear();
    for (int64_t c = 0; c < cinG; ++c)
        channelOffsets_.push_back (c * winogradChunk_);
    tapOffsets_.clear();
    tapOffsets_.shrink_to_fit();
    plan_ = GemmPlan (coutG, winogradChunk_, cinG);
    strategy_ = Strategy::winograd;
}

/** The weights transformed, 16 or 24 [cout, cin] matrices per group, each packed for the product.
    U = G_rows g G^T per (output, input) channel, G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
    (F(2, 3), along the rows) and G_rows that or, for 4-row tiles, F(4, 3)'s [1/4 0 0;
    -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1], in double and
    rounded once; element xi of every pair makes one [cout, cin] matrix. */
void Conv::packWinogradWeights (LoadBudget& budget)
{
    const int64_t cinG = inChannels_ / groups_, coutG = outChannels_ / groups_;
    budget.claim (static_cast<std::uint64_t> (elements_ * coutG * cinG), sizeof (float), "a convolution's Winograd weights");
    std::vector<float> transformed (static_cast<std::size_t> (elements_ * coutG * cinG));
    static constexpr double kG[4][3] = { { 1.0, 0.0, 0.0 }, { 0.5, 0.5, 0.5 }, { 0.5, -0.5, 0.5 }, { 0.0, 0.0, 1.0 } };
    static constexpr double kG4[6][3] = { { 1.0 / 4.0, 0.0, 0.0 }, { -1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0 }, { -1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0 }, { 1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0 }, { 1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0 }, { 0.0, 0.0, 1.0 } };
    const int inputRows = static_cast<int> (tileRows_) + 2;
    const auto gRows = [&] (int i, int r) { return tileRows_ == 4 ? kG4[i][r] : kG[i][r]; };
    for (int64_t g = 0; g < groups_; ++g)
    {
        for (int64_t co = 0; co < coutG; ++co)
            for (int64_t ci = 0; ci < cinG; ++ci)
            {
                const float* w = weightData_ + ((g * coutG + co) * cinG + ci) * 9;
                double gw[6][3] = {}; // G_rows g
                for (int i = 0; i < inputRows; ++i)
                    for (int c = 0; c < 3; ++c)
                        for (int r = 0; r < 3; ++r)
                            gw[i][c] += gRows (i, r) * static_cast<double> (w[r * 3 + c]);
                for (int i = 0; i < inputRows; ++i)
                    for (int k = 0; k < 4; ++k)
                    {
                        double u = 0.0;
                        for (int c = 0; c < 3; ++c)
                            u += gw[i][c] * kG[k][c];
                        transformed[static_cast<std::size_t> (((4 * i + k) * coutG + co) * cinG + ci)] = static_cast<float> (u);
                    }
            }
        for (int64_t xi = 0; xi < elements_; ++xi)
            packedWeights_.push_back (PackedOperand::left (plan_, coutG, cinG, { transformed.data() + xi * coutG * cinG, cinG, false, nullptr }, budget));
    }
}

/** One group of one batch item by Winograd (see planWinograd). */
void Conv::runWinograd (const float* x, float* y, int64_t g, const float* bias, float* scratch) const noexcept
{
    const auto& k = plan_.kernels();
    const int64_t cinG = inChannels_ / groups_, coutG = outChannels_ / groups_;
    float* split = scratch;
    float* transformed = split + splitFloats_;
    float* products = transformed + transformedFloats_;
    // Padded row py, split: its even columns at split + c * channelStride + (py % tileRows_)
    // * 2 * length + (py / tileRows_) * splitRow_, its odd ones a length further.
    const int64_t length = splitLength_, channelStride = 2 * tileRows_ * length;
    k.winogradSplit (x, cinG, inH_, inW_, padH_, padW_, static_cast<int> (tileRows_), tileRows_ * (tilesH_ + 1), splitRow_, split, length, channelStride);
    for (int64_t c = 0; c < cinG; ++c)
    {
        float* plane = split + c * channelStride;
        for (int64_t q = 0; q < tileRows_; ++q) // read by the last row's extra tile
            plane[q * 2 * length + (tilesH_ + 1) * splitRow_] = plane[q * 2 * length + length + (tilesH_ + 1) * splitRow_] = 0.0f;
    }
    const int64_t tiles = tilesH_ * splitRow_;
    const int64_t xiIn = transformedStride_, xiOut = productStride_;
    const std::size_t firstWeights = static_cast<std::size_t> (g * elements_);
    const int rowsPerTile = static_cast<int> (tileRows_);
    for (int64_t j0 = 0; j0 < tiles; j0 += winogradChunk_)
    {
        const int64_t count = std::min (winogradChunk_, tiles - j0);
        k.winogradInput (rowsPerTile, split + j0, cinG, channelStride, length, splitRow_, count, transformed, xiIn, winogradChunk_);
        for (int64_t xi = 0; xi < elements_; ++xi)
            k.shiftedGemm (coutG, count, cinG, packedWeights_[firstWeights + static_cast<std::size_t> (xi)].data(), transformed + xi * xiIn,
                           channelOffsets_.data(), nullptr, products + xi * xiOut, winogradChunk_);
        for (int64_t j = j0; j < j0 + count;)
        {
            const int64_t ty = j / splitRow_, tx = j % splitRow_, run = std::min (tilesW_ - tx, j0 + count - j);
            if (run <= 0) // a row's extra tile
            {
                ++j;
                continue;
            }
            // The outputs of these tiles that count: a pooling in floor mode drops an odd last row or column.
            const int64_t oy = tileRows_ * ty, ox = 2 * tx;
            const int64_t rows = std::min ({ tileRows_, outH_ - oy, pooling_.windowH * pooling_.outH - oy });
            const int64_t width = std::min ({ 2 * run, outW_ - ox, pooling_.windowW * pooling_.outW - ox });
            const int64_t toY = oy / pooling_.windowH, toX = ox / pooling_.windowW;
            if (rows > 0)
                k.winogradOutput (rowsPerTile, products + (j - j0), xiOut, coutG, winogradChunk_, run, bias, relu_, y + toY * pooling_.outW + toX,
                                  pooling_.outH * pooling_.outW, pooling_.outW, rows, width, static_cast<int> (pooling_.windowH),
                                  static_cast<int> (pooling_.windowW));
            j += run;
        }
    }
}

/** What runWinograd costs per batch and group. */
Work Conv::workWinograd (int64_t spatialOut) const noexcept
{
    const int64_t coutG = outChannels_ / groups_;
    const auto& k = plan_.kernels();
    const auto outputs = static_cast<double> (coutG) * static_cast<double> (spatialOut);
    Work work;
    // The padded rows split (read and written), each tile's elements (16 or 24) read
    // and written transformed per input channel, as many products per tile and output
    // channel written and read back, the outputs written; a product per element and
    // chunk. Tiles count each tile row's extra one.
    const auto cinG = static_cast<double> (inChannels_ / groups_);
    const auto tiles = static_cast<double> (tilesH_ * splitRow_);
    const double chunks = std::ceil (tiles / static_cast<double> (winogradChunk_));
    const double runs = chunks + static_cast<double> (tilesH_);
    const auto elements = static_cast<double> (elements_);
    work.streamed = 2.0 * cinG * 2.0 * static_cast<double> (tileRows_) * static_cast<double> (splitLength_) + 2.0 * elements * cinG * tiles
                    + 2.0 * elements * static_cast<double> (coutG) * tiles + outputs;
    work.multiplyAdds = elements * paddedTo (coutG, k.tileRows) * chunks * paddedTo (winogradChunk_, k.tileColumns) * cinG;
    work.calls = elements * chunks + cinG * static_cast<double> (tileRows_ * (tilesH_ + 1)) + chunks * cinG + runs * static_cast<double> (coutG);
    return work;
}

} // namespace sonotype::engine::kernels
