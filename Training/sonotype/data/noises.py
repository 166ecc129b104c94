"""Noise and silence by level and structure: stationary coloured noise, mains hum and electrical buzz,
fans with blade-pass tones, engines, passing cars (Doppler), 3D-printer steppers, traffic, rain, wind,
water, crowd murmur (many espeak-ng voices at once), applause, HVAC, room tone, vinyl crackle. Every
kind draws its own parameters from the `rng` passed in.

    noise_clip(rng, seconds, kind=None) -> float32 at SAMPLE_RATE, peak about -1 dBFS (the caller sets
        the level); `kind` forces one of NOISE_KINDS
    noise_floor(rng, n, kind=None) -> float32, unit RMS: a background floor (FLOOR_KINDS by default)
    silence_clip(rng, seconds) -> float32: digital zero, or a floor whose peak is -90...-60 dBFS
"""

import os
import subprocess
import tempfile

import numpy as np
from scipy import signal as sps
from scipy.io import wavfile

from . import SAMPLE_RATE
from .resample import resample
from .sources import HELDOUT_LANGUAGES, espeak_listing, heldout_variants
from .signals import (NYQUIST, coloured, decaying_noise_ir, filt, peak_normalise, pulse, resonator_bank, saw, smooth_curve,
                      tv_filter)

SR = SAMPLE_RATE
SPEED_OF_SOUND = 343.0


def _unit(x):
    return x / (np.sqrt(np.mean(x ** 2)) + 1e-12)


def _tones(freq_curve, harmonics, amps, phases=None):
    """Sum of harmonics `harmonics` (multipliers, may be fractional) of a frequency curve (Hz per
    sample), harmonics above Nyquist left out."""
    phase = 2 * np.pi * np.cumsum(freq_curve) / SR
    top = float(np.max(freq_curve))
    out = np.zeros(len(freq_curve))
    for k, (h, a) in enumerate(zip(harmonics, amps)):
        if h * top < NYQUIST * 0.95:
            out += a * np.sin(h * phase + (0.0 if phases is None else phases[k]))
    return out


def _events(rng, n, rate_curve):
    """Impulse positions of a Poisson process whose rate (events per second) follows `rate_curve`."""
    return np.flatnonzero(rng.random(n) < np.asarray(rate_curve) / SR)


def _scatter(rng, n, positions, kernels, amplitudes):
    """Kernels placed at `positions` (each event gets a random one of `kernels`), by one FFT convolution
    per kernel."""
    out = np.zeros(n)
    choice = rng.integers(0, len(kernels), len(positions))
    for k, kernel in enumerate(kernels):
        mine = choice == k
        if not mine.any():
            continue
        impulses = np.zeros(n)
        np.add.at(impulses, positions[mine], amplitudes[mine])
        out += sps.fftconvolve(impulses, kernel)[:n]
    return out


# ---------------------------------------------------------------------------------------------- kinds
def hiss(rng, n, exponent=None):
    """Stationary coloured noise: blue (-1), white (0), pink (1), brown (2) or in between, sometimes band-limited."""
    exponent = rng.uniform(-1.0, 2.0) if exponent is None else exponent
    x = coloured(rng, n, exponent)
    if rng.random() < 0.3:
        x = filt(x, str(rng.choice(["low", "high"])), rng.uniform(300, 6000))
    return x


def hum(rng, n, mains=None):
    """Mains hum: the mains frequency (50 or 60 Hz, a little off) and its harmonics, with a faint hiss."""
    mains = float(rng.choice([50.0, 60.0])) if mains is None else mains
    freq = mains * (1 + rng.uniform(-0.003, 0.003)) + 0.05 * smooth_curve(rng, n, 0.5, -1, 1)
    harmonics = np.arange(1, 11)
    amps = rng.uniform(0.05, 1.0, 10) / harmonics ** rng.uniform(0.3, 1.5)
    amps[0] = 1.0
    if rng.random() < 0.3:
        amps[1::2] *= rng.uniform(0.05, 0.3)  # odd harmonics (transformer saturation)
    x = _tones(freq, harmonics, amps, rng.uniform(0, 2 * np.pi, 10))
    return x + rng.uniform(0.005, 0.05) * coloured(rng, n, 1.0)


