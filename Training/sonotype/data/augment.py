"""Recording-realistic augmentation: what happens to a sound between the instrument and the file.

    augment(rng, x, label, background=None, noise_floor=None, settings=AUGMENT_DEFAULTS)

runs, in this order, each stage with its probability from `settings` (every random draw from `rng`):

1. pitch: varispeed through the product's resampler (libsoxr), pitch and tempo together, in the range
   plausible for the class (PITCH_RANGES), cropped or loop-padded back to the input's length;
   vibrato (strings, woodwind, brass, synth, organ, guitar: 4…7 Hz, up to 25…60 cents, fading in);
   doppler (noise: a source driving past, pitch falling by up to ±9 % and level peaking as it passes);
   expression: a slow random gain curve (a player's swell and fade, ±2…8 dB).
2. background: the caller's clip of another class mixed at -20…-10 dB (RMS) under the source.
3. rooms: a synthetic impulse response (image-source early reflections of a random shoebox room, a diffuse
   tail that decays faster at high frequencies, RT60 0.1…2.5 s, close to far microphone);
   stereo_comb: a stereo pair summed to mono (a small delay).
4. coloration: eq (1…4 peaking/shelving biquads, ±12 dB), low_cut (40…300 Hz high-pass), band_limit
   (a recording made at a lower rate, or a microphone's roll-off: 3…7.5 kHz), phone (300…3400 Hz),
   speaker (a small speaker or laptop microphone: high-pass and a resonance), presence (a cheap
   microphone's 2…6 kHz peak).
5. noise_floor: the caller's unit-RMS noise 10…50 dB below the source (RMS).
6. dynamics: compression (ratio 2…10, threshold 6…24 dB under the clip's loudest moment, attack and
   release), soft_clip (tanh or arctan drive), hard_clip (rare).
7. degradation: codec (a lossy coder's band limit and dropped weak spectral lines), bit_depth (8 or 12 bit
   at the clip's own peak).
8. level: always; the peak lands at -45…0 dBFS, uniform in dB.

"silence" only gets a level change that keeps its peak at or under -60 dBFS (SILENCE_PEAK_DB). "noise"
gets no background and no noise floor (a noise clip with a voice over it would be ambiguous). "bass" keeps
its fundamentals: no high-pass above 100 Hz and no telephone band.
Settings are probabilities per stage; `without("rooms")` or `without("coloration")` (a group) switch
stages off for an ablation, `only(...)` keeps just the named ones. Groups: performance (pitch, vibrato,
doppler, expression), mix (background, noise_floor), rooms (a stage), coloration, dynamics, degradation
(codec, bit_depth, stereo_comb).
"""

import numbers

import numpy as np
from scipy import signal as sps

from . import CLASSES, SAMPLE_RATE
from .resample import resample

INSTRUMENTS = ("piano", "organ", "guitar", "bass", "strings", "brass", "woodwind", "synth")

AUGMENT_DEFAULTS = {
    "pitch": 0.6,
    "expression": 0.3,
    "vibrato": 0.3,      # strings, woodwind, brass, synth, organ, guitar
    "doppler": 0.15,     # noise
    "background": 1.0,   # when the caller passes one: the caller decides how often
    "rooms": 0.6,
    "stereo_comb": 0.1,
    "eq": 0.7,
    "low_cut": 0.4,
    "band_limit": 0.2,
    "phone": 0.04,
    "speaker": 0.1,
    "presence": 0.15,
    "noise_floor": 1.0,  # when the caller passes one
    "compression": 0.3,
    "soft_clip": 0.12,
    "hard_clip": 0.03,
    "codec": 0.08,
    "bit_depth": 0.04,
}

GROUPS = {
    "performance": ("pitch", "vibrato", "doppler", "expression"),
    "mix": ("background", "noise_floor"),
    "coloration": ("eq", "low_cut", "band_limit", "phone", "speaker", "presence"),
    "dynamics": ("compression", "soft_clip", "hard_clip"),
    "degradation": ("codec", "bit_depth", "stereo_comb"),
}

