"""Instrument voices written in code, each a different timbre family than a soundfont preset, playing
the phrases of midi.phrase_notes: drawbar and pipe organs (additive), subtractive / FM / supersaw / acid
synths, Karplus-Strong guitars and basses, a modal piano, bowed string sections, blown brass and
woodwinds. Every parameter is drawn per clip from the `rng` passed in, so no two clips share a timbre.

    synth_clip(rng, family, seconds) -> float32 clip at SAMPLE_RATE, peak about -1 dBFS
    synth_note(rng, family, midi_note, seconds, velocity=100, model=None) -> one held note (tests)
"""

import numpy as np
from scipy import signal as sps

from . import SAMPLE_RATE
from .midi import RANGES, phrase_notes
from .signals import (NYQUIST, filt, peak_normalise, pulse, resonator_bank, saw, smooth_curve, tv_filter,
                      variable_delay)

SR = SAMPLE_RATE
# Each family's models with how often synth_clip picks them.
MODEL_WEIGHTS = {
    "organ": {"drawbar": 0.6, "pipe": 0.4},
    "synth": {"subtractive": 0.35, "fm": 0.25, "supersaw": 0.25, "acid": 0.15},
    "guitar": {"steel": 0.3, "nylon": 0.2, "electric": 0.2, "overdrive": 0.2, "palm_mute": 0.1},
    "bass": {"finger": 0.35, "pick": 0.25, "slap": 0.15, "upright": 0.25},
    "piano": {"grand": 0.65, "upright": 0.35},
    "strings": {"section": 0.65, "solo": 0.35},  # bowed: the class leaves pizzicato (GM 45) out
    "brass": {"trumpet": 0.34, "trombone": 0.33, "horn": 0.33},
    "woodwind": {"flute": 0.25, "clarinet": 0.25, "sax": 0.25, "oboe": 0.25},
}
MODELS = {family: tuple(weights) for family, weights in MODEL_WEIGHTS.items()}
FAMILIES = tuple(MODELS)
LONGEST_REST = {True: 0.08, False: 0.15}  # seconds from a note's release to the next onset, at most (legato or not)


def midi_hz(note):
    return 440.0 * 2 ** ((np.asarray(note, dtype=np.float64) - 69) / 12)


def _time(length):
    return np.arange(length) / SR


def _envelope(length, held, attack, decay, sustain, release):
    """ADSR: linear attack, exponential decay to `sustain` (time constant `decay`), after `held` seconds an
    exponential release that falls 60 dB in `release` seconds."""
    t = _time(length)
    env = np.where(t < attack, t / max(attack, 1e-4), sustain + (1 - sustain) * np.exp(-(t - attack) / max(decay, 1e-3)))
    cut = int(held * SR)
    if cut < length:
        level = env[max(cut - 1, 0)]
        env[cut:] = level * 10 ** (-3 * (t[cut:] - held) / max(release, 1e-3))
    return env