def buzz(rng, n, mains=None):
    """Electrical buzz: a square-ish or pulse wave at the mains frequency or twice it (rectifiers,
    dimmers, ground loops), band-limited, sometimes switching on and off."""
    mains = float(rng.choice([50.0, 60.0])) if mains is None else mains
    freq = mains * float(rng.choice([1, 2])) * np.ones(n)
    width = float(rng.choice([0.5, rng.uniform(0.05, 0.3)]))
    x = pulse(freq, width, rng.uniform()) if rng.random() < 0.7 else saw(freq, rng.uniform())
    x = filt(x, "high", rng.uniform(60, 400))
    x = filt(x, "low", rng.uniform(2000, 7000))
    if rng.random() < 0.3:
        x *= smooth_curve(rng, n, rng.uniform(1, 6), 0, 1) > 0.4
    return x + 0.02 * coloured(rng, n, 0.0)


def fan(rng, n, blades=None, rpm=None):
    """A fan: a tone at the blade-pass frequency blades * rpm / 60 and its harmonics over broadband air
    noise, with a slow speed wobble."""
    blades = int(rng.integers(3, 10)) if blades is None else blades
    rpm = rng.uniform(600, 3000) if rpm is None else rpm
    speed = rpm / 60 * (1 + rng.uniform(0.003, 0.02) * smooth_curve(rng, n, rng.uniform(0.1, 0.5), -1, 1))
    harmonics = np.arange(1, 6)
    tone = _tones(blades * speed, harmonics, rng.uniform(0.2, 1.0, 5) / harmonics, rng.uniform(0, 6, 5))
    tone += rng.uniform(0.0, 0.3) * np.sin(2 * np.pi * np.cumsum(speed) / SR)  # imbalance at the shaft rate
    air = filt(coloured(rng, n, rng.uniform(0.5, 1.5)), "low", rng.uniform(800, 4000))
    return _unit(tone) * rng.uniform(0.3, 1.0) + air * rng.uniform(0.2, 0.8)


def _engine_source(rng, n, rpm_curve, cylinders=None, orders=24):
    """An engine's sound: `orders` firing-frequency harmonics (and half orders) plus exhaust noise pulsing
    at the firing rate."""
    cylinders = int(rng.choice([2, 3, 4, 4, 6, 8])) if cylinders is None else cylinders
    firing = rpm_curve / 60 * cylinders / 2
    half = orders // 2
    harmonics = np.concatenate([np.arange(1, orders + 1), np.arange(1, half + 1) - 0.5])
    amps = np.concatenate([rng.uniform(0.2, 1.0, orders) / np.arange(1, orders + 1) ** rng.uniform(0.5, 1.2), rng.uniform(0, 0.3, half)])
    x = _tones(firing, harmonics, amps, rng.uniform(0, 6, len(harmonics)))
    pulses = 1 + 0.8 * np.sin(2 * np.pi * np.cumsum(firing) / SR)
    noise = filt(coloured(rng, n, 1.0), "low", rng.uniform(500, 2500)) * pulses
    x = _unit(x) + rng.uniform(0.2, 1.0) * _unit(noise)
    return filt(x, "low", rng.uniform(1500, 5000))


def engine(rng, n):
    """An engine or motor: idling, revving, or pulling through the gears."""
    t = np.arange(n) / SR
    style = rng.integers(0, 3)
    idle = rng.uniform(600, 1200)
    if style == 0:
        rpm = idle * (1 + 0.02 * smooth_curve(rng, n, 3.0, -1, 1))
    elif style == 1:
        rpm = idle + smooth_curve(rng, n, rng.uniform(0.5, 2.0), 0, 1) ** 2 * rng.uniform(1500, 4500)
    else:
        shift = rng.uniform(0.8, 2.0)
        rpm = idle + (np.mod(t + rng.uniform(0, shift), shift) / shift) * rng.uniform(2000, 4000)
    return _engine_source(rng, n, rpm)


