#include "dsp/MelFilterbank.h"

#include <algorithm>
#include <cmath>

namespace sonotype::dsp
{
namespace
{
    // torchaudio.functional._hz_to_mel / _mel_to_hz
    double hzToMel (double hz, engine::FrontendSettings::MelScale scale)
    {
        if (scale == engine::FrontendSettings::MelScale::htk)
            return 2595.0 * std::log10 (1.0 + hz / 700.0);
        constexpr double fSp = 200.0 / 3.0, minLogHz = 1000.0, minLogMel = minLogHz / fSp;
        const double logStep = std::log (6.4) / 27.0;
        return hz >= minLogHz ? minLogMel + std::log (hz / minLogHz) / logStep : hz / fSp;
    }

    double melToHz (double mel, engine::FrontendSettings::MelScale scale)
    {
        if (scale == engine::FrontendSettings::MelScale::htk)
            return 700.0 * (std::pow (10.0, mel / 2595.0) - 1.0);
        constexpr double fSp = 200.0 / 3.0, minLogHz = 1000.0, minLogMel = minLogHz / fSp;
        const double logStep = std::log (6.4) / 27.0;
        return mel >= minLogMel ? minLogHz * std::exp (logStep * (mel - minLogMel)) : fSp * mel;
    }

    // torch.linspace(start, end, steps)[i]
    double linspace (double start, double end, int steps, int i)
    {
        return steps == 1 ? start : start + (end - start) * i / (steps - 1);
    }
} // namespace

MelFilterbank::MelFilterbank (const engine::FrontendSettings& settings)
{
    const int numFreqs = settings.numFreqs();
    const int numMels = settings.nMels;
    if (! settings.melFilterbank.empty())
    {
        // torchaudio's own numbers, [numFreqs, numMels] row-major, kept sparsely.
        bands_.resize (static_cast<std::size_t> (numMels));
        for (int m = 0; m < numMels; ++m)
        {
            auto& band = bands_[static_cast<std::size_t> (m)];
            int first = -1, last = -1;
            for (int f = 0; f < numFreqs; ++f)
                if (settings.melFilterbank[static_cast<std::size_t> (f * numMels + m)] != 0.0f)
                    last = f, first = first < 0 ? f : first;
            band.first = std::max (first, 0);
            for (int f = band.first; f <= last; ++f)
                band.weights.push_back (settings.melFilterbank[static_cast<std::size_t> (f * numMels + m)]);
        }
        return;
    }
    // all_freqs = linspace(0, sample_rate // 2, n_freqs)
    const double nyquist = std::floor (settings.sampleRate / 2.0);
    std::vector<double> freqs (static_cast<std::size_t> (numFreqs));
    for (int f = 0; f < numFreqs; ++f)
        freqs[static_cast<std::size_t> (f)] = linspace (0.0, nyquist, numFreqs, f);
    const double melMin = hzToMel (settings.fMin, settings.melScale), melMax = hzToMel (settings.fMax, settings.melScale);
    std::vector<double> points (static_cast<std::size_t> (numMels + 2));
    for (int i = 0; i < numMels + 2; ++i)
        points[static_cast<std::size_t> (i)] = melToHz (linspace (melMin, melMax, numMels + 2, i), settings.melScale);

    bands_.resize (static_cast<std::size_t> (numMels));
    for (int m = 0; m < numMels; ++m)
    {
        const auto i = static_cast<std::size_t> (m);
        const double lower = points[i], centre = points[i + 1], upper = points[i + 2];
        const double norm = settings.slaneyNorm ? 2.0 / (upper - lower) : 1.0;
        auto& band = bands_[i];
        band.first = -1;
        for (int f = 0; f < numFreqs; ++f)
        {
            const double freq = freqs[static_cast<std::size_t> (f)];
            const double down = (freq - lower) / (centre - lower); // = -slope / f_diff
            const double up = (upper - freq) / (upper - centre);
            const double w = std::max (0.0, std::min (down, up)) * norm;
            if (w > 0.0)
            {
                if (band.first < 0)
                    band.first = f;
                band.weights.resize (static_cast<std::size_t> (f - band.first + 1), 0.0);
                band.weights.back() = w;
            }
        }
        if (band.first < 0)
            band.first = 0;
    }
}

void MelFilterbank::apply (const double* spectrum, double* mel) const noexcept
{
    for (std::size_t m = 0; m < bands_.size(); ++m)
    {
        const auto& band = bands_[m];
        double sum = 0.0;
        for (std::size_t j = 0; j < band.weights.size(); ++j)
            sum += band.weights[j] * spectrum[static_cast<std::size_t> (band.first) + j];
        mel[m] = sum;
    }
}

double MelFilterbank::weight (int freq, int mel) const noexcept
{
    const auto& band = bands_[static_cast<std::size_t> (mel)];
    const int j = freq - band.first;
    return j >= 0 && j < static_cast<int> (band.weights.size()) ? band.weights[static_cast<std::size_t> (j)] : 0.0;
}

} // namespace sonotype::dsp
