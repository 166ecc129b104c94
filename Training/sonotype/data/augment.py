"""Augmentation that matches real use: level, background noise, EQ, reverb."""

import numpy as np
from scipy import signal as sps

from . import SAMPLE_RATE
from .sources import coloured_noise


def peak_normalise(x, peak_db):
    peak = np.abs(x).max()
    return x if peak < 1e-9 else x * (10 ** (peak_db / 20) / peak)


def random_eq(rng, x):
    """A peaking or shelving biquad with random frequency and gain (RBJ cookbook)."""
    f0 = rng.uniform(80, 6000)
    gain_db = rng.uniform(-12, 12)
    q = rng.uniform(0.4, 2.0)
    a = 10 ** (gain_db / 40)
    w0 = 2 * np.pi * f0 / SAMPLE_RATE
    alpha = np.sin(w0) / (2 * q)
    b = [1 + alpha * a, -2 * np.cos(w0), 1 - alpha * a]
    den = [1 + alpha / a, -2 * np.cos(w0), 1 - alpha / a]
    return sps.lfilter(b, den, x).astype(np.float32)


def random_reverb(rng, x):
    decay = rng.uniform(0.1, 1.2)
    n = int(decay * SAMPLE_RATE)
    ir = rng.standard_normal(n) * np.exp(-6.9 * np.arange(n) / n)
    ir[0] = 1.0
    wet = sps.fftconvolve(x, ir)[: len(x)]
    mix = rng.uniform(0.1, 0.6)
    out = (1 - mix) * x + mix * wet / (np.abs(ir).sum() ** 0.5)
    return out.astype(np.float32)


def augment(rng, x, label):
    if label not in ("silence",):
        if rng.random() < 0.5:
            for _ in range(int(rng.integers(1, 3))):
                x = random_eq(rng, x)
        if rng.random() < 0.3 and label != "noise":
            x = random_reverb(rng, x)
        x = peak_normalise(x, rng.uniform(-40, 0))
        if rng.random() < 0.5 and label != "noise":
            snr_db = rng.uniform(10, 40)
            noise = coloured_noise(rng, len(x), float(rng.choice([0.0, 1.0, 2.0])))
            rms = np.sqrt(np.mean(x ** 2)) + 1e-12
            x = x + noise * rms / (np.sqrt(np.mean(noise ** 2)) + 1e-12) * 10 ** (-snr_db / 20)
        if rng.random() < 0.2:  # stereo source summed to mono with a small delay
            shift = int(rng.integers(1, 40))
            x = 0.5 * (x + np.concatenate([np.zeros(shift, np.float32), x[:-shift]]))
    return np.clip(x, -1, 1).astype(np.float32)