def _pass_by(rng, n, source, t0, distance, speed):
    """`source` (longer than n) heard from the roadside as it passes at `speed` m/s, closest at t0 s and
    `distance` m: the propagation delay gives the Doppler sweep, 1/r the level swell."""
    t = np.arange(n) / SR
    r = np.sqrt((speed * (t - t0)) ** 2 + distance ** 2)
    lag = len(source) - n  # samples of source before t = 0
    position = np.arange(n) + lag - r / SPEED_OF_SOUND * SR
    heard = np.interp(position, np.arange(len(source)), source, left=0.0, right=0.0)
    return heard * (distance / r)


def _vehicle(rng, n, t0, distance, speed):
    maxlag = int(np.sqrt((speed * max(abs(t0), abs(n / SR - t0)) + 1) ** 2 + distance ** 2) / SPEED_OF_SOUND * SR) + 16
    total = n + maxlag
    gear_rpm = rng.uniform(1500, 4000) * (1 + 0.05 * smooth_curve(rng, total, 0.5, -1, 1))
    engine_sound = _engine_source(rng, total, gear_rpm, orders=10)
    tyres = filt(coloured(rng, total, 1.0), "band", rng.uniform(600, 1500), 0.5)
    source = rng.uniform(0.2, 1.0) * _unit(engine_sound) + rng.uniform(0.3, 1.0) * (speed / 20) * _unit(tyres)
    return _pass_by(rng, n, source, t0, distance, speed)


def car_pass(rng, n):
    """One car passing: engine and tyre noise with a Doppler sweep and a level swell."""
    return _vehicle(rng, n, rng.uniform(0.3, 0.7) * n / SR, rng.uniform(2, 15), rng.uniform(8, 30))


def traffic(rng, n, far=False):
    """Several vehicles passing at their own times, distances and speeds over a distant rumble."""
    seconds = n / SR
    x = np.zeros(n)
    for _ in range(int(rng.integers(3, 9))):
        x += _vehicle(rng, n, rng.uniform(-2, seconds + 2), rng.uniform(5, 60) * (3 if far else 1), rng.uniform(8, 30))
    rumble = filt(coloured(rng, n, 2.0), "low", rng.uniform(150, 500))
    x = _unit(x) * rng.uniform(0.3, 1.0) + rumble * rng.uniform(0.2, 1.0)
    return filt(x, "low", rng.uniform(400, 900)) if far else x


def stepper(rng, n):
    """A 3D printer or plotter: stepper whine at the step rate, changing in steps with every move, short
    pauses between moves, over a small cooling fan."""
    freq = np.zeros(n)
    gate = np.zeros(n)
    i = 0
    while i < n:
        move = int(rng.uniform(0.08, 0.8) * SR)
        freq[i:i + move] = rng.uniform(150, 2500)
        ramp = np.minimum(1, np.minimum(np.arange(move), move - np.arange(move)) / (0.005 * SR))
        gate[i:i + move] = ramp[: len(gate[i:i + move])] * rng.uniform(0.4, 1.0)
        i += move + (int(rng.uniform(0, 0.1) * SR) if rng.random() < 0.4 else 0)
    harmonics = np.arange(1, 7)
    whine = _tones(np.maximum(freq, 1.0), harmonics, rng.uniform(0.1, 1.0, 6) / harmonics) * gate
    return _unit(whine) + rng.uniform(0.05, 0.4) * _unit(fan(rng, n))


def rain(rng, n):
    """Rain: many drops (short filtered clicks and small bubbles) at a density that drifts, over hiss."""
    rate = rng.uniform(50, 3000) * smooth_curve(rng, n, rng.uniform(0.2, 1.0), 0.4, 1.0)
    positions = _events(rng, n, rate)
    kernels = []
    for _ in range(6):
        length = int(rng.uniform(0.002, 0.02) * SR)
        k = np.arange(length)
        if rng.random() < 0.6:  # a click off a surface
            kernel = filt(rng.standard_normal(length), "band", rng.uniform(800, 6000), rng.uniform(0.5, 2)) * np.exp(-k / (length / 4))
        else:  # a bubble ringing and rising
            f = rng.uniform(1000, 4000)
            kernel = np.sin(2 * np.pi * f * (1 + k / length * rng.uniform(0, 0.5)) * k / SR) * np.exp(-k / (length / 3))
        kernels.append(kernel)
    amplitudes = rng.lognormal(0, 0.8, len(positions))
    x = _scatter(rng, n, positions, kernels, amplitudes)
    x = _unit(x) + rng.uniform(0.1, 0.6) * filt(coloured(rng, n, 0.5), "low", rng.uniform(2000, 7000))
    return filt(x, "low", rng.uniform(2500, 7500)) if rng.random() < 0.4 else x


