// The triangular mel filterbank of torchaudio.functional.melscale_fbanks (htk or slaney scale,
// optional slaney area normalisation), stored sparsely: each band's non-zero frequency range.
#pragma once

#include "engine/file/FrontendSettings.h"

#include <vector>

namespace sonotype::dsp
{

class MelFilterbank
{
public:
    explicit MelFilterbank (const engine::FrontendSettings& settings);

    int numMels() const noexcept { return static_cast<int> (bands_.size()); }
    /** mel[m] = sum_f weight(f, m) * spectrum[f], for spectrum of numFreqs bins. */
    void apply (const double* spectrum, double* mel) const noexcept;
    /** The dense weight, for tests. */
    double weight (int freq, int mel) const noexcept;

private:
    struct Band
    {
        int first = 0;               // first frequency bin with a non-zero weight
        std::vector<double> weights; // weights of bins first, first + 1, ...
    };
    std::vector<Band> bands_;
};

} // namespace sonotype::dsp
