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
    // Each band's sum in the order of its bins (as before and as a plain loop would); four bands at
    // a time over the bins they all have, so that four chains of dependent adds overlap.
    auto sumFrom = [&] (const Band& band, std::size_t j, double sum) noexcept {
        for (; j < band.weights.size(); ++j)
            sum += band.weights[j] * spectrum[static_cast<std::size_t> (band.first) + j];
        return sum;
    };
    std::size_t m = 0;
    for (; m + 4 <= bands_.size(); m += 4)
    {
        const Band* b = &bands_[m];
        const std::size_t common = std::min ({ b[0].weights.size(), b[1].weights.size(), b[2].weights.size(), b[3].weights.size() });
        const double *w0 = b[0].weights.data(), *w1 = b[1].weights.data(), *w2 = b[2].weights.data(), *w3 = b[3].weights.data();
        const double *s0 = spectrum + b[0].first, *s1 = spectrum + b[1].first, *s2 = spectrum + b[2].first, *s3 = spectrum + b[3].first;
        double sum0 = 0.0, sum1 = 0.0, sum2 = 0.0, sum3 = 0.0;
        for (std::size_t j = 0; j < common; ++j)
        {
            sum0 += w0[j] * s0[j];
            sum1 += w1[j] * s1[j];
            sum2 += w2[j] * s2[j];
            sum3 += w3[j] * s3[j];
        }
        mel[m] = sumFrom (b[0], common, sum0);
        mel[m + 1] = sumFrom (b[1], common, sum1);
        mel[m + 2] = sumFrom (b[2], common, sum2);
        mel[m + 3] = sumFrom (b[3], common, sum3);
    }
    for (; m < bands_.size(); ++m)
        mel[m] = sumFrom (bands_[m], 0, 0.0);
}

double MelFilterbank::weight (int freq, int mel) const noexcept
{
    const auto& band = bands_[static_cast<std::size_t> (mel)];
    const int j = freq - band.first;
    return j >= 0 && j < static_cast<int> (band.weights.size()) ? band.weights[static_cast<std::size_t> (j)] : 0.0;
}

} // namespace sonotype::dsp