def water(rng, n):
    """A stream: dense bubbles rising in pitch over band-passed noise that flickers."""
    positions = _events(rng, n, rng.uniform(200, 2000) * np.ones(n))
    kernels = []
    for _ in range(8):
        length = int(rng.uniform(0.005, 0.03) * SR)
        k = np.arange(length)
        f = rng.uniform(300, 3000)
        chirp = f * (1 + k / length * rng.uniform(0.1, 1.0))
        kernels.append(np.sin(2 * np.pi * np.cumsum(chirp) / SR) * np.exp(-k / (length / 3)))
    x = _scatter(rng, n, positions, kernels, rng.lognormal(0, 0.6, len(positions)))
    flow = filt(coloured(rng, n, 1.0), "band", rng.uniform(300, 1500), 0.5) * smooth_curve(rng, n, rng.uniform(5, 20), 0.5, 1.0)
    return _unit(x) + rng.uniform(0.3, 1.0) * _unit(flow)


def wind(rng, n):
    """Wind: low-passed noise whose brightness and level follow slow gusts, sometimes a whistle."""
    gust = smooth_curve(rng, n, rng.uniform(0.2, 1.2), 0.1, 1.0)
    x = tv_filter(coloured(rng, n, rng.uniform(0.5, 1.5)), "low", 150 + gust * rng.uniform(300, 1500), q=rng.uniform(0.5, 1.5), block=256)
    x = filt(x, "high", rng.uniform(30, 80))
    x *= gust ** rng.uniform(0.8, 2.0)
    if rng.random() < 0.3:
        whistle = tv_filter(rng.standard_normal(n), "band", rng.uniform(400, 1200) * (0.8 + 0.4 * gust), q=rng.uniform(10, 30), block=256)
        x = _unit(x) + rng.uniform(0.1, 0.5) * _unit(whistle) * gust
    return x


def hvac(rng, n):
    """Air conditioning / ventilation: rumble and air noise with duct resonances and a faint blade tone."""
    air = filt(coloured(rng, n, rng.uniform(1.0, 2.0)), "low", rng.uniform(300, 1500))
    ducts = resonator_bank(air, rng.uniform(60, 400, 3), rng.uniform(5, 15, 3), rng.uniform(0.5, 2.0, 3))
    air = filt(air, "high", rng.uniform(25, 60))
    x = _unit(air) + rng.uniform(0.2, 0.8) * _unit(ducts) + rng.uniform(0.0, 0.4) * _unit(fan(rng, n, rpm=rng.uniform(300, 1200)))
    return x * (1 + 0.05 * smooth_curve(rng, n, 0.3, -1, 1))


def room_tone(rng, n):
    """An empty room: soft pink air noise, a low rumble and now and then a faint hum."""
    x = filt(coloured(rng, n, 1.0), "low", rng.uniform(2000, 6000)) + rng.uniform(0.3, 1.5) * filt(coloured(rng, n, 2.0), "low", 120)
    if rng.random() < 0.4:
        x += rng.uniform(0.05, 0.3) * _unit(hum(rng, n))
    return x


