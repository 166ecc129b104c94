// Deterministic test audio: a mix whose content changes over time (tones, noise bursts, silence),
// and room noise at a level.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace sonotype::testing
{

inline std::vector<float> testSignal (double sampleRate, double seconds, uint32_t seed = 1)
{
    std::vector<float> samples (static_cast<std::size_t> (sampleRate * seconds));
    uint32_t state = seed;
    for (std::size_t i = 0; i < samples.size(); ++i)
    {
        const double t = static_cast<double> (i) / sampleRate;
        state = state * 1664525u + 1013904223u;
        const double noise = static_cast<double> (state >> 8) / 8388608.0 - 1.0;
        const int segment = static_cast<int> (t / 0.7) % 4;
        double value = 0.0;
        if (segment == 0)
            value = 0.4 * std::sin (2.0 * M_PI * 440.0 * t) + 0.2 * std::sin (2.0 * M_PI * 1250.0 * t);
        else if (segment == 1)
            value = 0.3 * noise;
        else if (segment == 2)
            value = 0.5 * std::sin (2.0 * M_PI * (100.0 + 900.0 * std::fmod (t, 0.7)) * t);
        samples[i] = static_cast<float> (value);
    }
    return samples;
}

/** `seconds` of white noise at `db` dBFS RMS (room noise). */
inline std::vector<float> noiseAt (double rate, double seconds, double db, unsigned seed)
{
    std::mt19937 random (seed);
    std::normal_distribution<float> noise (0.0f, static_cast<float> (std::pow (10.0, db / 20.0)));
    std::vector<float> samples (static_cast<std::size_t> (seconds * rate));
    for (auto& x : samples)
        x = noise (random);
    return samples;
}

} // namespace sonotype::testing