def _partials(freqs, amps, length, phases, pitch=None, step=16):
    """Sum of sinusoids: freqs (P,) in Hz; amps (P,), or (P, ceil(length / step)) for an amplitude per
    partial that changes every `step` samples; `pitch` an optional per-sample frequency factor (vibrato,
    scoops)."""
    freqs = np.asarray(freqs, dtype=np.float64)
    amps = np.asarray(amps, dtype=np.float64)
    keep = freqs < NYQUIST * 0.95
    if not keep.any():
        return np.zeros(length)
    freqs, amps, phases = freqs[keep], amps[keep], np.asarray(phases)[keep]
    blocks = -(-length // step)
    if pitch is None:
        ramp = 2 * np.pi * np.arange(blocks * step) / SR
    else:
        ramp = 2 * np.pi * np.cumsum(np.pad(pitch, (0, blocks * step - length), mode="edge")) / SR
    waves = np.outer(freqs, ramp)
    waves += phases[:, None]
    np.sin(waves, out=waves)
    if amps.ndim == 1:
        return (amps @ waves)[:length]
    return np.einsum("pbs,pb->bs", waves.reshape(len(freqs), blocks, step), amps).reshape(-1)[:length]


def _ks(excitation, f0, length, t60, damping):
    """Karplus-Strong string, one scipy lfilter call: the excitation through the loop
    y = x + g z^-N A(z) H(z) y, H(z) = (1 - S) + S z^-1 the loss filter (S = `damping`: 0 bright, 0.5
    dark), A(z) = (eta + z^-1) / (1 + eta z^-1) a first-order allpass for the fractional part of the
    period (it loses nothing, unlike linear interpolation). g makes the fundamental fall 60 dB in `t60`
    seconds with H's own loss at f0 made up; where even g = 1 could not (high notes), S is lowered until
    it can, so high notes ring too, brighter."""
    period = SR / f0
    w0 = 2 * np.pi * f0 / SR
    target = 10 ** (-3 / (f0 * t60))  # the fundamental's loss per period
    bound = (1 - min(target / 0.9999, 1.0) ** 2) / (2 * (1 - np.cos(w0)))
    if bound < 0.25:
        damping = min(damping, (1 - np.sqrt(1 - 4 * bound)) / 2)
    loss = np.sqrt(1 - 2 * damping * (1 - damping) * (1 - np.cos(w0)))
    gain = min(target / loss, 0.9999)
    delay = period - damping  # H delays low frequencies by S samples
    whole = int(np.floor(delay - 0.5))
    frac = delay - whole  # in [0.5, 1.5): where the allpass is accurate
    eta = (1 - frac) / (1 + frac)
    a = np.zeros(whole + 3)
    a[0], a[1] = 1.0, eta
    a[whole] -= gain * eta * (1 - damping)
    a[whole + 1] -= gain * (eta * damping + 1 - damping)
    a[whole + 2] -= gain * damping
    x = np.zeros(length)
    x[:min(length, len(excitation))] = excitation[:length]
    return sps.lfilter([1.0, eta], a, x)


def _pluck_excitation(rng, f0, brightness_hz, pick_position, length_periods=1.0):
    """A plucked string's initial displacement: a noise burst of about one period, low-passed by the
    finger or pick and combed by the pick position (a fraction of the string)."""
    period = SR / f0
    n = max(4, int(period * length_periods))
    x = rng.uniform(-1, 1, n) * np.hanning(n + 2)[1:-1] ** 0.3
    x = filt(x, "low", brightness_hz)
    shift = max(1, int(round(pick_position * period)))
    x = x - np.concatenate([np.zeros(shift), x[:-shift]]) if shift < n else x
    return x


class _Voice:
    """One instrument drawn for one clip: its range, how its phrases are played, how one note sounds and
    what happens to the whole mix (body, rotary speaker, amp)."""

    sustained = True
    tail = 0.2
    rearticulate = None  # split notes longer than this (seconds) into repeats
    single_note = False  # synth_note: no phrase-level playing (expression pedal)

    def __init__(self, rng, family, note_range):
        self.rng = rng
        self.family = family
        self.note_range = note_range

    def notes(self, seconds):
        notes = phrase_notes(self.rng, self.family, seconds, note_range=self.note_range)
        return _fill_gaps(self.rng, notes, seconds, legato=self.sustained)

    def note(self, midi_note, velocity, held, length):
        raise NotImplementedError

    def finish(self, x):
        return x


def _fill_gaps(rng, notes, seconds, legato):
    """Notes held until (nearly) the next onset, so no rest is longer than LONGEST_REST (plus the
    release); the last ones until the clip ends."""
    starts = sorted({start for start, *_ in notes})
    next_start = {s: (starts[i + 1] if i + 1 < len(starts) else seconds + 0.3) for i, s in enumerate(starts)}
    filled = []
    for start, duration, note, velocity in notes:
        gap = rng.uniform(0.0, LONGEST_REST[legato])
        duration = max(duration, next_start[start] - start - gap, 0.05)
        filled.append((start, duration, note, velocity))
    return filled


def _split_long(notes, longest):
    """Notes longer than `longest` re-struck in even repeats (palm-muted chugs, plucks)."""
    out = []
    for start, duration, note, velocity in notes:
        count = max(1, int(np.ceil(duration / longest)))
        step = duration / count
        out.extend((start + i * step, step, note, velocity) for i in range(count))
    return out


# ---------------------------------------------------------------------------------------------- organ
DRAWBAR_RATIOS = np.array([0.5, 1.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0])  # 16' 5 1/3' 8' 4' 2 2/3' 2' 1 3/5' 1 1/3' 1'
REGISTRATIONS = ["888000000", "008000000", "888800000", "688600000", "888888888", "006876000", "800000888",
                 "886000000", "008400000", "838000000", "008806000", "868000040"]


class _Organ(_Voice):
    def __init__(self, rng, model):
        super().__init__(rng, "organ", (36, 88))
        self.model = model
        self.tail = 0.3
        if model == "drawbar":
            if rng.random() < 0.5:
                registration = [int(c) for c in REGISTRATIONS[int(rng.integers(len(REGISTRATIONS)))]]
            else:
                registration = [int(v) if rng.random() < 0.6 else 0 for v in rng.integers(0, 9, 9)]
                registration[2] = max(registration[2], int(rng.integers(4, 9)))
            levels = np.array(registration, dtype=np.float64)
            self.ratios = DRAWBAR_RATIOS * (1 + rng.uniform(-0.002, 0.002, 9))  # tonewheels are not exactly tuned
            self.amps = np.where(levels > 0, 10 ** ((levels - 8) * 3 / 20), 0.0)
            self.attack, self.release = rng.uniform(0.002, 0.01), rng.uniform(0.01, 0.08)
            self.click = rng.uniform(0.0, 0.4)
            self.percussion = (float(rng.choice([2.0, 3.0])), rng.uniform(0.3, 1.0), rng.uniform(0.15, 0.6)) if rng.random() < 0.4 else None
            self.leslie = rng.random() < 0.7
            self.drive = rng.uniform(1.5, 6) if rng.random() < 0.3 else None
        else:
            ratios, amps = [], []
            ranks = rng.choice(["principal", "flute", "gamba", "mixture", "bourdon", "octave"], size=int(rng.integers(1, 5)), replace=False)
            for rank in ranks:
                base = {"bourdon": 0.5, "octave": 2.0}.get(rank, 1.0)
                level = rng.uniform(0.3, 1.0)
                count = {"flute": 4, "bourdon": 4, "gamba": 20, "mixture": 6}.get(rank, 12)
                n = np.arange(1, count + 1)
                if rank in ("flute", "bourdon"):
                    spectrum = np.where(n % 2 == 1, 1.0, rng.uniform(0.05, 0.3)) * n ** -rng.uniform(1.5, 3.0)
                elif rank == "gamba":
                    spectrum = n ** -rng.uniform(0.5, 1.0)
                else:
                    spectrum = n ** -rng.uniform(0.9, 1.6)
                if rank == "mixture":
                    for r in (2.0, 3.0, 4.0):
                        ratios.extend(r * n[:3])
                        amps.extend(0.5 * level * spectrum[:3])
                else:
                    ratios.extend(base * n)
                    amps.extend(level * spectrum)
            self.ratios = np.array(ratios) * (1 + rng.uniform(-0.0015, 0.0015, len(ratios)))
            self.amps = np.array(amps)
            self.attack, self.release = rng.uniform(0.03, 0.15), rng.uniform(0.08, 0.3)
            self.chiff = rng.uniform(0.05, 0.35), rng.uniform(2, 6), rng.uniform(0.02, 0.08)
            self.wind = rng.uniform(0.002, 0.02)
            self.tremulant = (rng.uniform(4.5, 7), rng.uniform(0.05, 0.2)) if rng.random() < 0.25 else None
        self.swell = None

    def note(self, midi_note, velocity, held, length):
        rng, f0 = self.rng, midi_hz(midi_note)
        t = _time(length)
        phases = rng.uniform(0, 2 * np.pi, len(self.ratios))
        x = _partials(f0 * self.ratios, self.amps, length, phases)
        x *= _envelope(length, held, self.attack, 1.0, 1.0, self.release)
        if self.model == "drawbar":
            if self.percussion is not None:
                ratio, level, decay = self.percussion
                x += level * np.sin(2 * np.pi * f0 * ratio * t) * np.exp(-t / decay) * (t < held)
            burst = min(length, int(rng.uniform(0.003, 0.01) * SR))
            if burst > 4 and self.click > 0:
                click = filt(rng.standard_normal(burst), "band", rng.uniform(1500, 5000), 0.7) * np.hanning(burst)
                x[:burst] += self.click * click * np.abs(self.amps).sum() / 3
        else:
            level, harmonic, decay = self.chiff
            chiff = filt(rng.standard_normal(length), "band", f0 * harmonic, 3.0) * np.exp(-t / decay)
            x += level * np.abs(self.amps).sum() * chiff
            x += self.wind * np.abs(self.amps).sum() * filt(rng.standard_normal(length), "high", 2000) * (t < held)
        return x

    def finish(self, x):
        rng = self.rng
        t = _time(len(x))
        if not self.single_note:
            x = x * smooth_curve(rng, len(x), rng.uniform(0.3, 1.5), rng.uniform(0.5, 1.0), 1.0)  # expression pedal
        if self.model == "pipe":
            if self.tremulant is not None:
                x = x * (1 + self.tremulant[1] * np.sin(2 * np.pi * self.tremulant[0] * t))
            return x
        if self.drive is not None:
            x = np.tanh(self.drive * x / (np.abs(x).max() + 1e-9)) / np.tanh(self.drive)
        if self.leslie:  # rotary speaker: horn and drum at their own speeds, amplitude and Doppler modulation
            fast = rng.random() < 0.5
            split = rng.uniform(600, 1000)
            horn, drum = filt(x, "high", split), filt(x, "low", split)
            out = np.zeros(len(x))
            rotors = ((horn, rng.uniform(5.8, 7.0) if fast else rng.uniform(0.7, 0.9), rng.uniform(0.2, 0.5), rng.uniform(0.2, 0.6)),
                      (drum, rng.uniform(5.0, 6.2) if fast else rng.uniform(0.6, 0.8), rng.uniform(0.05, 0.25), rng.uniform(0.05, 0.3)))
            for part, rate, am, doppler in rotors:
                angle = 2 * np.pi * rate * t + rng.uniform(0, 2 * np.pi)
                moved = variable_delay(part, (1.0 + doppler * np.sin(angle)) * SR / 1000)
                out += moved * (1 - am * 0.5 * (1 + np.cos(angle)))
            x = out
        return x


# ---------------------------------------------------------------------------------------------- synth
class _Synth(_Voice):
    def __init__(self, rng, model):
        super().__init__(rng, "synth", (36, 96))
        self.model = model
        self.arpeggio = model != "acid" and rng.random() < 0.3
        self.vibrato = (rng.uniform(4, 7), rng.uniform(5, 25)) if rng.random() < 0.3 else None
        if model == "subtractive":
            self.wave = str(rng.choice(["saw", "square", "pwm", "saw+square"]))
            self.voices = int(rng.choice([1, 1, 2, 3, 5]))
            self.spread = rng.uniform(3, 30)
            self.sub = rng.uniform(0.3, 0.8) if rng.random() < 0.3 else 0.0
            self.cutoff = rng.uniform(1.0, 6.0)  # times f0
            self.env_amount = rng.uniform(0, 30)
            self.q = rng.uniform(0.7, 6.0)
            self.stages = int(rng.integers(1, 3))
            self.adsr = rng.uniform(0.002, 0.3), rng.uniform(0.05, 1.0), rng.uniform(0.3, 1.0), rng.uniform(0.03, 0.5)
            self.filter_decay = rng.uniform(0.05, 1.0)
        elif model == "supersaw":
            self.voices = int(rng.integers(5, 10))
            self.spread = rng.uniform(10, 50)
            self.cutoff = rng.uniform(2000, 7000)
            self.adsr = rng.uniform(0.05, 0.8), rng.uniform(0.3, 1.5), rng.uniform(0.6, 1.0), rng.uniform(0.2, 0.8)
        elif model == "fm":
            self.kind = str(rng.choice(["lead", "pad", "pluck"]))
            self.ratios = [float(rng.choice([1, 1, 2, 3, 0.5])), float(rng.choice([1, 2, 3, 4]))]
            operators = int(rng.integers(2, 5))
            # modulators above the carrier: (ratio, how deeply each modulates the one below it)
            self.stack = [(float(rng.choice([1, 2, 3])), rng.uniform(0.3, 1.5)) for _ in range(operators - 2)]
            self.stack.append((self.ratios[1], 0.0 if operators == 2 else rng.uniform(0.3, 1.5)))
            self.second_carrier = operators == 4 and rng.random() < 0.5
            self.index = rng.uniform(0.5, 5.0)
            self.index_decay = rng.uniform(0.05, 0.8) if self.kind == "pluck" else rng.uniform(0.3, 3.0)
            if self.kind == "pluck":
                self.adsr = 0.002, rng.uniform(0.15, 0.5), rng.uniform(0.0, 0.2), rng.uniform(0.05, 0.2)
            elif self.kind == "pad":
                self.adsr = rng.uniform(0.2, 0.8), rng.uniform(0.5, 2.0), rng.uniform(0.6, 1.0), rng.uniform(0.3, 0.8)
            else:
                self.adsr = rng.uniform(0.005, 0.05), rng.uniform(0.1, 0.8), rng.uniform(0.5, 1.0), rng.uniform(0.05, 0.3)
            self.sustained = self.kind != "pluck"
            if self.kind == "pluck":
                self.rearticulate = 0.6
        else:  # acid
            self.note_range = (48, 76)
            self.wave = str(rng.choice(["saw", "square"]))
            self.q = rng.uniform(4, 12)
            self.cutoff = rng.uniform(300, 1200)
            self.env_amount = rng.uniform(1500, 5000)
            self.filter_decay = rng.uniform(0.08, 0.3)
            self.drive = rng.uniform(1, 4)
        self.tail = (self.adsr[3] if hasattr(self, "adsr") else 0.05) + 0.02
        self.delay = (rng.uniform(0.12, 0.4), rng.uniform(0.2, 0.5)) if rng.random() < 0.3 else None
        self.chorus = rng.random() < 0.25

    def notes(self, seconds):
        rng = self.rng
        if self.model == "acid":
            step = 60.0 / rng.uniform(110, 145) / 4
            root = int(rng.integers(self.note_range[0], self.note_range[1] - 15 + 1))  # the pattern climbs up to 15 semitones
            pattern = [root + int(rng.choice([0, 0, 0, 3, 5, 7, 10, 12, 12, 15])) for _ in range(16)]
            slides = rng.random(16) < 0.25
            accents = rng.random(16) < 0.3
            notes = []
            for i in range(int(np.ceil(seconds / step))):
                j = i % 16
                notes.append((i * step, step * (1.0 if slides[j] else rng.uniform(0.4, 0.8)), pattern[j], 127 if accents[j] else 80))
            return notes
        notes = super().notes(seconds)
        if self.arpeggio:
            step = 60.0 / rng.uniform(90, 150) / float(rng.choice([2, 4]))
            up = rng.random() < 0.5
            arp = []
            for start in sorted({s for s, *_ in notes}):
                group = sorted(note for s, _, note, _ in notes if s == start)
                duration = max(d for s, d, *_ in notes if s == start)
                velocity = next(v for s, _, _, v in notes if s == start)
                if len(group) == 1:
                    group = [group[0], group[0] + 12] if group[0] + 12 <= 96 else [group[0] - 12, group[0]]
                group = group if up else group[::-1]
                for k in range(max(1, int(duration / step))):
                    arp.append((start + k * step, step * 0.8, group[k % len(group)], velocity))
            notes = arp
        if self.rearticulate:
            notes = _split_long(notes, self.rearticulate)
        return notes

    def note(self, midi_note, velocity, held, length):
        rng, f0 = self.rng, midi_hz(midi_note)
        t = _time(length)
        pitch = np.ones(length)
        if self.vibrato is not None:
            pitch = 2 ** (self.vibrato[1] / 1200 * np.sin(2 * np.pi * self.vibrato[0] * t) * np.minimum(1, t / 0.3))
        gain = (velocity / 127) ** 0.7
        if self.model in ("subtractive", "acid"):
            if self.model == "acid":
                voices, spread, sub = 1, 0.0, 0.0
                wave = self.wave
            else:
                voices, spread, sub, wave = self.voices, self.spread, self.sub, self.wave
            x = np.zeros(length)
            for v in range(voices):
                detune = 2 ** ((spread * (v / max(voices - 1, 1) - 0.5) if voices > 1 else 0.0) / 1200)
                freq = f0 * detune * pitch
                phase0 = rng.uniform()
                if wave == "saw":
                    x += saw(freq, phase0)
                elif wave == "square":
                    x += pulse(freq, 0.5, phase0)
                elif wave == "pwm":
                    x += pulse(freq, 0.5 + 0.4 * np.sin(2 * np.pi * rng.uniform(0.3, 3) * t + rng.uniform(0, 6)), phase0)
                else:
                    x += 0.6 * saw(freq, phase0) + 0.6 * pulse(freq * 2 ** (rng.uniform(-12, 12) / 1200), 0.5)
            if sub:
                x += sub * voices * pulse(f0 * pitch / 2, 0.5)
            if self.model == "acid":
                accent = velocity / 127
                cutoff = self.cutoff + self.env_amount * accent * np.exp(-t / self.filter_decay)
                x = tv_filter(x, "low", cutoff, q=self.q, stages=1)
                x = np.tanh(self.drive * x / (np.abs(x).max() + 1e-9))
                return gain * x * _envelope(length, held, 0.003, 1.0, 1.0, 0.02)
            attack, decay, sustain, release = self.adsr
            cutoff = f0 * (self.cutoff + self.env_amount * gain * np.exp(-t / self.filter_decay))
            x = tv_filter(x, "low", np.minimum(cutoff, 7000), q=self.q, stages=self.stages)
            return gain * x * _envelope(length, held, attack, decay, sustain, release)
        if self.model == "supersaw":
            x = np.zeros(length)
            for v in range(self.voices):
                detune = 2 ** (self.spread * (v / (self.voices - 1) - 0.5) / 1200)
                x += saw(f0 * detune * pitch, rng.uniform())
            x = filt(x, "low", self.cutoff, 0.8)
            return gain * x * _envelope(length, held, *self.adsr)
        # FM: carrier(s) phase-modulated by a chain of operators at harmonic ratios
        attack, decay, sustain, release = self.adsr
        index = self.index * gain * (0.3 + 0.7 * np.exp(-t / self.index_decay))
        phase = 2 * np.pi * np.cumsum(f0 * pitch) / SR
        modulator = np.zeros(length)
        for ratio, depth in self.stack:  # the top of the stack first
            modulator = np.sin(ratio * phase + depth * modulator)
        x = np.sin(self.ratios[0] * phase + index * modulator)
        if self.second_carrier:
            x += 0.5 * np.sin(phase + 0.5 * index * np.sin(2 * phase))
        return gain * x * _envelope(length, held, attack, decay, sustain, release)

    def finish(self, x):
        rng = self.rng
        if self.chorus:
            t = _time(len(x))
            x = x + variable_delay(x, (rng.uniform(8, 15) + rng.uniform(1, 4) * np.sin(2 * np.pi * rng.uniform(0.2, 1.5) * t)) * SR / 1000)
        if self.delay is not None:
            lag, feedback = int(self.delay[0] * SR), self.delay[1]
            echoes = x.copy()
            for k in range(1, 8):  # a feedback echo, repeat by repeat
                if k * lag >= len(x):
                    break
                echoes[k * lag:] += 0.5 * feedback ** (k - 1) * x[:len(x) - k * lag]
            x = echoes
        return x


# --------------------------------------------------------------------------------------------- guitar
class _Plucked(_Voice):
    """Karplus-Strong guitars and basses."""

    sustained = False

    def __init__(self, rng, family, model):
        super().__init__(rng, family, RANGES[family][:2])
        self.model = model
        self.strum = family == "guitar" and model != "palm_mute" and rng.random() < 0.8
        self.strum_delay = rng.uniform(0.005, 0.035)
        self.body = None
        self.drive = None
        self.tail = 0.15
        if family == "guitar":
            self.t60 = {"steel": (2, 5), "nylon": (2, 4), "electric": (2.5, 6), "overdrive": (2.5, 6), "palm_mute": (0.12, 0.35)}[model]
            self.damping = {"steel": (0.08, 0.3), "nylon": (0.3, 0.5), "electric": (0.1, 0.35), "overdrive": (0.1, 0.35),
                            "palm_mute": (0.35, 0.5)}[model]
            self.brightness = {"steel": (2500, 7000), "nylon": (1000, 3000), "electric": (2000, 6000), "overdrive": (2000, 6000),
                               "palm_mute": (800, 2500)}[model]
            self.pick = rng.uniform(0.06, 0.3)
            if model in ("steel", "nylon"):
                self.body = ([rng.uniform(90, 120), rng.uniform(180, 240), rng.uniform(380, 500), rng.uniform(900, 1300),
                              rng.uniform(2500, 3500)],
                             rng.uniform(3, 12, 5), rng.uniform(0.3, 1.0, 5))
            if model in ("overdrive", "palm_mute") and (model == "overdrive" or rng.random() < 0.6):
                self.drive = rng.uniform(3, 30)
                self.cabinet = rng.uniform(2500, 5000)
            if model == "palm_mute":
                self.rearticulate = rng.uniform(0.12, 0.3)
                self.note_range = (40, 64)
        else:
            self.note_range = (28, 55)
            self.t60 = {"finger": (2, 5), "pick": (2, 5), "slap": (1.5, 3.5), "upright": (0.6, 1.5)}[model]
            self.damping = {"finger": (0.3, 0.5), "pick": (0.2, 0.4), "slap": (0.08, 0.25), "upright": (0.35, 0.5)}[model]
            self.brightness = {"finger": (300, 900), "pick": (500, 1500), "slap": (1200, 3500), "upright": (300, 800)}[model]
            self.pick = rng.uniform(0.08, 0.25) if model != "slap" else rng.uniform(0.02, 0.06)
            if model == "upright":
                self.body = ([rng.uniform(55, 90), rng.uniform(110, 160), rng.uniform(200, 300), rng.uniform(400, 700)],
                             rng.uniform(3, 10, 4), rng.uniform(0.4, 1.0, 4))
                self.rearticulate = 0.8
            self.low_freq, self.low_boost = rng.uniform(120, 250), rng.uniform(0, 9)
            self.tone = {"finger": (600, 2000), "pick": (800, 2500), "slap": (1500, 4000), "upright": (0.0, 0.0)}[model]
            self.tone = rng.uniform(*self.tone)
        if self.rearticulate is None:  # a long note is struck again before it has died away
            self.rearticulate = rng.uniform(0.5, 1.1)

    def notes(self, seconds):
        notes = super().notes(seconds)
        if self.rearticulate:
            notes = _split_long(notes, self.rearticulate)
        if not self.strum:
            return notes
        rng, strummed = self.rng, []
        for start in sorted({s for s, *_ in notes}):
            group = [(d, n, v) for s, d, n, v in notes if s == start]
            if len(group) > 1:  # a guitar voicing: the chord spread over 4-6 strings
                pitches = sorted(n for _, n, _ in group)
                extra = [p + 12 for p in pitches if p + 12 <= 84][: int(rng.integers(1, 3))]
                pitches = sorted(set(pitches + extra))
                down = rng.random() < 0.65
                order = pitches if down else pitches[::-1]
                duration, _, velocity = group[0]
                for k, pitch in enumerate(order):
                    strummed.append((start + k * self.strum_delay, duration, pitch, velocity))
            else:
                strummed.extend((start, d, n, v) for d, n, v in group)
        return strummed

    def note(self, midi_note, velocity, held, length):
        rng, f0 = self.rng, midi_hz(midi_note)
        gain = 0.3 + 0.7 * velocity / 127
        t60 = rng.uniform(*self.t60) * (1.3 if f0 < 150 else 1.0)
        damping = rng.uniform(*self.damping)
        brightness = rng.uniform(*self.brightness) * (0.5 + 0.5 * velocity / 127)
        excitation = _pluck_excitation(rng, f0, brightness, self.pick)
        if self.model == "slap":
            excitation = excitation * 2.0
            pop = filt(rng.standard_normal(int(0.004 * SR)), "high", 2000)
            excitation[:len(pop)] += 0.25 * pop[:len(excitation)]
        x = _ks(excitation, f0, length, t60, damping)
        release = rng.uniform(0.03, 0.12)
        x *= _envelope(length, held, 0.0005, 1.0, 1.0, release)
        return gain * x

    def finish(self, x):
        if self.body is not None:
            freqs, qs, gains = self.body
            x = 0.5 * x + resonator_bank(x, freqs, qs, gains)
        if self.family == "bass" and self.model != "upright":  # pickup and amp: low end up, top rolled off
            x = filt(filt(x, "lowshelf", self.low_freq, 0.7, self.low_boost), "low", self.tone, 0.7)
        if self.drive is not None:
            x = np.tanh(self.drive * x / (np.abs(x).max() + 1e-9))
            x = filt(filt(x, "low", self.cabinet, 0.9), "high", 80)
        return x


# ---------------------------------------------------------------------------------------------- piano
class _Piano(_Voice):
    sustained = False

    def __init__(self, rng, model):
        super().__init__(rng, "piano", (36, 96))
        self.model = model
        self.b_scale = rng.uniform(0.6, 1.6) * (1.5 if model == "upright" else 1.0)
        self.hammer = rng.uniform(1 / 9, 1 / 7)
        self.decay_scale = rng.uniform(0.8, 1.6) * (0.75 if model == "upright" else 1.0)
        self.detune = rng.uniform(0.3, 2.5) * (1.8 if model == "upright" else 1.0)  # cents between unison strings
        self.pedal = rng.random() < 0.4
        self.damper = rng.uniform(0.08, 0.25)
        self.brightness = rng.uniform(0.7, 1.4)
        self.tail = 0.6

    def notes(self, seconds):
        notes = super().notes(seconds)
        if not self.pedal:  # a long note is played again before it has died away
            notes = _split_long(notes, self.rng.uniform(0.8, 1.6))
        if self.pedal:  # sustain pedal: notes ring to the next pedal change
            changes = np.cumsum(self.rng.uniform(0.8, 2.0, 8))
            held = []
            for start, duration, note, velocity in notes:
                release = changes[changes > start + duration]
                held.append((start, max(duration, float(release[0]) - start if len(release) else seconds - start), note, velocity))
            notes = held
        return notes

    def inharmonicity(self, midi_note):
        """B of f_n = n f0 sqrt(1 + B n^2): about 1e-4 in the bass, 2.5e-4 at middle C, 1e-3 two octaves up."""
        return float(np.clip(max(1.2e-4, 2.5e-4 * 2 ** ((midi_note - 60) / 12 * 0.85)) * self.b_scale, 5e-5, 8e-3))

    def note(self, midi_note, velocity, held, length):
        rng, f0 = self.rng, midi_hz(midi_note)
        vel = velocity / 127
        b = self.inharmonicity(midi_note)
        count = int(min(40, NYQUIST * 0.9 / f0))
        n = np.arange(1, count + 1)
        freqs = n * f0 * np.sqrt(1 + b * n ** 2)
        count = int((freqs < NYQUIST * 0.95).sum())
        n, freqs = n[:count], freqs[:count]
        tilt = 2.2 - 1.2 * vel * self.brightness  # harder blows, brighter
        amps = (np.abs(np.sin(np.pi * n * self.hammer)) + 0.05) * n ** -tilt
        amps /= 1 + (freqs / (1500 + 4000 * vel)) ** 2
        tau = self.decay_scale * 12.0 * 2 ** (-(midi_note - 36) / 14) / (1 + freqs / 2500)  # aftersound per partial
        tau_prompt = tau / rng.uniform(3, 7, count)
        mix = rng.uniform(0.5, 0.8)
        strings = 1 if midi_note < 34 else (2 if midi_note < 48 else 3)
        step = 16
        slow = np.arange(0, length, step) / SR
        env = amps[:, None] * (mix * np.exp(-slow / tau_prompt[:, None]) + (1 - mix) * np.exp(-slow / tau[:, None]))
        if strings > 1:  # unison strings a few cents apart beat against each other
            beat_hz = freqs * (2 ** (self.detune * rng.uniform(0.5, 1.5) / 1200) - 1)
            env = env * (1 + (strings - 1) * np.cos(2 * np.pi * beat_hz[:, None] * slow + rng.uniform(0, 1))) / strings
        damp = np.where(slow < held, 1.0, np.exp(-(slow - held) / self.damper))
        env = env * damp
        x = _partials(freqs, env, length, rng.uniform(0, 2 * np.pi, count), step=step)
        thump = min(length, int(rng.uniform(0.02, 0.06) * SR))
        if thump > 8:
            knock = filt(rng.standard_normal(thump), "low", rng.uniform(300, 1500)) * np.exp(-np.arange(thump) / (0.008 * SR))
            x[:thump] += rng.uniform(0.05, 0.2) * vel * amps.sum() * knock
        return x * (0.3 + 0.7 * vel)

    def finish(self, x):
        return x + 0.15 * filt(x, "peak", self.rng.uniform(150, 400), 1.0, self.rng.uniform(-3, 6))


# -------------------------------------------------------------------------------------------- strings
class _Strings(_Voice):
    SECTIONS = {"violins": (55, 93), "violas": (48, 84), "cellos": (36, 72), "full": (43, 93)}

    def __init__(self, rng, model):
        section = str(rng.choice(list(self.SECTIONS)))
        super().__init__(rng, "strings", self.SECTIONS[section])
        self.model = model
        self.voices = 1 if model == "solo" else int(rng.integers(3, 9))
        self.spread = rng.uniform(4, 18)
        self.vibrato = rng.uniform(4.5, 6.5), rng.uniform(6, 30) if model == "solo" else rng.uniform(4, 15)
        self.attack = rng.uniform(0.06, 0.4)
        self.release = rng.uniform(0.1, 0.4)
        self.bow_noise = rng.uniform(0.005, 0.04)
        scale = {"violins": 1.0, "violas": 0.8, "cellos": 0.55, "full": 0.8}[section]
        freqs = np.array([rng.uniform(250, 300), rng.uniform(400, 500), rng.uniform(550, 750), rng.uniform(900, 1200),
                          rng.uniform(2000, 2600), rng.uniform(2800, 3500)]) * np.array([scale, scale, scale, scale, 1, 1])
        self.body = freqs, rng.uniform(4, 15, 6), rng.uniform(0.3, 1.0, 6)
        self.lowpass = rng.uniform(3500, 7000)
        self.tail = self.release

    def note(self, midi_note, velocity, held, length):
        rng, f0 = self.rng, midi_hz(midi_note)
        gain = (velocity / 127) ** 0.6
        t = _time(length)
        x = np.zeros(length)
        rate, depth = self.vibrato
        for v in range(self.voices):
            cents = self.spread * rng.uniform(-0.5, 0.5) if self.voices > 1 else 0.0
            onset = np.clip((t - rng.uniform(0.1, 0.35)) / 0.3, 0, 1)
            wobble = depth * onset * np.sin(2 * np.pi * rate * rng.uniform(0.9, 1.1) * t + rng.uniform(0, 6))
            pitch = 2 ** ((cents + wobble) / 1200)
            delay = int(rng.uniform(0, 0.04) * SR) if self.voices > 1 else 0
            voice = saw(f0 * pitch, rng.uniform()) * (1 + 0.1 * smooth_curve(rng, length, 3.0, -1, 1))
            if delay < length:  # a very short note can end before a late player comes in
                x[delay:] += voice[:length - delay]
        x /= np.sqrt(self.voices)
        x += self.bow_noise * np.sqrt(self.voices) * filt(rng.standard_normal(length), "band", rng.uniform(1500, 4000), 0.7)
        attack = self.attack * rng.uniform(0.7, 1.3) * (1.5 - velocity / 127)
        return gain * x * _envelope(length, held, attack, 0.5, 1.0, self.release)

    def finish(self, x):
        freqs, qs, gains = self.body
        x = 0.3 * x + resonator_bank(x, freqs, qs, gains)
        return filt(x, "low", self.lowpass, 0.7)


# ---------------------------------------------------------------------------------------------- brass
class _Brass(_Voice):
    REGISTERS = {"trumpet": (54, 82), "trombone": (40, 72), "horn": (41, 77)}

    def __init__(self, rng, model):
        super().__init__(rng, "brass", self.REGISTERS[model])
        self.model = model
        self.brassiness = rng.uniform(0.4, 1.5)  # how fast the upper harmonics grow with amplitude
        self.tilt = rng.uniform(0.4, 1.0)
        self.bell = {"trumpet": rng.uniform(900, 1600), "trombone": rng.uniform(400, 750), "horn": rng.uniform(350, 600)}[model]
        self.lowpass = {"trumpet": rng.uniform(4000, 7000), "trombone": rng.uniform(2500, 5000), "horn": rng.uniform(1200, 2500)}[model]
        self.mute = str(rng.choice(["none", "none", "none", "straight", "harmon", "cup"])) if model != "horn" else "none"
        self.scoop = rng.uniform(20, 100)
        self.attack = rng.uniform(0.02, 0.09)
        self.release = rng.uniform(0.05, 0.2)
        self.vibrato = (rng.uniform(4.5, 6.5), rng.uniform(5, 20)) if rng.random() < 0.4 else None
        self.section = int(rng.choice([1, 1, 2, 3]))
        self.tail = self.release

    def note(self, midi_note, velocity, held, length):
        rng, f0 = self.rng, midi_hz(midi_note)
        t = _time(length)
        peak = 0.25 + 0.75 * (velocity / 127)
        env = peak * _envelope(length, held, self.attack, rng.uniform(0.05, 0.3), rng.uniform(0.6, 0.9), self.release)
        env = env * (1 + 0.15 * smooth_curve(rng, length, 2.0, -1, 1))
        count = int(min(30, NYQUIST * 0.9 / f0))
        h = np.arange(1, count + 1)
        step = 16
        slow_env = np.maximum(env[::step], 0)
        amps = h[:, None] ** -self.tilt * slow_env[None, :] ** (1 + self.brassiness * (h[:, None] - 1) * 0.5)
        x = np.zeros(length)
        for s in range(self.section):
            cents = -self.scoop * np.exp(-t / rng.uniform(0.015, 0.05)) + (rng.uniform(-8, 8) if self.section > 1 else 0)
            if self.vibrato is not None:
                cents = cents + self.vibrato[1] * np.clip(t - 0.2, 0, 0.3) / 0.3 * np.sin(2 * np.pi * self.vibrato[0] * t)
            x += _partials(h * f0, amps, length, rng.uniform(0, 2 * np.pi, count), pitch=2 ** (cents / 1200), step=step)
        buzz = min(length, int(rng.uniform(0.015, 0.04) * SR))
        if buzz > 8:
            lips = filt(rng.standard_normal(buzz), "band", rng.uniform(800, 2500), 1.0) * np.hanning(buzz)
            x[:buzz] += rng.uniform(0.05, 0.2) * peak * lips
        return x

    def finish(self, x):
        x = filt(x, "peak", self.bell, 1.2, self.rng.uniform(3, 9))  # the bell's formant
        x = filt(x, "low", self.lowpass, 0.7)
        if self.mute == "straight":
            x = filt(filt(x, "high", self.rng.uniform(600, 1200), 0.7), "peak", self.rng.uniform(1500, 2500), 2.0, 8)
        elif self.mute == "harmon":
            x = filt(x, "band", self.rng.uniform(1500, 3000), self.rng.uniform(2, 4)) * 3
        elif self.mute == "cup":
            x = filt(filt(x, "high", self.rng.uniform(250, 500), 0.7), "low", self.rng.uniform(1200, 2000), 1.5)
        return x


# ------------------------------------------------------------------------------------------- woodwind
class _Woodwind(_Voice):
    REGISTERS = {"flute": (60, 96), "clarinet": (55, 89), "sax": (49, 83), "oboe": (58, 91)}

    def __init__(self, rng, model):
        super().__init__(rng, "woodwind", self.REGISTERS[model])
        self.model = model
        self.vibrato = rng.uniform(4.5, 6.0), (rng.uniform(5, 25) if rng.random() < 0.7 else 0.0)
        self.breath = rng.uniform(*{"flute": (0.05, 0.2), "clarinet": (0.01, 0.05), "sax": (0.02, 0.08), "oboe": (0.01, 0.04)}[model])
        self.attack = rng.uniform(0.03, 0.12)
        self.release = rng.uniform(0.05, 0.15)
        self.tail = self.release
        if model == "flute":
            self.amps = np.array([1.0, rng.uniform(0.05, 0.4), rng.uniform(0.02, 0.2), rng.uniform(0.0, 0.08), rng.uniform(0, 0.04)])
        elif model == "clarinet":
            h = np.arange(1, 16)
            self.amps = np.where(h % 2 == 1, h ** -rng.uniform(0.6, 1.2), rng.uniform(0.01, 0.08) * h ** -0.5)
            self.amps[h > 10] *= 0.3
        else:
            self.width = rng.uniform(0.15, 0.4) if model == "sax" else rng.uniform(0.08, 0.2)
            formants = [(rng.uniform(450, 800), rng.uniform(1400, 1900), rng.uniform(2600, 3200)) if model == "sax"
                        else (rng.uniform(950, 1400), rng.uniform(2600, 3300), rng.uniform(3800, 4500))][0]
            self.formants = np.array(formants), rng.uniform(2, 6, 3), np.array([1.0, rng.uniform(0.3, 0.8), rng.uniform(0.1, 0.4)])
            self.growl = (rng.uniform(20, 40), rng.uniform(0.1, 0.4)) if model == "sax" and rng.random() < 0.25 else None

    def note(self, midi_note, velocity, held, length):
        rng, f0 = self.rng, midi_hz(midi_note)
        t = _time(length)
        gain = 0.3 + 0.7 * velocity / 127
        rate, depth = self.vibrato
        onset = np.clip((t - 0.15) / 0.3, 0, 1)
        pitch = 2 ** ((depth * onset * np.sin(2 * np.pi * rate * t + rng.uniform(0, 6)) - rng.uniform(0, 15) * np.exp(-t / 0.03)) / 1200)
        env = _envelope(length, held, self.attack, 0.3, rng.uniform(0.8, 1.0), self.release)
        env = env * (1 + 0.08 * onset * np.sin(2 * np.pi * rate * t) * (depth > 0)) * (1 + 0.1 * smooth_curve(rng, length, 1.5, -1, 1))
        if self.model in ("flute", "clarinet"):
            brightness = gain ** np.arange(len(self.amps))  # softer notes, fewer harmonics
            harmonics = np.arange(1, len(self.amps) + 1)
            x = _partials(f0 * harmonics, self.amps * brightness, length, rng.uniform(0, 2 * np.pi, len(self.amps)), pitch=pitch)
        else:
            x = pulse(f0 * pitch, self.width, rng.uniform())
            if self.growl is not None:
                x *= 1 + self.growl[1] * np.sin(2 * np.pi * self.growl[0] * t)
            freqs, qs, gains = self.formants
            x = 0.2 * x + resonator_bank(x, freqs, qs, gains)
            x = filt(x, "low", 2000 + 5000 * gain, 0.7)
        breath = filt(rng.standard_normal(length), "band", min(f0 * rng.uniform(1, 4), 6000), 0.8)
        breath += 0.5 * filt(rng.standard_normal(length), "high", 3000)
        puff = 1 + 3 * np.exp(-t / rng.uniform(0.02, 0.06))  # breath onset
        x = x * env + self.breath * breath * np.minimum(1, env * 1.5 + 0.3 * np.exp(-t / 0.05)) * puff * np.abs(x).max()
        return gain * x


# ---------------------------------------------------------------------------------------------- API
def _voice(rng, family, model=None):
    if family not in MODELS:
        raise ValueError(f"unknown synth family {family!r}; known: {', '.join(FAMILIES)}")
    if model is None:
        weights = np.array(list(MODEL_WEIGHTS[family].values()))
        model = MODELS[family][int(rng.choice(len(weights), p=weights / weights.sum()))]
    if model not in MODELS[family]:
        raise ValueError(f"unknown {family} model {model!r}; known: {', '.join(MODELS[family])}")
    if family == "organ":
        return _Organ(rng, model)
    if family == "synth":
        return _Synth(rng, model)
    if family in ("guitar", "bass"):
        return _Plucked(rng, family, model)
    if family == "piano":
        return _Piano(rng, model)
    if family == "strings":
        return _Strings(rng, model)
    if family == "brass":
        return _Brass(rng, model)
    return _Woodwind(rng, model)


def _render(voice, notes, total):
    out = np.zeros(total)
    for start, duration, note, velocity in notes:
        begin = int(start * SR)
        if begin >= total:
            continue
        length = min(total - begin, int((duration + voice.tail) * SR))
        if length > 16:
            out[begin:begin + length] += voice.note(note, velocity, duration, length)
    return voice.finish(out)


def synth_clip(rng, family, seconds, model=None):
    """`seconds` of one family's code-written instrument playing a phrase, as float32 at SAMPLE_RATE,
    peak-normalised to -1 dBFS. `model` forces one of MODELS[family] (tests, ablation)."""
    n = int(seconds * SR)
    voice = _voice(rng, family, model)
    lead = rng.uniform(0.0, 0.5)  # the clip starts inside the phrase, not always on an onset
    skip = int(lead * SR)
    notes = voice.notes(seconds + lead)
    out = _render(voice, notes, n + skip)[skip:skip + n]
    return peak_normalise(out, -1.0)


def synth_note(rng, family, midi_note, seconds, velocity=100, model=None, held=None):
    """One note of `family` (a voice drawn from `rng`, or `model`), key held for `held` seconds (default
    all of it), as float32 peak-normalised to -1 dBFS: the single-note view the tests measure."""
    voice = _voice(rng, family, model)
    voice.single_note = True
    n = int(seconds * SR)
    out = _render(voice, [(0.0, seconds if held is None else held, int(midi_note), int(velocity))], n)
    return peak_normalise(out[:n], -1.0)
