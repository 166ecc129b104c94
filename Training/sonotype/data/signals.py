"""Signal building blocks shared by the code-written instruments (synths.py) and noises (noises.py):
band-limited oscillators, RBJ biquads (fixed and time-varying), control curves, time-varying delay,
coloured noise. numpy float arrays at SAMPLE_RATE; randomness only from the `rng` passed in."""

import numpy as np
from scipy import fft as sp_fft
from scipy import signal as sps

from . import SAMPLE_RATE

NYQUIST = SAMPLE_RATE / 2


def peak_normalise(x, peak_db=-1.0):
    """x scaled to a peak of `peak_db` dBFS, as float32 (digital zero stays zero)."""
    peak = float(np.abs(x).max()) if len(x) else 0.0
    if peak < 1e-12:
        return np.zeros(len(x), np.float32)
    return (x * (10 ** (peak_db / 20) / peak)).astype(np.float32)


def db(x):
    return 20 * np.log10(np.maximum(x, 1e-12))


def coloured(rng, n, exponent):
    """Gaussian noise with a 1/f^exponent power spectrum (-1 blue, 0 white, 1 pink, 2 brown) from 20 Hz up,
    flat below (no infrasound build-up), no DC, unit RMS."""
    size = sp_fft.next_fast_len(n, real=True)  # any n, at the speed of a smooth FFT size
    spectrum = np.fft.rfft(rng.standard_normal(size))
    freqs = np.fft.rfftfreq(size, 1 / SAMPLE_RATE)
    shape = np.maximum(freqs, 20.0) ** (-exponent / 2.0)
    shape[0] = 0.0
    x = np.fft.irfft(spectrum * shape, size)[:n]
    return x / (np.sqrt(np.mean(x ** 2)) + 1e-12)


def smooth_curve(rng, n, rate_hz, low=0.0, high=1.0):
    """A slow random control curve of n samples in [low, high]: random points `rate_hz` apart, joined by
    cosine interpolation."""
    points = max(2, int(np.ceil(n / SAMPLE_RATE * rate_hz)) + 2)
    values = rng.uniform(low, high, points)
    position = np.arange(n) / SAMPLE_RATE * rate_hz
    index = np.minimum(position.astype(int), points - 2)
    frac = position - index
    w = 0.5 - 0.5 * np.cos(np.pi * frac)
    return values[index] * (1 - w) + values[index + 1] * w


def biquad(kind, f0, q=0.707, gain_db=0.0):
    """RBJ cookbook biquad (b, a): kind in low, high, band (0 dB peak), peak, lowshelf, highshelf."""
    f0 = float(np.clip(f0, 10.0, NYQUIST * 0.98))
    w0 = 2 * np.pi * f0 / SAMPLE_RATE
    cos, alpha = np.cos(w0), np.sin(w0) / (2 * q)
    a_gain = 10 ** (gain_db / 40)
    if kind == "low":
        b = [(1 - cos) / 2, 1 - cos, (1 - cos) / 2]
        a = [1 + alpha, -2 * cos, 1 - alpha]
    elif kind == "high":
        b = [(1 + cos) / 2, -(1 + cos), (1 + cos) / 2]
        a = [1 + alpha, -2 * cos, 1 - alpha]
    elif kind == "band":
        b = [alpha, 0.0, -alpha]
        a = [1 + alpha, -2 * cos, 1 - alpha]
    elif kind == "peak":
        b = [1 + alpha * a_gain, -2 * cos, 1 - alpha * a_gain]
        a = [1 + alpha / a_gain, -2 * cos, 1 - alpha / a_gain]
    else:
        sq = 2 * np.sqrt(a_gain) * alpha
        if kind == "lowshelf":
            b = [a_gain * ((a_gain + 1) - (a_gain - 1) * cos + sq), 2 * a_gain * ((a_gain - 1) - (a_gain + 1) * cos),
                 a_gain * ((a_gain + 1) - (a_gain - 1) * cos - sq)]
            a = [(a_gain + 1) + (a_gain - 1) * cos + sq, -2 * ((a_gain - 1) + (a_gain + 1) * cos), (a_gain + 1) + (a_gain - 1) * cos - sq]
        else:
            b = [a_gain * ((a_gain + 1) + (a_gain - 1) * cos + sq), -2 * a_gain * ((a_gain - 1) + (a_gain + 1) * cos),
                 a_gain * ((a_gain + 1) + (a_gain - 1) * cos - sq)]
            a = [(a_gain + 1) - (a_gain - 1) * cos + sq, 2 * ((a_gain - 1) - (a_gain + 1) * cos), (a_gain + 1) - (a_gain - 1) * cos - sq]
    b, a = np.asarray(b), np.asarray(a)
    return b / a[0], a / a[0]