def vinyl(rng, n):
    """A record's surface: crackle, occasional pops, band-limited hiss and turntable rumble."""
    crackle = _events(rng, n, rng.uniform(100, 1500) * np.ones(n))
    pops = _events(rng, n, rng.uniform(0.5, 8) * np.ones(n))
    kernels = [filt(rng.standard_normal(int(rng.uniform(2, 10))), "high", rng.uniform(1000, 4000)) for _ in range(4)]
    x = _scatter(rng, n, crackle, kernels, rng.lognormal(-1.0, 0.8, len(crackle)))
    pop_kernels = [filt(rng.standard_normal(int(rng.uniform(0.002, 0.01) * SR)), "low", rng.uniform(800, 3000)) for _ in range(3)]
    x += _scatter(rng, n, pops, pop_kernels, rng.uniform(3, 10, len(pops)))
    hiss_ = filt(coloured(rng, n, 0.5), "band", rng.uniform(1500, 4000), 0.5)
    rumble = filt(coloured(rng, n, 2.0), "low", 40) * (1 + 0.5 * np.sin(2 * np.pi * 0.555 * np.arange(n) / SR))
    return _unit(x) + rng.uniform(0.1, 0.5) * hiss_ + rng.uniform(0.1, 0.5) * _unit(rumble)


def applause(rng, n):
    """Applause: many people clapping, each at their own rate and hand sound."""
    people = int(rng.integers(15, 150))
    groups = 8
    kernels = []
    for _ in range(groups):
        length = int(rng.uniform(0.005, 0.015) * SR)
        hands = filt(rng.standard_normal(length), "band", rng.uniform(700, 3000), rng.uniform(0.8, 3))
        kernels.append(hands * np.exp(-np.arange(length) / (length / 3)))
    impulses = [np.zeros(n) for _ in range(groups)]
    for _ in range(people):
        period = 1 / rng.uniform(2, 6)
        claps = int(n / SR / period) + 2
        times = rng.uniform(0, period) + np.concatenate([[0.0], np.cumsum(period * (1 + rng.normal(0, 0.05, claps - 1)))])
        idx = (times[times < n / SR] * SR).astype(int)
        np.add.at(impulses[int(rng.integers(groups))], idx, rng.uniform(0.3, 1.0, len(idx)))
    x = sum(sps.fftconvolve(imp, kernel)[:n] for imp, kernel in zip(impulses, kernels))
    return x * smooth_curve(rng, n, rng.uniform(0.3, 1.0), 0.4, 1.0)


_VOICE_CACHE = {}


def _espeak_voices():
    """espeak-ng's voices (every language but the held-out split's) and variants (but the held-out ones)."""
    if "voices" not in _VOICE_CACHE:
        _VOICE_CACHE["voices"] = sorted({row[1] for row in espeak_listing("espeak-ng") if row[1].split("-")[0] not in HELDOUT_LANGUAGES})
        _VOICE_CACHE["variants"] = sorted({row[4].split("/")[-1] for row in espeak_listing("espeak-ng", "=variant")} - heldout_variants())
    return _VOICE_CACHE["voices"], _VOICE_CACHE["variants"]


CROWD_TEXT = [
    "well I told him we would meet at the station but he never came", "have you tried the new place around the corner",
    "the meeting ran late again and nobody had eaten", "I think the second half was much better than the first",
    "they are moving to a bigger flat next month", "could you pass me the menu please", "it has been raining all week",
    "my sister starts her new job on monday", "we should book the tickets before they sell out", "that is exactly what I said",
    "the children were playing in the garden all afternoon", "do you remember the name of that song",
]


