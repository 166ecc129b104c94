// The conv strategies that hand the product its columns (Convolution.h): direct (a 1x1 kernel
// without stride or padding, whose input is the columns as it is), im2col (the columns written out
// whole: a path that does not pack, or weights the graph computes) and packedColumns (the columns
// written straight into the product's packed layout, a chunk of output positions at a time). They
// share one output pass: the bias filled in, the product accumulated onto it, the ReLU after.
#include "engine/kernels/Convolution.h"

#include <algorithm>
#include <cmath>

namespace sonotype::engine::kernels
{

/** One group of one batch item by a product over columns (direct, im2col or packedColumns). */
void Conv::runColumns (const float* x, float* y, const GemmOperand& weights, const float* bias, float* scratch) const noexcept
{
    const int64_t cinG = inChannels_ / groups_, coutG = outChannels_ / groups_;
    const int64_t patch = cinG * kH_ * kW_, spatialOut = outH_ * outW_;
    float* col = scratch;
    float* gemmScratch = scratch + colFloats_ + paddedFloats_ + chunkOutFloats_;
    for (int64_t c = 0; c < coutG; ++c)
        std::fill (y + c * spatialOut, y + (c + 1) * spatialOut, bias != nullptr ? bias[c] : 0.0f);
    switch (strategy_)
    {
        case Strategy::packedColumns:
            for (int64_t j0 = 0; j0 < spatialOut; j0 += chunk_)
            {
                const int64_t count = std::min (chunk_, spatialOut - j0);
                packColumns (x, cinG, j0, count, col);
                plan_.kernels().gemm (coutG, count, patch, weights, { col, 0, false, col }, y + j0, spatialOut, 1.0f, gemmScratch);
            }
            break;
        case Strategy::im2col:
            im2col (x, cinG, col);
            plan_.run (weights, { col, spatialOut, false, nullptr }, y, spatialOut, 1.0f, gemmScratch);
            break;
        case Strategy::direct:
            plan_.run (weights, { x, spatialOut, false, nullptr }, y, spatialOut, 1.0f, gemmScratch);
            break;
        case Strategy::shiftedPlane:
        case Strategy::winograd:
        case Strategy::positionRows: break;
    }
    if (relu_)
        plan_.kernels().copy (y, y, coutG * spatialOut, true);
}

/** The columns of output positions [j0, j0 + count) in the packed-B layout: panels of
    panelColumns_ positions, each patch rows (channel, ky, kx) of panelColumns_ floats. */
void Conv::packColumns (const float* x, int64_t channels, int64_t j0, int64_t count, float* out) const noexcept
{
    const int64_t nr = panelColumns_, patch = channels * kH_ * kW_;
    for (int64_t panel = 0; panel < count; panel += nr)
    {
        float* dst = out + (panel / nr) * patch * nr;
        const int64_t columns = std::min (nr, count - panel);
        const int64_t oyStart = (j0 + panel) / outW_, oxStart = (j0 + panel) % outW_;
        int64_t p = 0;
        for (int64_t c = 0; c < channels; ++c)
            for (int64_t ky = 0; ky < kH_; ++ky)
                for (int64_t kx = 0; kx < kW_; ++kx, ++p)
                {
                    float* d = dst + p * nr;
                    const float* plane = x + c * inH_ * inW_;
                    int64_t done = 0, oy = oyStart, ox = oxStart;
                    while (done < columns)
                    {
                        // One run of output positions along a row: their inputs lie on one input row.
                        const int64_t run = std::min (columns - done, outW_ - ox);
                        const int64_t iy = oy * strideH_ - padH_ + ky * dilH_;
                        float* segment = d + done;
                        if (iy < 0 || iy >= inH_)
                            std::fill (segment, segment + run, 0.0f);
                        else
                        {
                            const float* src = plane + iy * inW_;
                            const int64_t base = ox * strideW_ - padW_ + kx * dilW_; // ix of the run's first position
                            // Positions t with 0 <= base + t * stride < inW read the input; the rest are padding.
                            const int64_t first = base >= 0 ? 0 : std::min (run, (-base + strideW_ - 1) / strideW_);
                            const int64_t end = base >= inW_ ? first : std::max (first, std::min (run, (inW_ - 1 - base) / strideW_ + 1));
                            // Plain loops: a run is at most one panel wide, too short for memcpy calls.
                            for (int64_t t = 0; t < first; ++t)
                                segment[t] = 0.0f;
                            const float* from = src + base;
                            if (strideW_ == 1)
                                for (int64_t t = first; t < end; ++t)
                                    segment[t] = from[t];
                            else
                                for (int64_t t = first; t < end; ++t)
                                    segment[t] = from[t * strideW_];
                            for (int64_t t = end; t < run; ++t)
                                segment[t] = 0.0f;
                        }
                        done += run;
                        ox = 0;
                        ++oy;
                    }
                    std::fill (d + columns, d + nr, 0.0f);
                }
    }
}

void Conv::im2col (const float* x, int64_t channels, float* col) const noexcept
{
    for (int64_t c = 0; c < channels; ++c)
        for (int64_t ky = 0; ky < kH_; ++ky)
            for (int64_t kx = 0; kx < kW_; ++kx)
            {
                float* row = col + ((c * kH_ + ky) * kW_ + kx) * outH_ * outW_;
                for (int64_t oy = 0; oy < outH_; ++oy)
                {
                    const int64_t iy = oy * strideH_ - padH_ + ky * dilH_;
                    for (int64_t ox = 0; ox < outW_; ++ox)
                    {
                        const int64_t ix = ox * strideW_ - padW_ + kx * dilW_;
                        row[oy * outW_ + ox] = (iy >= 0 && iy < inH_ && ix >= 0 && ix < inW_) ? x[(c * inH_ + iy) * inW_ + ix] : 0.0f;
                    }
                }
            }
}

/** What runColumns costs per batch and group: the bias fill, the columns formed (packed, written
    out, or none), the product. */
Work Conv::workColumns (int64_t patch, int64_t spatialOut) const noexcept
{
    const int64_t coutG = outChannels_ / groups_;
    const auto& k = plan_.kernels();
    const auto outputs = static_cast<double> (coutG) * static_cast<double> (spatialOut);
    Work work;
    work.streamed = outputs; // the bias fill
    if (strategy_ == Strategy::packedColumns)
    {
        // Columns packed straight into the product's layout, a run of positions per tap and row.
        const double columns = paddedTo (spatialOut, panelColumns_) * static_cast<double> (patch);
        work.scalar = columns;
        work.calls = static_cast<double> (patch) * (paddedTo (spatialOut, panelColumns_) / static_cast<double> (panelColumns_))
                     * (1.0 + static_cast<double> (panelColumns_) / static_cast<double> (outW_));
        work.multiplyAdds = paddedTo (coutG, k.tileRows) * paddedTo (spatialOut, panelColumns_) * static_cast<double> (patch);
        work.calls += std::ceil (static_cast<double> (spatialOut) / static_cast<double> (chunk_));
        return work;
    }
    if (strategy_ == Strategy::im2col)
    {
        work.scalar = 3.0 * static_cast<double> (patch) * static_cast<double> (spatialOut); // im2col: index, bounds check, copy
        work.calls = static_cast<double> (patch) * static_cast<double> (outH_);
    }
    work += plan_.work (! packedWeights_.empty(), false);
    return work;
}

} // namespace sonotype::engine::kernels
