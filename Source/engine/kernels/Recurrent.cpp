// rnn: one layer of a recurrent network (PyTorch's nn.RNN with tanh or ReLU, nn.GRU, nn.LSTM with
// an optional projection), both directions in one node.
//   x [T, B, I] (or [B, T, I] with batch_first), optional h0 [D, B, Hout], c0 [D, B, H] (LSTM),
//   per direction d: w_ih [G, I], w_hh [G, Hout], b_ih [G]?, b_hh [G]?, w_hr [P, H] (LSTM with
//   proj_size P > 0), G = gates * H -> y [T, B, D * Hout] (x's layout), h_n [D, B, Hout]?, c_n [D, B, H]?
// At load the weights are packed for the active path's product and the biases merged. A run is one
// product for the input projection of every time step and both directions, then per step one
// product for the recurrent term and one fused pass over the gates (KernelTable::lstmCell/gruCell).
#include "engine/file/AlignedBuffer.h"
#include "engine/file/CheckedArithmetic.h"
#include "engine/file/ModelError.h"
#include "engine/kernels/Gemm.h"
#include "engine/kernels/Kernels.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace sonotype::engine::kernels
{
namespace
{
    enum class Mode
    {
        rnnTanh,
        rnnRelu,
        gru,
        lstm
    };

    constexpr std::size_t kFirstWeight = 3;  // inputs: x, h0, c0, then per direction:
    constexpr std::size_t kPerDirection = 5; // w_ih, w_hh, b_ih, b_hh, w_hr
    constexpr int kMaxDirections = 2;

    Mode parseMode (const std::string& name)
    {
        if (name == "rnn_tanh")
            return Mode::rnnTanh;
        if (name == "rnn_relu")
            return Mode::rnnRelu;
        if (name == "gru")
            return Mode::gru;
        if (name == "lstm")
            return Mode::lstm;
        throw ModelError ("rnn mode must be rnn_tanh, rnn_relu, gru or lstm, not " + quote (name));
    }

    int gatesOf (Mode mode) noexcept { return mode == Mode::lstm ? 4 : mode == Mode::gru ? 3
                                                                                         : 1; }

    /** Weight `slot` of the per-direction inputs: present, of exactly the expected shape, and
        stored in the file (it is packed at load). */
    const float* storedWeight (const OpArgs& args, std::size_t slot, const Shape& expected, const char* name)
    {
        const auto index = kFirstWeight + slot;
        if (! args.hasInput (index))
            throw ModelError (std::string ("rnn ") + name + " is missing");
        if (args.input (index) != expected)
            throw ModelError (std::string ("rnn ") + name + " must be " + expected.toString() + ", got " + args.input (index).toString());
        if (args.constant (index) == nullptr)
            throw ModelError (std::string ("rnn ") + name + " must be stored in the model file");
        return args.constant (index);
    }

    /** An optional bias of `slot`, [gateSize] where present (else null). */
    const float* storedBias (const OpArgs& args, std::size_t slot, int64_t gateSize, const char* name)
    {
        return args.hasInput (kFirstWeight + slot) ? storedWeight (args, slot, Shape { gateSize }, name) : nullptr;
    }

    class Recurrent final : public Op
    {
    public:
        explicit Recurrent (const OpArgs& args)
        {
            readAttributes (args);
            checkShapes (args);
            packWeights (args);
            planScratch();
            estimateWork();
        }

        Work work() const noexcept override { return work_; }
        double multiplyAdds() const noexcept override { return multiplyAdds_; }

        void outputUnused (std::size_t i) noexcept override
        {
            if (i == 1)
                withHidden_ = false;
            if (i == 2)
                withCell_ = false;
        }

        std::size_t scratchFloats() const noexcept override
        {
            return gatesFloats_ + recurrentFloats_ + cellFloats_ + unprojectedFloats_ + gemmFloats_;
        }

        void run (const float* const* in, float* const* out, float* scratch) const noexcept override
        {
            const auto& k = inputPlan_.kernels();
            const int64_t allGates = directions_ * gateSize_;
            const int64_t rows = steps_ * batch_;
            float* gates = scratch;
            float* recurrentGates = gates + gatesFloats_;
            float* cell = recurrentGates + recurrentFloats_;
            float* unprojected = cell + cellFloats_;
            float* gemmScratch = unprojected + unprojectedFloats_;

            // Input projection of all steps and directions: one product from the merged biases.
            for (int64_t row = 0; row < rows; ++row)
                std::copy (inputBias_.begin(), inputBias_.end(), gates + row * allGates);
            const float* inputWeights = directions_ == 2 ? inputWeights_.data() : in[kFirstWeight];
            inputPlan_.run ({ in[0], inputSize_, false, nullptr }, { inputWeights, inputSize_, true, packedInput_.data() }, gates, allGates, 1.0f,
                            gemmScratch);

            // Row (t, b) of x, the gates and y: t * B + b, or b * T + t with batch_first.
            const int64_t stepStride = batchFirst_ ? 1 : batch_;
            const int64_t batchStride = batchFirst_ ? steps_ : 1;
            const int64_t outWidth = directions_ * hiddenOut_;
            float* y = out[0];
            for (int d = 0; d < directions_; ++d)
            {
                const auto slot = kFirstWeight + kPerDirection * static_cast<std::size_t> (d);
                const auto direction = static_cast<std::size_t> (d);
                const kernels::GemmOperand recurrentWeights { in[slot + 1], hiddenOut_, true, recurrentWeights_[direction].data() };
                const kernels::GemmOperand projectionWeights { in[slot + 4], hidden_, true, projectionWeights_[direction].data() };
                if (mode_ == Mode::lstm)
                {
                    if (hasC0_)
                        std::copy (in[2] + d * batch_ * hidden_, in[2] + (d + 1) * batch_ * hidden_, cell);
                    else
                        std::fill (cell, cell + batch_ * hidden_, 0.0f);
                }
                int64_t previousT = -1;
                for (int64_t s = 0; s < steps_; ++s)
                {
                    const int64_t t = d == 0 ? s : steps_ - 1 - s;
                    float* stepGates = gates + t * stepStride * allGates + d * gateSize_;
                    const int64_t gatesLd = batchStride * allGates;
                    float* stepOut = y + t * stepStride * outWidth + d * hiddenOut_;
                    const int64_t outLd = batchStride * outWidth;
                    const float* previous = nullptr;
                    int64_t previousLd = hiddenOut_;
                    if (previousT >= 0)
                    {
                        previous = y + previousT * stepStride * outWidth + d * hiddenOut_;
                        previousLd = outLd;
                    }
                    else if (hasH0_)
                        previous = in[1] + d * batch_ * hiddenOut_;

                    if (mode_ == Mode::gru)
                    {
                        const float* bias = recurrentBias_.data() + d * gateSize_;
                        for (int64_t b = 0; b < batch_; ++b)
                            std::copy (bias, bias + gateSize_, recurrentGates + b * gateSize_);
                        if (previous != nullptr)
                            product (recurrentPlan_, gateSize_, hiddenOut_, previous, previousLd, recurrentWeights, recurrentGates, gateSize_,
                                     gemmScratch);
                        for (int64_t b = 0; b < batch_; ++b)
                        {
                            const float* previousRow = previous == nullptr ? nullptr : previous + b * previousLd;
                            k.gruCell (stepGates + b * gatesLd, recurrentGates + b * gateSize_, previousRow, stepOut + b * outLd, hidden_);
                        }
                    }
                    else
                    {
                        if (previous != nullptr)
                            product (recurrentPlan_, gateSize_, hiddenOut_, previous, previousLd, recurrentWeights, stepGates, gatesLd, gemmScratch);
                        for (int64_t b = 0; b < batch_; ++b)
                        {
                            const float* g = stepGates + b * gatesLd;
                            if (mode_ == Mode::lstm)
                                k.lstmCell (g, cell + b * hidden_, proj_ > 0 ? unprojected + b * hidden_ : stepOut + b * outLd, hidden_);
                            else if (mode_ == Mode::rnnTanh)
                                k.tanh (g, stepOut + b * outLd, hidden_);
                            else
                                k.copy (g, stepOut + b * outLd, hidden_, true);
                        }
                        if (proj_ > 0)
                        {
                            for (int64_t b = 0; b < batch_; ++b)
                                std::fill (stepOut + b * outLd, stepOut + b * outLd + proj_, 0.0f);
                            product (projectionPlan_, proj_, hidden_, unprojected, hidden_, projectionWeights, stepOut, outLd, gemmScratch);
                        }
                    }
                    previousT = t;
                }

                // Final states: the last step of this direction (t = T - 1 forward, 0 backward).
                if (withHidden_)
                    for (int64_t b = 0; b < batch_; ++b)
                    {
                        const float* last = y + previousT * stepStride * outWidth + b * batchStride * outWidth + d * hiddenOut_;
                        std::copy (last, last + hiddenOut_, out[1] + (d * batch_ + b) * hiddenOut_);
                    }
                if (withCell_)
                    std::copy (cell, cell + batch_ * hidden_, out[2] + d * batch_ * hidden_);
            }
        }

    private:
        /** The attributes: mode, directions, layout, sizes; the input and output counts they imply. */
        void readAttributes (const OpArgs& args)
        {
            mode_ = parseMode (args.text ("mode", ""));
            directions_ = args.flag ("bidirectional", false) ? 2 : 1;
            batchFirst_ = args.flag ("batch_first", false);
            hidden_ = args.integer ("hidden_size");
            proj_ = args.integer ("proj_size", 0);
            if (hidden_ < 1 || hidden_ > (int64_t { 1 } << 24))
                throw ModelError ("rnn hidden_size must be in 1 .. 2^24, got " + std::to_string (hidden_));
            if (proj_ < 0 || (proj_ > 0 && (mode_ != Mode::lstm || proj_ >= hidden_)))
                throw ModelError ("rnn proj_size must be 0, or for lstm in 1 .. hidden_size - 1, got " + std::to_string (proj_));
            hiddenOut_ = proj_ > 0 ? proj_ : hidden_;
            gateSize_ = checkedMul (gatesOf (mode_), hidden_, "rnn gate size");
            const auto numInputs = kFirstWeight + kPerDirection * static_cast<std::size_t> (directions_);
            args.expectInputs (numInputs, numInputs, 1);
            args.expectOutputs (1, mode_ == Mode::lstm ? 3 : 2);
        }

        /** The input's shape, the initial states' and the outputs' against it; which outputs are read. */
        void checkShapes (const OpArgs& args)
        {
            const auto& x = args.input (0);
            if (x.rank() != 3)
                throw ModelError ("rnn input must be [T, B, I] (or [B, T, I] with batch_first), got " + x.toString());
            steps_ = batchFirst_ ? x[1] : x[0];
            batch_ = batchFirst_ ? x[0] : x[1];
            inputSize_ = x[2];
            if (steps_ < 1 || batch_ < 1 || inputSize_ < 1)
                throw ModelError ("rnn input " + x.toString() + " has an empty axis");

            const Shape state { directions_, batch_, hiddenOut_ };
            const Shape cell { directions_, batch_, hidden_ };
            hasH0_ = args.hasInput (1);
            hasC0_ = args.hasInput (2);
            if (hasH0_ && args.input (1) != state)
                throw ModelError ("rnn h0 must be " + state.toString() + ", got " + args.input (1).toString());
            if (hasC0_ && (mode_ != Mode::lstm || args.input (2) != cell))
                throw ModelError (mode_ != Mode::lstm ? std::string ("rnn c0 is for lstm only")
                                                      : "rnn c0 must be " + cell.toString() + ", got " + args.input (2).toString());

            rows_ = checkedMul (steps_, batch_, "rnn rows");
            allGates_ = checkedMul (directions_, gateSize_, "rnn gates");
            Shape y = x.with (2, checkedMul (directions_, hiddenOut_, "rnn output size"));
            args.checkOutput (0, y);
            if (args.numOutputs() > 1)
                args.checkOutput (1, state);
            if (args.numOutputs() > 2)
                args.checkOutput (2, cell);
            withHidden_ = args.numOutputs() > 1;
            withCell_ = args.numOutputs() > 2;
        }

        /** Weights: stored in the file (packed here), exact shapes. The input weights of both
            directions are stacked into one product, the biases merged. */
        void packWeights (const OpArgs& args)
        {
            const int64_t rows = rows_, allGates = allGates_;
            args.claimTable (static_cast<std::uint64_t> (allGates) * 2u, sizeof (float), "rnn biases");
            inputBias_.assign (static_cast<std::size_t> (allGates), 0.0f);
            recurrentBias_.assign (static_cast<std::size_t> (allGates), 0.0f);
            const bool twoDirections = directions_ == 2;
            if (twoDirections)
            {
                args.claimTable (static_cast<std::uint64_t> (checkedMul (allGates, inputSize_, "rnn input weights")), sizeof (float),
                                 "rnn input weights");
                inputWeights_ = AlignedBuffer (static_cast<std::size_t> (allGates * inputSize_));
            }
            inputPlan_ = GemmPlan (rows, allGates, inputSize_);
            recurrentPlan_ = GemmPlan (batch_, gateSize_, hiddenOut_);
            if (proj_ > 0)
                projectionPlan_ = GemmPlan (batch_, proj_, hidden_);
            const float* singleInputWeights = nullptr;
            for (int d = 0; d < directions_; ++d)
                packDirection (args, d, singleInputWeights);
            packedInput_ = PackedOperand::right (inputPlan_, inputSize_, allGates,
                                                 { twoDirections ? inputWeights_.data() : singleInputWeights, inputSize_, true, nullptr },
                                                 args.budget());
            if (packedInput_.data() != nullptr)
                inputWeights_ = AlignedBuffer(); // the packed copy is what the product reads
        }

        /** Direction d's weights, checked; its projection and recurrent weights packed, its input
            weights stacked (two directions) or kept (one), its biases merged. */
        void packDirection (const OpArgs& args, int d, const float*& singleInputWeights)
        {
            const bool twoDirections = directions_ == 2;
            const auto base = kPerDirection * static_cast<std::size_t> (d);
            const float* wih = storedWeight (args, base, Shape { gateSize_, inputSize_ }, "w_ih");
            const float* whh = storedWeight (args, base + 1, Shape { gateSize_, hiddenOut_ }, "w_hh");
            const float* bih = storedBias (args, base + 2, gateSize_, "b_ih");
            const float* bhh = storedBias (args, base + 3, gateSize_, "b_hh");
            const auto direction = static_cast<std::size_t> (d);
            if (proj_ > 0)
            {
                const float* whr = storedWeight (args, base + 4, Shape { proj_, hidden_ }, "w_hr");
                projectionWeights_[direction] = PackedOperand::right (projectionPlan_, hidden_, proj_, { whr, hidden_, true, nullptr }, args.budget());
            }
            else if (args.hasInput (kFirstWeight + base + 4))
                throw ModelError ("rnn w_hr is only for lstm with proj_size > 0");
            if (twoDirections)
                std::copy (wih, wih + gateSize_ * inputSize_, inputWeights_.data() + d * gateSize_ * inputSize_);
            else
                singleInputWeights = wih;
            recurrentWeights_[direction] = PackedOperand::right (recurrentPlan_, hiddenOut_, gateSize_, { whh, hiddenOut_, true, nullptr }, args.budget());
            // The input product starts from b_ih + b_hh, except GRU's candidate gate, whose
            // b_hh is inside r * (W_hn h + b_hn): that one starts the recurrent product.
            float* into = inputBias_.data() + d * gateSize_;
            float* recurrent = recurrentBias_.data() + d * gateSize_;
            for (int64_t g = 0; g < gateSize_; ++g)
            {
                const float hh = bhh != nullptr ? bhh[g] : 0.0f;
                into[g] = bih != nullptr ? bih[g] : 0.0f;
                if (mode_ == Mode::gru && g >= 2 * hidden_)
                    recurrent[g] = hh;
                else
                    into[g] += hh;
            }
        }

        /** Scratch: the input projection of every step, GRU's recurrent gates, LSTM's cell and
            (with a projection) unprojected hidden state, then the products' own. */
        void planScratch()
        {
            const int64_t rows = rows_, allGates = allGates_;
            auto floats = [] (int64_t count) { return AlignedBuffer::roundUp (static_cast<std::size_t> (count)); };
            gatesFloats_ = floats (checkedMul (rows, allGates, "rnn gate scratch"));
            recurrentFloats_ = mode_ == Mode::gru ? floats (checkedMul (batch_, gateSize_, "rnn gate scratch")) : 0;
            cellFloats_ = mode_ == Mode::lstm ? floats (checkedMul (batch_, hidden_, "rnn cell scratch")) : 0;
            unprojectedFloats_ = proj_ > 0 ? cellFloats_ : 0;
            gemmFloats_ = std::max ({ inputPlan_.scratchFloats(), recurrentPlan_.scratchFloats(), projectionPlan_.scratchFloats() });
        }

        /** The multiply-adds and the work of a run. */
        void estimateWork()
        {
            const int64_t rows = rows_, allGates = allGates_;
            const double stepsTimesDirections = static_cast<double> (steps_) * directions_;
            multiplyAdds_ = static_cast<double> (rows) * static_cast<double> (allGates) * static_cast<double> (inputSize_)
                            + stepsTimesDirections * static_cast<double> (batch_)
                                  * (static_cast<double> (gateSize_) * static_cast<double> (hiddenOut_)
                                     + static_cast<double> (proj_) * static_cast<double> (hidden_));
            // The input projection (one product), the bias fill and the gates' vector math; per step
            // and direction the recurrent product (and the projection): for a few sequences a row
            // kernel per sequence that reads all the weights again (memory-bound once they leave
            // the cache), else a product; and a cell kernel call per sequence.
            work_ = inputPlan_.work (false, packedInput_.data() != nullptr);
            work_.streamed += static_cast<double> (rows) * static_cast<double> (allGates);
            work_.vectorMath = 2.0 * static_cast<double> (rows) * static_cast<double> (allGates);
            Work step;
            const bool packedSteps = recurrentWeights_[0].data() != nullptr;
            if (batch_ > kRowKernelBatch)
            {
                step = recurrentPlan_.work (false, packedSteps);
                if (proj_ > 0)
                    step += projectionPlan_.work (false, packedSteps);
            }
            else
            {
                const double weights = static_cast<double> (gateSize_) * static_cast<double> (hiddenOut_)
                                       + static_cast<double> (proj_) * static_cast<double> (hidden_);
                step.multiplyAdds = static_cast<double> (batch_) * weights;
                step.streamed = static_cast<double> (batch_) * weights;
            }
            step.calls += 2.0 + static_cast<double> (batch_);
            work_ += stepsTimesDirections * step;
        }

        /** c [B, n] (row stride ldc) += a [B, k] (row stride lda) * w^T, w [n, k] as the layer
            stores it: for a few sequences one row at a time, against the packed weights or the
            stored rows (the general kernel computes a whole tile of rows for each, and the
            baseline's Eigen product is tuned for large ones); else the general product. */
        void product (const GemmPlan& plan, int64_t n, int64_t k, const float* a, int64_t lda, const kernels::GemmOperand& w, float* c, int64_t ldc,
                      float* scratch) const noexcept
        {
            if (batch_ > kRowKernelBatch)
                plan.run ({ a, lda, false, nullptr }, w, c, ldc, 1.0f, scratch);
            else if (w.packed != nullptr)
                for (int64_t b = 0; b < batch_; ++b)
                    plan.kernels().packedRowTimes (n, k, a + b * lda, w.packed, c + b * ldc);
            else
                for (int64_t b = 0; b < batch_; ++b)
                    plan.kernels().rowTimesRows (n, k, a + b * lda, w.data, w.ld, c + b * ldc);
        }

        static constexpr int64_t kRowKernelBatch = 3;
        Mode mode_ = Mode::lstm;
        int directions_ = 1;
        bool batchFirst_ = false, hasH0_ = false, hasC0_ = false, withHidden_ = false, withCell_ = false;
        int64_t hidden_ = 0, proj_ = 0, hiddenOut_ = 0, gateSize_ = 0, steps_ = 0, batch_ = 0, inputSize_ = 0;
        int64_t rows_ = 0, allGates_ = 0; // steps_ * batch_ and directions_ * gateSize_, checked at load
        std::vector<float> inputBias_, recurrentBias_;
        AlignedBuffer inputWeights_;
        GemmPlan inputPlan_, recurrentPlan_, projectionPlan_;
        PackedOperand packedInput_;
        std::array<PackedOperand, kMaxDirections> recurrentWeights_, projectionWeights_;
        std::size_t gatesFloats_ = 0, recurrentFloats_ = 0, cellFloats_ = 0, unprojectedFloats_ = 0, gemmFloats_ = 0;
        Work work_;
        double multiplyAdds_ = 0.0;
    };
} // namespace

std::unique_ptr<Op> makeRecurrent (const OpArgs& args)
{
    return std::make_unique<Recurrent> (args);
}

} // namespace sonotype::engine::kernels