def filt(x, kind, f0, q=0.707, gain_db=0.0):
    b, a = biquad(kind, f0, q, gain_db)
    return sps.lfilter(b, a, x)


def tv_filter(x, kind, f0_curve, q=0.707, block=128, stages=1):
    """A biquad whose frequency follows `f0_curve` (one value per sample, read once per `block`), run
    block by block with its state carried over; `stages` cascades it (2 = 24 dB/octave low-pass)."""
    out = np.asarray(x, dtype=np.float64)
    f0_curve = np.broadcast_to(np.asarray(f0_curve, dtype=np.float64), out.shape)
    for _ in range(stages):
        y = np.empty_like(out)
        zi = np.zeros(2)
        for start in range(0, len(out), block):
            b, a = biquad(kind, f0_curve[start], q)
            y[start:start + block], zi = sps.lfilter(b, a, out[start:start + block], zi=zi)
        out = y
    return out


def resonator_bank(x, freqs, qs, gains):
    """Parallel band-pass resonators (a body, formants, a mute)."""
    out = np.zeros(len(x))
    for f0, q, gain in zip(freqs, qs, gains):
        if f0 < NYQUIST * 0.95:
            out += gain * filt(x, "band", f0, q)
    return out


def phase_from_freq(freq):
    """Cycles (0..1) of an oscillator whose frequency in Hz follows `freq` (per sample)."""
    return np.mod(np.cumsum(freq / SAMPLE_RATE), 1.0)


def _polyblep(phase, dt):
    """PolyBLEP residual for a unit downward step at phase 0 (anti-aliasing of saw and pulse edges)."""
    out = np.zeros_like(phase)
    m = phase < dt
    t = phase[m] / dt[m]
    out[m] = t + t - t * t - 1
    m = phase > 1 - dt
    t = (phase[m] - 1) / dt[m]
    out[m] = t * t + t + t + 1
    return out


def saw(freq, phase0=0.0):
    """Band-limited (polyBLEP) sawtooth in [-1, 1] following the frequency curve `freq`."""
    freq = np.asarray(freq, dtype=np.float64)
    dt = np.clip(freq / SAMPLE_RATE, 1e-6, 0.5)
    phase = np.mod(np.cumsum(dt) + phase0, 1.0)
    return 2 * phase - 1 - _polyblep(phase, dt)


def pulse(freq, width, phase0=0.0):
    """Band-limited pulse with duty cycle `width` (0.5 = square; a curve gives PWM), zero mean."""
    freq = np.asarray(freq, dtype=np.float64)
    dt = np.clip(freq / SAMPLE_RATE, 1e-6, 0.5)
    phase = np.mod(np.cumsum(dt) + phase0, 1.0)
    shifted = np.mod(phase + 1 - width, 1.0)
    a = 2 * phase - 1 - _polyblep(phase, dt)
    b = 2 * shifted - 1 - _polyblep(shifted, dt)
    return 0.5 * (a - b)  # w - 1 for a fraction w of the cycle, w for the rest: zero mean


def variable_delay(x, delay_samples):
    """x read through a delay line whose length (samples, per output sample) varies: Doppler, rotary
    speakers, chorus."""
    position = np.arange(len(x)) - delay_samples
    return np.interp(position, np.arange(len(x)), x, left=0.0, right=0.0)


def decaying_noise_ir(rng, seconds, rt60, lowpass_hz=None):
    """A simple reverb impulse response: exponentially decaying noise (60 dB in rt60), optionally darker."""
    n = max(2, int(seconds * SAMPLE_RATE))
    ir = rng.standard_normal(n) * 10 ** (-3 * np.arange(n) / (rt60 * SAMPLE_RATE))
    if lowpass_hz:
        ir = filt(ir, "low", lowpass_hz)
    return ir / np.sqrt(np.sum(ir ** 2))
