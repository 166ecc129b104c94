// Spectral ops: stft (framing, window, FFT in double precision; complex results as a trailing
// [real, imaginary] axis of 2) and complex_abs (magnitude or power of such pairs).
#include "engine/file/CheckedArithmetic.h"
#include "engine/file/ModelError.h"
#include "engine/kernels/Fft.h"
#include "engine/kernels/Kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace sonotype::engine::kernels
{
namespace
{
    using Complex = std::complex<double>;

    /** stft: x [B, T], optional window [n_fft] -> [B, F, frames, 2] with F = n_fft / 2 + 1 (onesided)
        or n_fft, frames = 1 + (T - n_fft) / hop_length;
        y[b, f, t] = scale * sum_j x[b, t * hop + j] * window[j] * exp(-2 pi i j f / n_fft). */
    class Stft final : public Op
    {
    public:
        explicit Stft (const OpArgs& args) : plan_ (checkedFftSize (args))
        {
            const auto& in = args.input (0);
            if (in.rank() != 2)
                throw ModelError ("stft input must be [batch, samples], not " + in.toString());
            nFft_ = plan_.size();
            hop_ = args.integer ("hop_length");
            if (hop_ < 1 || hop_ > (int64_t { 1 } << 24))
                throw ModelError ("hop_length must be between 1 and 2^24");
            const bool onesided = args.flag ("onesided", true);
            scale_ = args.real ("scale", 1.0, -kMaxFactor, kMaxFactor);
            if (args.hasInput (1) && args.input (1) != Shape { nFft_ })
                throw ModelError ("stft window must be [" + std::to_string (nFft_) + "], not " + args.input (1).toString());
            hasWindow_ = args.hasInput (1);
            batch_ = in[0];
            samples_ = in[1];
            if (samples_ < nFft_)
                throw ModelError ("stft input has " + std::to_string (samples_) + " samples, fewer than n_fft = " + std::to_string (nFft_));
            frames_ = 1 + (samples_ - nFft_) / hop_;
            bins_ = onesided ? nFft_ / 2 + 1 : nFft_;
            Shape computed;
            computed.push (batch_);
            computed.push (bins_);
            computed.push (frames_);
            computed.push (2);
            args.checkOutput (0, computed);
            // Up to 16 frames per block, their spectra at most 2^16 complex values (1 MiB) of scratch.
            block_ = std::clamp<int64_t> ((int64_t { 1 } << 16) / plan_.numBins(), 1, 16);
            // Per frame: the window applied in double, the transform, a scalar store per bin (bin-major
            // runs of a block of frames).
            const auto transforms = static_cast<double> (checkedMul (batch_, frames_, "stft frame count"));
            Work perFrame = plan_.work();
            perFrame.scalar += static_cast<double> (nFft_) + 2.0 * static_cast<double> (bins_);
            perFrame.calls += 1.0 + static_cast<double> (bins_) / static_cast<double> (block_);
            work_ = transforms * perFrame;
        }

        Work work() const noexcept override { return work_; }

        std::size_t scratchFloats() const noexcept override
        {
            // One windowed frame (n_fft doubles, counted as complex values), the spectra of a block
            // of frames, the plan's scratch, plus alignment slack.
            const auto complexValues = static_cast<std::size_t> (nFft_) + static_cast<std::size_t> (block_ * plan_.numBins())
                                       + plan_.scratchComplex();
            return complexValues * (sizeof (Complex) / sizeof (float)) + alignof (Complex) / sizeof (float);
        }

        void run (const float* const* in, float* const* out, float* scratch) const noexcept override
        {
            auto address = reinterpret_cast<std::uintptr_t> (scratch);
            address = (address + alignof (Complex) - 1) & ~static_cast<std::uintptr_t> (alignof (Complex) - 1);
            auto* frame = reinterpret_cast<double*> (address);
            auto* spectra = reinterpret_cast<Complex*> (address) + nFft_;
            Complex* planScratch = spectra + block_ * plan_.numBins();
            const float* window = hasWindow_ ? in[1] : nullptr;
            const int64_t numBins = plan_.numBins();
            for (int64_t b = 0; b < batch_; ++b)
            {
                const float* x = in[0] + b * samples_;
                float* y = out[0] + b * bins_ * frames_ * 2;
                // Frames in blocks: the output is bin-major, so a block's spectra are written as runs of
                // block_ consecutive [real, imaginary] pairs per bin rather than one pair per cache line.
                for (int64_t first = 0; first < frames_; first += block_)
                {
                    const int64_t count = std::min (block_, frames_ - first);
                    for (int64_t i = 0; i < count; ++i)
                    {
                        const float* start = x + (first + i) * hop_;
                        for (int64_t j = 0; j < nFft_; ++j)
                            frame[j] = static_cast<double> (start[j]) * (window != nullptr ? static_cast<double> (window[j]) : 1.0);
                        plan_.run (frame, spectra + i * numBins, planScratch);
                    }
                    for (int64_t f = 0; f < bins_; ++f)
                    {
                        float* cell = y + (f * frames_ + first) * 2;
                        for (int64_t i = 0; i < count; ++i)
                        {
                            // Bins above n_fft / 2 (two-sided output) mirror those below: X[n - f] = conj X[f].
                            const Complex* spectrum = spectra + i * numBins;
                            const Complex value = f < numBins ? spectrum[f] : std::conj (spectrum[nFft_ - f]);
                            cell[2 * i] = static_cast<float> (value.real() * scale_);
                            cell[2 * i + 1] = static_cast<float> (value.imag() * scale_);
                        }
                    }
                }
            }
        }

    private:
        static int64_t checkedFftSize (const OpArgs& args)
        {
            const auto n = args.integer ("n_fft");
            if (n < 1 || n > FftPlan::kMaxSize)
                throw ModelError ("n_fft must be between 1 and " + std::to_string (FftPlan::kMaxSize));
            args.claimTable (static_cast<std::uint64_t> (n), sizeof (Complex), "FFT twiddle factors");
            return n;
        }

        RealFftPlan plan_;
        int64_t block_ = 1; // frames transformed before their bins are written out
        int64_t nFft_ = 0, hop_ = 1, batch_ = 0, samples_ = 0, frames_ = 0, bins_ = 0;
        double scale_ = 1.0;
        Work work_;
        bool hasWindow_ = false;
    };
    /** complex_abs: z [..., 2] ([real, imaginary] pairs) -> |z| [...], or |z|^2 with `squared`;
        sums and square root in double. */
    class ComplexAbs final : public Op
    {
    public:
        explicit ComplexAbs (const OpArgs& args) : squared_ (args.flag ("squared", false))
        {
            const auto& in = args.input (0);
            if (in.rank() < 1 || in[in.rank() - 1] != 2)
                throw ModelError ("complex_abs input must end in an axis of 2 ([real, imaginary]), not " + in.toString());
            Shape computed;
            for (int axis = 0; axis + 1 < in.rank(); ++axis)
                computed.push (in[axis]);
            args.checkOutput (0, computed);
            count_ = computed.numElements();
        }

        Work work() const noexcept override
        {
            Work work; // a square root in double (not vectorised) per element
            work.scalar = 8.0 * static_cast<double> (count_);
            return work;
        }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            const float* z = in[0];
            float* y = out[0];
            for (int64_t i = 0; i < count_; ++i)
            {
                const double re = z[2 * i], im = z[2 * i + 1];
                const double power = re * re + im * im;
                y[i] = static_cast<float> (squared_ ? power : std::sqrt (power));
            }
        }

    private:
        bool squared_;
        int64_t count_ = 0;
    };
} // namespace

std::unique_ptr<Op> makeSpectral (const OpArgs& args)
{
    switch (args.kind())
    {
        case OpKind::stft: return std::make_unique<Stft> (args);
        case OpKind::complexAbs: return std::make_unique<ComplexAbs> (args);
        default: break;
    }
    throw ModelError ("not a spectral op: " + std::string (opName (args.kind())));
}

} // namespace sonotype::engine::kernels