# Varispeed ratio (output frequency / input frequency) per class: instruments ±1.5 semitones,
# drums ±8 % tempo, speech ±3 semitones, noise ±20 %.
PITCH_RANGES = {label: (2 ** (-1.5 / 12), 2 ** (1.5 / 12)) for label in INSTRUMENTS}
PITCH_RANGES.update(drums=(0.92, 1.08), speech=(2 ** (-3 / 12), 2 ** (3 / 12)), noise=(0.8, 1.2))

PEAK_DB = (-45.0, 0.0)
SILENCE_PEAK_DB = -60.0
SILENCE_FLOOR_DB = -90.0  # the quietest noise floor silence has (digital zero apart)
SILENCE_GAIN_DB = (-10.0, 10.0)
BACKGROUND_DB = (-20.0, -10.0)
NOISE_FLOOR_SNR_DB = (10.0, 50.0)
RT60_SECONDS = (0.1, 2.5)
MAX_IR_SECONDS = 3.0
# Bass keeps its fundamentals: no high-pass above this and no telephone band.
BASS_MAX_LOW_CUT_HZ = 100.0

MIN_SAMPLES = SAMPLE_RATE // 10  # 0.1 s: shorter clips are refused
SPEED_OF_SOUND = 343.0
_EPS = 1e-12


def without(*names, settings=None):
    """`settings` (default AUGMENT_DEFAULTS) with the named stages or groups switched off."""
    out = dict(AUGMENT_DEFAULTS if settings is None else settings)
    for name in names:
        for key in _stage_names(name):
            out[key] = 0.0
    return out


def only(*names):
    """Every stage off but the named stages or groups (at their default probability)."""
    keep = {key for name in names for key in _stage_names(name)}
    return {key: (value if key in keep else 0.0) for key, value in AUGMENT_DEFAULTS.items()}


def _stage_names(name):
    if name in GROUPS:
        return GROUPS[name]
    if name in AUGMENT_DEFAULTS:
        return (name,)
    raise ValueError(f"augment: unknown stage {name!r}; stages: {', '.join(AUGMENT_DEFAULTS)}; "
                     f"groups: {', '.join(GROUPS)}")


def _checked_settings(settings):
    if settings is None:
        return dict(AUGMENT_DEFAULTS)
    unknown = sorted(set(settings) - set(AUGMENT_DEFAULTS))
    if unknown:
        raise ValueError(f"augment: unknown settings {unknown}; stages: {', '.join(AUGMENT_DEFAULTS)}")
    merged = {**AUGMENT_DEFAULTS, **settings}
    for key, value in merged.items():
        if not (isinstance(value, numbers.Real) and 0.0 <= float(value) <= 1.0):
            raise ValueError(f"augment: settings[{key!r}] = {value!r} is not a probability in [0, 1]")
    return merged


def _checked_audio(name, a, n=None):
    a = np.asarray(a)
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"augment: {name} must be a non-empty 1-D (mono) array, got shape {a.shape}")
    if n is not None and len(a) != n:
        raise ValueError(f"augment: {name} has {len(a)} samples, the clip {n}")
    a = a.astype(np.float64)
    if not np.all(np.isfinite(a)):
        raise ValueError(f"augment: {name} holds NaN or infinite samples")
    return a


def rms(x):
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64))))


def peak_normalise(x, peak_db):
    peak = np.abs(x).max()
    return x if peak < 1e-9 else x * (10 ** (peak_db / 20) / peak)


def _log_uniform(rng, low, high):
    return float(np.exp(rng.uniform(np.log(low), np.log(high))))


# --- 1. pitch and tempo, expression ---------------------------------------------------------------------

