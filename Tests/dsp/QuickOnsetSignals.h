// Hits at known sample positions for the quick onset detector's tests: clicks, 808-style sine kicks
// (a 2 ms attack), snares and hats (noise) at given levels, over room noise; and the detector run
// over a signal in blocks, each onset with the input position of the push that reported it.
#pragma once

#include "dsp/QuickOnsetDetector.h"
#include "support/TestSignals.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace sonotype::testing
{

enum class Piece
{
    click,
    kick,
    snare,
    hat
};

/** Adds `piece` at `start` to `out`, its level `db` dBFS: a click's and a kick's peak, a snare's and
    a hat's noise RMS. A click is a 1.5 kHz tone dying away in 2 ms (a clave, a rim), at its peak at once. A kick is a sine falling exponentially from `pitch` to a third of it over its
    0.45 s, with a linear 2 ms attack, as sox makes the issue's; a snare a 200 Hz tone and noise, a hat
    first-differenced noise (its energy is high), both with a 1 ms attack. */
inline void addPiece (std::vector<float>& out, double rate, int64_t start, Piece piece, double db, std::mt19937& random, double pitch = 150.0)
{
    std::normal_distribution<double> noise (0.0, 1.0);
    const double level = std::pow (10.0, db / 20.0);
    const double length = piece == Piece::kick ? 0.45 : piece == Piece::snare ? 0.2
                                                    : piece == Piece::hat     ? 0.06
                                                                              : 0.02;
    const double attack = piece == Piece::kick ? 0.002 : 0.001;
    const auto count = static_cast<int64_t> (length * rate);
    double phase = 0.0, previous = 0.0;
    for (int64_t i = 0; i < count && start + i < static_cast<int64_t> (out.size()); ++i)
    {
        const double s = static_cast<double> (i) / rate;
        double v = 0.0;
        if (piece == Piece::click)
            v = std::cos (2.0 * M_PI * 1500.0 * s) * std::exp (-s / 0.002);
        else
        {
            const double envelope = std::min (1.0, s / attack) * (1.0 - s / length);
            if (piece == Piece::kick)
            {
                phase += 2.0 * M_PI * pitch * std::pow (1.0 / 3.0, s / length) / rate;
                v = envelope * std::sin (phase);
            }
            else if (piece == Piece::snare)
                v = envelope * (0.7 * std::sin (2.0 * M_PI * 200.0 * s) + noise (random));
            else
            {
                const double n = noise (random) / std::sqrt (2.0);
                v = envelope * (n - previous);
                previous = n;
            }
        }
        out[static_cast<std::size_t> (start + i)] += static_cast<float> (level * v);
    }
}

struct Reported
{
    std::vector<int64_t> onsets;
    std::vector<int64_t> pushedFrom; // the input position before the push that reported each
};

/** Runs a new detector over `samples` in blocks of the sizes `blocks` gives in turn (0: random
    sizes up to 4096), with an output of exactly maxOnsets() of each block. */
inline Reported runQuick (const std::vector<float>& samples, double rate, const std::vector<std::size_t>& blocks, dsp::OnsetSettings settings = {})
{
    dsp::QuickOnsetDetector detector (rate, settings);
    std::mt19937 random (3);
    std::uniform_int_distribution<std::size_t> size (1, 4096);
    Reported r;
    std::vector<int64_t> out;
    std::size_t i = 0;
    for (std::size_t k = 0; i < samples.size(); ++k)
    {
        std::size_t block = blocks[k % blocks.size()];
        block = std::min (block == 0 ? size (random) : block, samples.size() - i);
        out.resize (detector.maxOnsets (block));
        const auto count = detector.push (samples.data() + i, block, out.data(), out.size());
        for (std::size_t n = 0; n < count; ++n)
        {
            r.onsets.push_back (out[n]);
            r.pushedFrom.push_back (static_cast<int64_t> (i));
        }
        i += block;
    }
    return r;
}

/** A drum loop as the issue's: 60 hits of kick, snare and hat (piece index 0, 1, 2) at -15 to -3
    dBFS, 0.15-0.35 s apart, over room noise at -60 dBFS. */
struct Loop
{
    std::vector<float> samples;
    std::vector<std::pair<int64_t, int>> hits; // onset sample, piece index
};

inline Loop kitLoop (double rate, unsigned seed)
{
    std::mt19937 random (seed);
    Loop loop;
    loop.samples = noiseAt (rate, 17.0, -60.0, seed);
    double t = 0.2;
    for (int h = 0; h < 60; ++h)
    {
        const int piece = std::uniform_int_distribution<int> (0, 2) (random);
        const auto at = static_cast<int64_t> (t * rate);
        // The draws one by one (a function's arguments are evaluated in an order the compiler picks:
        // GCC's right to left is kept, so that clang builds the same loop).
        const double hz = std::uniform_real_distribution<double> (120.0, 180.0) (random);
        const double db = std::uniform_real_distribution<double> (-15.0, -3.0) (random);
        addPiece (loop.samples, rate, at, static_cast<Piece> (piece + 1), db, random, hz);
        loop.hits.emplace_back (at, piece);
        t += std::uniform_real_distribution<double> (0.15, 0.35) (random);
    }
    return loop;
}

/** One piece alone (after 50 ms of room noise), as a one-shot example is recorded. */
inline std::vector<float> oneShot (Piece piece, double rate, double db, unsigned seed)
{
    auto samples = noiseAt (rate, 0.6, -70.0, seed);
    std::mt19937 random (seed);
    addPiece (samples, rate, static_cast<int64_t> (0.05 * rate), piece, db, random, 120.0 + 10.0 * (seed % 6));
    return samples;
}

} // namespace sonotype::testing