def crowd(rng, n, voices=None):
    """Crowd murmur: 8-30 espeak-ng utterances (many languages, voices, pitches and speeds) summed at random
    offsets, each sped up or slowed like a different person, low-passed and reverberant, so that no single
    voice is intelligible."""
    count = int(rng.integers(8, 31)) if voices is None else voices
    names, variants = _espeak_voices()
    renders = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "voice.wav")
        for attempt in range(30):
            if len(renders) >= min(count, 10):
                break
            voice = str(rng.choice(names)) + ("+" + str(rng.choice(variants)) if rng.random() < 0.6 else "")
            text = ". ".join(rng.choice(CROWD_TEXT, size=4, replace=False))
            done = subprocess.run(["espeak-ng", "-v", voice, "-s", str(int(rng.integers(130, 220))), "-p", str(int(rng.integers(20, 80))),
                                   "-g", str(int(rng.integers(0, 4))), "-w", path, text], capture_output=True)
            if done.returncode != 0 or not os.path.exists(path):
                continue  # a language espeak-ng lists but cannot speak here
            rate, data = wavfile.read(path)
            os.remove(path)
            audio = resample(data.astype(np.float32) / 32768.0, int(rate), SR)
            loud = np.flatnonzero(np.abs(audio) > 1e-3)
            if len(loud) > SR // 2:
                renders.append(audio[loud[0]:loud[-1] + 1])
    if not renders:
        raise RuntimeError("espeak-ng produced no speech for the crowd murmur (is espeak-ng installed?)")
    x = np.zeros(n)
    for _ in range(count):
        audio = renders[int(rng.integers(len(renders)))]
        factor = rng.uniform(0.8, 1.25)  # another person: pitch and speed together
        need = int(n * factor) + 2
        tiled = np.tile(audio, need // max(len(audio), 1) + 2)
        start = int(rng.integers(0, len(audio)))
        piece = tiled[start:start + need]
        voice = np.interp(np.arange(n) * factor, np.arange(len(piece)), piece)
        x += voice * 10 ** (rng.uniform(-6, 0) / 20)  # none much louder than the rest: no voice stands out
    x = filt(x, "low", rng.uniform(1500, 3500))
    ir = decaying_noise_ir(rng, 1.5, rng.uniform(0.4, 1.5), rng.uniform(2000, 5000))
    wet = sps.fftconvolve(x, ir)[:n]
    mix = rng.uniform(0.4, 0.9)
    return (1 - mix) * _unit(x) + mix * _unit(wet)


NOISE_KINDS = {
    "hiss": hiss, "hum": hum, "buzz": buzz, "fan": fan, "engine": engine, "car_pass": car_pass, "stepper": stepper,
    "traffic": traffic, "rain": rain, "wind": wind, "water": water, "crowd": crowd, "applause": applause, "hvac": hvac,
    "room_tone": room_tone, "vinyl": vinyl,
}
FLOOR_KINDS = ("hiss", "hum", "fan", "hvac", "traffic_far", "room_tone")


def _generate(rng, n, kind):
    if kind == "traffic_far":
        return traffic(rng, n, far=True)
    if kind not in NOISE_KINDS:
        raise ValueError(f"unknown noise kind {kind!r}; known: {', '.join(list(NOISE_KINDS) + ['traffic_far'])}")
    return NOISE_KINDS[kind](rng, n)


def noise_clip(rng, seconds, kind=None):
    """`seconds` of one kind of noise (random unless `kind` is one of NOISE_KINDS), float32 at
    SAMPLE_RATE, peak-normalised to -1 dBFS."""
    n = int(seconds * SR)
    kind = str(rng.choice(list(NOISE_KINDS))) if kind is None else kind
    x = _generate(rng, n, kind)
    return peak_normalise(x - x.mean(), -1.0)


def noise_floor(rng, n, kind=None):
    """n samples of a background floor (one of FLOOR_KINDS unless `kind` names another NOISE_KINDS
    entry), float32 with unit RMS, for the augmentation to lay under other classes."""
    kind = str(rng.choice(FLOOR_KINDS)) if kind is None else kind
    x = _generate(rng, n, kind)
    return _unit(x - x.mean()).astype(np.float32)


def silence_clip(rng, seconds):
    """Silence as the classes define it: digital zero (about a quarter), or a noise floor of any kind
    whose peak is -90...-60 dBFS (uniform in dB), now and then with a faint click that stays under it."""
    n = int(seconds * SR)
    if rng.random() < 0.25:
        return np.zeros(n, np.float32)
    kind = str(rng.choice(FLOOR_KINDS)) if rng.random() < 0.6 else str(rng.choice(list(NOISE_KINDS)))
    x = _generate(rng, n, kind)
    x = x - x.mean()
    if rng.random() < 0.1:  # a faint click (a chair, a relay), the loudest thing in the clip
        at = int(rng.integers(0, max(1, n - 200)))
        click = filt(rng.standard_normal(200), "band", rng.uniform(500, 4000), 1.0) * np.exp(-np.arange(200) / 30)
        x[at:at + 200] += click[: len(x[at:at + 200])] * np.abs(x).max() * rng.uniform(2, 10) / (np.abs(click).max() + 1e-12)
    return peak_normalise(x, rng.uniform(-90, -60))