def fit_length(rng, y, n, fade=256):
    """`y` cropped at a random offset to `n` samples, or looped (with a short crossfade) up to `n`."""
    if len(y) >= n:
        start = int(rng.integers(0, len(y) - n + 1))
        return y[start:start + n]
    fade = max(1, min(fade, len(y) // 4))
    ramp = np.linspace(0.0, 1.0, fade)
    out = y
    while len(out) < n:
        joint = out[-fade:] * (1.0 - ramp) + y[:fade] * ramp
        out = np.concatenate([out[:-fade], joint, y[fade:]])
    return out[:n]


def varispeed(x, ratio):
    """Every frequency times `ratio`, duration divided by it (a tape or sampler played faster/slower),
    through libsoxr as the product resamples."""
    return resample(np.asarray(x, np.float32), SAMPLE_RATE, SAMPLE_RATE / ratio).astype(np.float64)


def random_pitch(rng, x, label):
    low, high = PITCH_RANGES[label]
    ratio = _log_uniform(rng, low, high)
    return fit_length(rng, varispeed(x, ratio), len(x))


def random_expression(rng, x):
    """A slow gain curve through 2…5 random points, ±2…8 dB."""
    points = int(rng.integers(2, 6))
    depth = rng.uniform(2.0, 8.0)
    curve_db = np.interp(np.arange(len(x)), np.linspace(0, len(x) - 1, points), rng.uniform(-depth, depth, points))
    return x * 10 ** (curve_db / 20)


def time_warp(x, ratio):
    """`x` read at a time-varying speed: `ratio[n]` (one per output sample) multiplies every frequency at
    output sample n. The input is upsampled 4x through libsoxr and read by linear interpolation; reading
    past the end goes on from the start (a ratio whose mean is about 1 keeps the content in order)."""
    up = 4
    fine = resample(np.asarray(x, np.float32), SAMPLE_RATE, up * SAMPLE_RATE).astype(np.float64)
    position = np.concatenate([[0.0], np.cumsum(ratio[:-1])]) * up
    return np.interp(position, np.arange(len(fine)), fine, period=len(fine))


# Vibrato (players', LFOs', an organ's tremulant) per class: rate range (Hz), depth range (cents).
VIBRATO = {"strings": (4.5, 7.0, 10.0, 50.0), "woodwind": (4.0, 6.5, 8.0, 35.0), "brass": (4.0, 6.5, 8.0, 35.0),
           "synth": (0.5, 8.0, 5.0, 60.0), "organ": (5.0, 7.0, 5.0, 25.0), "guitar": (4.0, 7.0, 5.0, 30.0)}


def vibrato_ratio(n, rate_hz, depth_cents, onset_s=0.0, phase=0.0, ramp_s=0.3):
    """Per-sample speed ratio of a vibrato: a sine of `depth_cents` at `rate_hz`, fading in over `ramp_s`
    after `onset_s`."""
    t = np.arange(n) / SAMPLE_RATE
    fade = np.clip((t - onset_s) / ramp_s, 0.0, 1.0)
    return 2 ** (depth_cents * fade * np.sin(2 * np.pi * rate_hz * t + phase) / 1200)


def random_vibrato(rng, x, label):
    """Vibrato with its amplitude modulation (a resonance swept by the pitch: 0…2 dB)."""
    low_rate, high_rate, low_depth, high_depth = VIBRATO[label]
    rate = rng.uniform(low_rate, high_rate)
    ratio = vibrato_ratio(len(x), rate, rng.uniform(low_depth, high_depth), rng.uniform(0.0, 0.5),
                          rng.uniform(0, 2 * np.pi), rng.uniform(0.05, 0.5))
    tremolo_db = rng.uniform(0.0, 2.0) * np.log2(ratio) / max(float(np.abs(np.log2(ratio)).max()), _EPS)
    return time_warp(x, ratio) * 10 ** (tremolo_db / 20)


def doppler_ratio(n, speed, closest_s, passing_s):
    """Speed ratio of a source passing the microphone at `speed` m/s, closest at `closest_s`; `passing_s`
    sets how long the pass takes (closest distance over speed)."""
    t = (np.arange(n) / SAMPLE_RATE - closest_s) / passing_s
    radial = speed * t / np.sqrt(1 + t ** 2)  # m/s away from the microphone
    return 1.0 / (1.0 + radial / SPEED_OF_SOUND)


def random_doppler(rng, x):
    """A noise source driving past (a car, a scooter, a drone): pitch falls through the pass, the level
    rises to the closest point and falls after it."""
    speed = rng.uniform(5.0, 30.0)
    closest = rng.uniform(0.2, 0.8) * len(x) / SAMPLE_RATE
    passing = rng.uniform(0.2, 1.5)
    y = time_warp(x, doppler_ratio(len(x), speed, closest, passing))
    t = (np.arange(len(x)) / SAMPLE_RATE - closest) / passing
    return y / np.sqrt(1 + t ** 2)


# --- 2. background, 5. noise floor ----------------------------------------------------------------------

def mix_at(x, other, db):
    """`x` plus `other` scaled to `db` (RMS) relative to `x`; `x` alone when either is silent."""
    source, level = rms(x), rms(other)
    if source == 0 or level == 0:
        return x
    return x + other * (source / level * 10 ** (db / 20))


# --- 3. rooms -------------------------------------------------------------------------------------------

# Octave bands of the diffuse tail (Hz edges) and how their RT60 relates to the room's mid-band RT60
# (500 Hz and 1 kHz: the RT60 asked for): lows a little longer, highs shorter (air and wall absorption).
_BAND_EDGES = np.array([0.0, 177.0, 354.0, 707.0, 1414.0, 2828.0, 5657.0, SAMPLE_RATE / 2 + 1])
_BAND_RT60_FACTORS = ((1.0, 1.4), (1.0, 1.2), (1.0, 1.0), (1.0, 1.0), (0.7, 0.95), (0.45, 0.8), (0.2, 0.6))


def _draw_band_factors(rng):
    factors = [rng.uniform(low, high) for low, high in _BAND_RT60_FACTORS]
    for k in range(4, len(factors)):  # above 1 kHz every band decays at least as fast as the one below
        factors[k] = min(factors[k], factors[k - 1])
    return np.array(factors)


def _early_reflections(rng, rt60):
    """Image sources of a random shoebox room up to 3rd order within 80 ms of the direct sound: delays
    (samples after the direct sound), amplitudes relative to it, orders."""
    size = _log_uniform(rng, 2.5, 25.0)
    dims = np.array([size * rng.uniform(1.0, 1.6), size * rng.uniform(0.6, 1.1),
                     min(rng.uniform(2.4, 3.5) + 0.25 * size, 15.0)])
    volume = float(np.prod(dims))
    surface = 2 * float(dims[0] * dims[1] + dims[0] * dims[2] + dims[1] * dims[2])
    absorption = np.clip(0.161 * volume / (surface * rt60), 0.02, 0.95)  # Sabine
    beta = np.sqrt(1 - absorption)
    margin = 0.3
    source = rng.uniform(margin, dims - margin)
    mic = rng.uniform(margin, dims - margin)
    n = np.arange(-2, 3)
    positions, orders = [], []
    for axis in range(3):  # per axis: images at 2nL + s (|2n| reflections) and 2nL - s (|2n - 1|)
        positions.append(np.concatenate([2 * n * dims[axis] + source[axis], 2 * n * dims[axis] - source[axis]]))
        orders.append(np.concatenate([np.abs(2 * n), np.abs(2 * n - 1)]))
    px, py, pz = np.meshgrid(*positions, indexing="ij")
    ox, oy, oz = np.meshgrid(*orders, indexing="ij")
    distance = np.sqrt((px - mic[0]) ** 2 + (py - mic[1]) ** 2 + (pz - mic[2]) ** 2).ravel()
    order = (ox + oy + oz).ravel()
    distance = np.maximum(distance, 0.1)
    direct = distance[order == 0][0]
    delay = (distance - direct) / SPEED_OF_SOUND * SAMPLE_RATE
    keep = (order > 0) & (order <= 3) & (delay < 0.08 * SAMPLE_RATE)
    amplitude = beta ** order[keep] * direct / distance[keep] * rng.uniform(0.7, 1.0, keep.sum())
    return np.round(delay[keep]).astype(np.int64), amplitude, order[keep]


def room_impulse_response(rng, rt60=None, drr_db=None):
    """A room's impulse response at 16 kHz, direct sound at sample 0 (amplitude 1).

    Early reflections: image sources of a random shoebox room (3…25 m, absorption from Sabine's formula
    for `rt60`), each wall bounce dulling the sound a little more. Diffuse tail: octave bands of noise,
    each decaying exponentially at its own RT60 (`rt60` at 500 Hz-1 kHz, shorter above, a little longer
    below), after a predelay and a build-up. `drr_db`: direct-to-reverberant energy ratio (-8 far …
    +16 dB close microphone). Both drawn when not given."""
    rt60 = _log_uniform(rng, *RT60_SECONDS) if rt60 is None else float(rt60)
    drr_db = rng.uniform(-8.0, 16.0) if drr_db is None else float(drr_db)
    factors = _draw_band_factors(rng)
    delays, amplitudes, orders = _early_reflections(rng, rt60)

    first = int(delays.min()) if len(delays) else 0
    onset = first + int(rng.uniform(0.0, 0.02) * SAMPLE_RATE)  # predelay of the diffuse tail
    length = min(int(onset + rt60 * factors.max() * SAMPLE_RATE) + 1, int(MAX_IR_SECONDS * SAMPLE_RATE))
    length = max(length, onset + 64, int(delays.max()) + 1 if len(delays) else 1)

    early = np.zeros(length)
    cutoff = rng.uniform(3000.0, 7000.0)  # the walls' dulling per bounce: a one-pole low-pass per order
    for order in range(1, 4):
        taps = np.zeros(length)
        mask = orders == order
        np.add.at(taps, delays[mask], amplitudes[mask])
        pole = np.exp(-2 * np.pi * cutoff / order / SAMPLE_RATE)
        early += sps.lfilter([1 - pole], [1, -pole], taps)

    spectrum = np.fft.rfft(rng.standard_normal(length))
    freqs = np.fft.rfftfreq(length, 1 / SAMPLE_RATE)
    t = np.maximum(np.arange(length) - onset, 0) / SAMPLE_RATE
    tail = np.zeros(length)
    for band, factor in enumerate(factors):
        mask = (freqs >= _BAND_EDGES[band]) & (freqs < _BAND_EDGES[band + 1])
        tail += np.fft.irfft(spectrum * mask, length) * np.exp(-6.9078 * t / (rt60 * factor))
    build_up = rng.uniform(0.003, 0.02)
    tail *= (np.arange(length) >= onset) * (1 - np.exp(-t / build_up))

    # Early and tail energy in a random proportion, together at the direct-to-reverberant ratio asked for.
    early_share = rng.uniform(0.1, 0.5)
    early *= np.sqrt(early_share / (np.sum(early ** 2) + _EPS))
    tail *= np.sqrt((1 - early_share) / (np.sum(tail ** 2) + _EPS))
    ir = (early + tail) * 10 ** (-drr_db / 20)
    ir[0] += 1.0
    return ir


def apply_room(x, ir):
    """`x` convolved with `ir`, cut to the length of `x`, at the RMS of `x`."""
    wet = sps.fftconvolve(x, ir)[: len(x)]
    return wet * (rms(x) / (rms(wet) + _EPS))


def stereo_comb(rng, x):
    """A stereo pair summed to mono: the second channel 1…40 samples later, 0.5…1 as loud."""
    shift = int(rng.integers(1, 41))
    gain = rng.uniform(0.5, 1.0)
    delayed = np.concatenate([np.zeros(shift), x[:-shift]])
    return (x + gain * delayed) / (1 + gain)


# --- 4. coloration --------------------------------------------------------------------------------------

def _biquad(kind, f0, gain_db, q):
    """One RBJ-cookbook section as an sos row."""
    a = 10 ** (gain_db / 40)
    w0 = 2 * np.pi * f0 / SAMPLE_RATE
    cos, alpha = np.cos(w0), np.sin(w0) / (2 * q)
    if kind == "peak":
        b = [1 + alpha * a, -2 * cos, 1 - alpha * a]
        d = [1 + alpha / a, -2 * cos, 1 - alpha / a]
    else:
        sq = 2 * np.sqrt(a) * alpha
        sign = 1 if kind == "low" else -1
        b = [a * ((a + 1) - sign * (a - 1) * cos + sq), sign * 2 * a * ((a - 1) - sign * (a + 1) * cos),
             a * ((a + 1) - sign * (a - 1) * cos - sq)]
        d = [(a + 1) + sign * (a - 1) * cos + sq, -sign * 2 * ((a - 1) + sign * (a + 1) * cos),
             (a + 1) + sign * (a - 1) * cos - sq]
    return np.concatenate([b, d]) / d[0]


def random_eq_sections(rng):
    sections = []
    for _ in range(int(rng.integers(1, 5))):
        kind = rng.choice(["peak", "peak", "peak", "low", "high"])
        gain = rng.uniform(-12.0, 12.0)
        if kind == "peak":
            sections.append(_biquad("peak", _log_uniform(rng, 60.0, 7000.0), gain, _log_uniform(rng, 0.4, 4.0)))
        elif kind == "low":
            sections.append(_biquad("low", _log_uniform(rng, 60.0, 400.0), gain, 0.707))
        else:
            sections.append(_biquad("high", _log_uniform(rng, 1500.0, 6000.0), gain, 0.707))
    return sections


def high_pass(cutoff, order):
    return sps.butter(order, cutoff, "highpass", fs=SAMPLE_RATE, output="sos")


def low_pass(cutoff, order):
    return sps.butter(order, cutoff, "lowpass", fs=SAMPLE_RATE, output="sos")


def through_rate(x, rate):
    """`x` recorded at `rate` (the resampler's steep low-pass just under rate / 2), back at 16 kHz."""
    y = resample(resample(np.asarray(x, np.float32), SAMPLE_RATE, rate), rate, SAMPLE_RATE)
    return np.pad(y, (0, max(0, len(x) - len(y))))[: len(x)].astype(np.float64)


def phone_band(x):
    """A telephone line: 300-3400 Hz (8th-order high-pass, 8 kHz sampling, 4th-order low-pass)."""
    y = sps.sosfilt(np.vstack([high_pass(300.0, 8), low_pass(3400.0, 4)]), x)
    return through_rate(y, 8000)


def coloration(rng, x, label, settings):
    sections = []
    max_low_cut = BASS_MAX_LOW_CUT_HZ if label == "bass" else 300.0
    if rng.random() < settings["eq"]:
        sections += random_eq_sections(rng)
    if rng.random() < settings["low_cut"]:
        sections += list(high_pass(_log_uniform(rng, 40.0, max_low_cut), int(rng.choice([1, 2, 4]))))
    if rng.random() < settings["speaker"]:  # a small speaker or laptop microphone
        sections += list(high_pass(min(_log_uniform(rng, 150.0, 400.0), max_low_cut), 2))
        for _ in range(int(rng.integers(1, 3))):
            sections.append(_biquad("peak", _log_uniform(rng, 500.0, 3000.0), rng.uniform(4.0, 12.0),
                                    rng.uniform(2.0, 8.0)))
        sections += list(low_pass(rng.uniform(5000.0, 7500.0), 2))
    if rng.random() < settings["presence"]:  # a cheap microphone's presence peak
        sections.append(_biquad("peak", _log_uniform(rng, 2000.0, 6000.0), rng.uniform(3.0, 8.0),
                                rng.uniform(0.7, 2.0)))
    if sections:
        x = sps.sosfilt(np.vstack(sections), x)
    if rng.random() < settings["band_limit"]:
        if rng.random() < 0.5:
            x = through_rate(x, int(rng.integers(7000, 15001)))
        else:
            x = sps.sosfilt(low_pass(_log_uniform(rng, 3000.0, 7500.0), int(rng.choice([2, 4, 6]))), x)
    if label != "bass" and rng.random() < settings["phone"]:
        x = phone_band(x)
    return x


# --- 6. dynamics ----------------------------------------------------------------------------------------

def compress(x, ratio, threshold_db, attack_s=0.005, release_s=0.15):
    """A feed-forward look-ahead RMS compressor: the level (power smoothed over `attack_s`) above
    `threshold_db` (dBFS) is divided by `ratio`; the gain reduction follows a rise at once and recovers by
    10 dB per `release_s`, is smoothed over `attack_s` and applied 3 `attack_s` early. No make-up gain."""
    attack = np.exp(-1 / (max(attack_s, 1e-4) * SAMPLE_RATE))
    power = sps.lfilter([1 - attack], [1, -attack], np.square(x))
    level_db = 10 * np.log10(np.maximum(power, _EPS))
    reduction = np.maximum(level_db - threshold_db, 0.0) * (1 - 1 / ratio)
    # Peak hold with a linear-in-dB release: held[n] = max over k <= n of reduction[k] - (n - k) * rate.
    rate = 10.0 / (release_s * SAMPLE_RATE)
    ramp = np.arange(len(x)) * rate
    held = np.maximum.accumulate(reduction + ramp) - ramp
    held = sps.lfilter([1 - attack], [1, -attack], held)
    # Look-ahead of three attack time constants: the gain is down when a transient arrives.
    ahead = min(int(3 * attack_s * SAMPLE_RATE), len(x) - 1)
    held = np.concatenate([held[ahead:], np.full(ahead, held[-1])])
    return x * 10 ** (-held / 20)


def random_compression(rng, x):
    attack = rng.uniform(0.001, 0.03)
    power = sps.lfilter([1 - np.exp(-1 / (attack * SAMPLE_RATE))], [1, -np.exp(-1 / (attack * SAMPLE_RATE))],
                        np.square(x))
    loudest_db = 10 * np.log10(max(float(power.max()), _EPS))
    return compress(x, _log_uniform(rng, 2.0, 10.0), loudest_db - rng.uniform(6.0, 24.0), attack,
                    _log_uniform(rng, 0.04, 0.6))


def soft_clip(rng, x):
    peak = np.abs(x).max()
    if peak < _EPS:
        return x
    drive = 10 ** (rng.uniform(3.0, 20.0) / 20)
    if rng.random() < 0.5:
        return np.tanh(drive * x / peak) / np.tanh(drive) * peak
    return np.arctan(drive * x / peak) / np.arctan(drive) * peak


def hard_clip(rng, x):
    limit = np.abs(x).max() * 10 ** (-rng.uniform(1.0, 12.0) / 20)
    return np.clip(x, -limit, limit)


# --- 7. degradation -------------------------------------------------------------------------------------

def codec(rng, x):
    """A lossy coder at a low bit rate: a band limit of 4.5…7.5 kHz and the spectral lines more than
    30…60 dB under their frame's strongest dropped (512-point STFT)."""
    if len(x) < 512:
        return x
    _, _, spec = sps.stft(x, nperseg=512, noverlap=256)
    freqs = np.fft.rfftfreq(512, 1 / SAMPLE_RATE)
    magnitude = np.abs(spec)
    floor = magnitude.max(axis=0, keepdims=True) * 10 ** (-rng.uniform(30.0, 60.0) / 20)
    spec = spec * (magnitude >= floor) * (freqs < rng.uniform(4500.0, 7500.0))[:, None]
    _, y = sps.istft(spec, nperseg=512, noverlap=256)
    return np.pad(y, (0, max(0, len(x) - len(y))))[: len(x)]


def reduce_bit_depth(rng, x):
    """8- or 12-bit quantisation with full scale at the clip's peak (a low-resolution recording)."""
    peak = np.abs(x).max()
    if peak < _EPS:
        return x
    step = peak / 2 ** (int(rng.choice([8, 12])) - 1)
    return np.round(x / step) * step


# --- the entry point ------------------------------------------------------------------------------------

def augment(rng, x, label, background=None, noise_floor=None, settings=AUGMENT_DEFAULTS):
    """`x` (mono, 16 kHz) as if recorded somewhere else: a float32 array of the same length in [-1, 1].

    `label`: the class of `x`. `background`: a clip of another class (same length), mixed under the source
    at -20…-10 dB RMS. `noise_floor`: unit-RMS noise (same length), added 10…50 dB under the source.
    Neither is used for "silence" or "noise". `settings`: probabilities per stage (missing keys take the
    defaults). A source with no signal at all comes back as zeros."""
    if label not in CLASSES:
        raise ValueError(f"augment: unknown label {label!r}; classes: {', '.join(CLASSES)}")
    settings = _checked_settings(settings)
    x = _checked_audio("x", x)
    n = len(x)
    if n < MIN_SAMPLES:
        raise ValueError(f"augment: x has {n} samples; at least {MIN_SAMPLES} ({MIN_SAMPLES / SAMPLE_RATE:g} s) needed")
    if background is not None:
        background = _checked_audio("background", background, n)
    if noise_floor is not None:
        noise_floor = _checked_audio("noise_floor", noise_floor, n)

    if label == "silence":
        return _silence_level(rng, x)
    peak = np.abs(x).max()
    if peak == 0:
        return np.zeros(n, np.float32)
    x = x / peak  # every stage below is relative to the clip's own level


    if rng.random() < settings["pitch"]:
        x = random_pitch(rng, x, label)
    if label in VIBRATO and rng.random() < settings["vibrato"]:
        x = random_vibrato(rng, x, label)
    if label == "noise" and rng.random() < settings["doppler"]:
        x = random_doppler(rng, x)
    if rng.random() < settings["expression"]:
        x = random_expression(rng, x)
    if background is not None and label != "noise" and rng.random() < settings["background"]:
        x = mix_at(x, background, rng.uniform(*BACKGROUND_DB))
    if rng.random() < settings["rooms"]:
        x = apply_room(x, room_impulse_response(rng))
    if rng.random() < settings["stereo_comb"]:
        x = stereo_comb(rng, x)
    x = coloration(rng, x, label, settings)
    if noise_floor is not None and label != "noise" and rng.random() < settings["noise_floor"]:
        x = mix_at(x, noise_floor, -rng.uniform(*NOISE_FLOOR_SNR_DB))
    if rng.random() < settings["compression"]:
        x = random_compression(rng, x)
    if rng.random() < settings["soft_clip"]:
        x = soft_clip(rng, x)
    if rng.random() < settings["hard_clip"]:
        x = hard_clip(rng, x)
    if rng.random() < settings["codec"]:
        x = codec(rng, x)
    if rng.random() < settings["bit_depth"]:
        x = reduce_bit_depth(rng, x)
    peak = np.abs(x).max()
    if peak == 0:
        return np.zeros(n, np.float32)
    x = x * (10 ** (rng.uniform(*PEAK_DB) / 20) / peak)
    return np.clip(x, -1.0, 1.0).astype(np.float32)


def _silence_level(rng, x):
    """A level change of -10…+10 dB that leaves the peak within SILENCE_FLOOR_DB…SILENCE_PEAK_DB."""
    peak = np.abs(x).max()
    if peak == 0:
        return x.astype(np.float32)
    # The ceiling a hair under SILENCE_PEAK_DB, so float32 rounding cannot lift the peak over it.
    peak_db = min(max(20 * np.log10(peak) + rng.uniform(*SILENCE_GAIN_DB), SILENCE_FLOOR_DB), SILENCE_PEAK_DB - 0.001)
    return (x * (10 ** (peak_db / 20) / peak)).astype(np.float32)
