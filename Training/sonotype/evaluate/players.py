"""Sample players: real recordings of single notes, drum hits and words placed in time to make clips.

Every function takes the `rng` it draws from and returns float32 mono audio at 16 kHz."""

import numpy as np

from ..data import SAMPLE_RATE
from ..data.resample import resample

MAX_SHIFT = 1.5  # semitones: a recording is never played further than this from its own pitch


def shift(sound, semitones):
    """`sound` played `semitones` higher (and shorter), like a sampler: resampled by the product's resampler."""
    if abs(semitones) > MAX_SHIFT + 1e-9:
        raise ValueError(f"a shift of {semitones} semitones is more than {MAX_SHIFT}")
    if semitones == 0:
        return np.asarray(sound, dtype=np.float32)
    return resample(sound, SAMPLE_RATE * 2.0 ** (semitones / 12.0), SAMPLE_RATE)


def place(out, sound, start_s, gain=1.0, length_s=None, release_s=0.15):
    """Adds `sound` into `out` from `start_s`; with `length_s`, the note is let go there (a linear release
    of `release_s`), otherwise it rings out. Whatever passes the end of `out` is cut."""
    start = int(round(start_s * SAMPLE_RATE))
    if start >= len(out):
        return out
    sound = np.asarray(sound, dtype=np.float32)
    if length_s is not None:
        held = int(length_s * SAMPLE_RATE)
        release = max(1, int(release_s * SAMPLE_RATE))
        if held < len(sound):
            sound = sound[:held + release].copy()
            tail = sound[held:]
            tail *= np.linspace(1.0, 0.0, len(tail), endpoint=False, dtype=np.float32)
    n = min(len(sound), len(out) - start)
    out[start:start + n] += gain * sound[:n]
    return out


def nearest_sample(samples, note):
    """The sampled MIDI note nearest to `note` (samples: {midi note: audio}) and the shift it needs."""
    sampled = min(samples, key=lambda s: (abs(s - note), s))
    return sampled, note - sampled


def play_note(out, samples, note, start_s, length_s, gain):
    sampled, semitones = nearest_sample(samples, note)
    return place(out, shift(samples[sampled], semitones), start_s, gain, length_s)


def keyboard_phrase(rng, samples, seconds, low=36, high=96):
    """A piano-like phrase from note recordings: single notes and chords around a wandering centre, with
    varied tempo, velocity (gain) and articulation; notes ring with their recorded decay until let go."""
    out = np.zeros(int(seconds * SAMPLE_RATE), dtype=np.float32)
    beat = 60.0 / rng.uniform(60, 160)
    margin = min(8, (high - low) // 2)
    centre = int(rng.integers(low + margin, high - margin + 1))
    legato = rng.uniform(0.6, 1.6)  # > 1: held over the next note, like a sustain pedal
    t = float(rng.uniform(0, 0.2))
    while t < seconds:
        duration = beat * float(rng.choice([0.5, 1, 1, 2, 3]))
        root = int(np.clip(centre + rng.integers(-7, 8), low, high))
        notes = [root]
        if rng.random() < 0.5:
            shape = [[0, 4, 7], [0, 3, 7], [0, 4, 7, 11], [0, 5, 9], [0, 7, 12], [0, 3, 7, 10]][int(rng.integers(0, 6))]
            notes = [n for n in (root + i for i in shape) if low <= n <= high]
        gain = float(rng.uniform(0.3, 1.0)) / np.sqrt(len(notes))
        for note in notes:
            play_note(out, samples, note, t, duration * legato, gain)
        t += duration
        centre = int(np.clip(centre + rng.integers(-3, 4), low + margin, high - margin))
    return out


def one_shot_phrase(rng, sound, seconds):
    """A line played with one recorded note (a trumpet, a string accent): the recording at shifts within
    ±MAX_SHIFT semitones, each note let go at its length, with rests between some notes."""
    out = np.zeros(int(seconds * SAMPLE_RATE), dtype=np.float32)
    recorded = len(sound) / SAMPLE_RATE
    t = float(rng.uniform(0, 0.15))
    while t < seconds:
        length = float(min(recorded, rng.uniform(0.3, 1.2)))
        place(out, shift(sound, float(rng.uniform(-MAX_SHIFT, MAX_SHIFT))), t, float(rng.uniform(0.5, 1.0)), length, 0.1)
        t += length + float(rng.choice([0.0, 0.05, 0.2]))
    return out


def drum_beat(rng, kit, seconds, tempo_bpm=None):
    """A beat from recorded hits: kit = {"kick" | "snare" | "hihat" | "tom" | "cymbal": [audio, ...]} (a role
    may be missing). Sixteenth-note grid at `tempo_bpm` (default: random, 70…160 BPM): kick and snare backbeat with variations, hi-hat
    eighths or sixteenths, now and then a tom fill or a crash; velocity as gain."""
    out = np.zeros(int(seconds * SAMPLE_RATE), dtype=np.float32)
    step = 60.0 / (tempo_bpm or rng.uniform(70, 160)) / 4
    hat_every = int(rng.choice([1, 2, 2]))
    pick = lambda role: kit[role][int(rng.integers(0, len(kit[role])))]  # noqa: E731
    for i in range(int(seconds / step) + 1):
        t, pos = i * step, i % 16
        hits = []
        if "kick" in kit and (pos in (0, 8) or (pos in (6, 10, 14) and rng.random() < 0.3)):
            hits.append(("kick", rng.uniform(0.7, 1.0)))
        if "snare" in kit and (pos in (4, 12) or rng.random() < 0.05):
            hits.append(("snare", rng.uniform(0.6, 1.0) if pos in (4, 12) else rng.uniform(0.2, 0.5)))
        if "hihat" in kit and pos % hat_every == 0:
            hits.append(("hihat", rng.uniform(0.3, 0.8)))
        if "tom" in kit and pos >= 12 and rng.random() < 0.15:
            hits.append(("tom", rng.uniform(0.5, 1.0)))
        if "cymbal" in kit and pos == 0 and rng.random() < 0.2:
            hits.append(("cymbal", rng.uniform(0.4, 0.9)))
        for role, gain in hits:
            place(out, pick(role), t + rng.normal(0, 0.004) if t > 0.01 else t, float(gain))
    return out


def sequence(rng, sounds, seconds, gap_s=(0.05, 0.3), fade_s=0.0):
    """Recordings laid one after another (words with short pauses, noise events) until `seconds` are
    filled: each a random one of `sounds`; with `fade_s`, the joins are short fades."""
    out = np.zeros(int(seconds * SAMPLE_RATE), dtype=np.float32)
    t = float(rng.uniform(0, 0.1))
    while t < seconds:
        sound = np.asarray(sounds[int(rng.integers(0, len(sounds)))], dtype=np.float32)
        if fade_s > 0:
            n = min(int(fade_s * SAMPLE_RATE), len(sound) // 2)
            if n > 0:
                sound = sound.copy()
                ramp = np.linspace(0.0, 1.0, n, dtype=np.float32)
                sound[:n] *= ramp
                sound[-n:] *= ramp[::-1]
        place(out, sound, t)
        t += len(sound) / SAMPLE_RATE + float(rng.uniform(*gap_s))
    return out


def excerpts(rng, recording, seconds, most=8, quiet_db=-50.0):
    """Up to `most` non-overlapping `seconds` excerpts of a long recording at random offsets, leaving out
    excerpts whose peak is below `quiet_db` relative to the recording's peak."""
    length = int(seconds * SAMPLE_RATE)
    slots = len(recording) // length
    if slots == 0:
        return []
    peak = np.abs(recording).max() + 1e-12
    slack = len(recording) - slots * length
    offset = int(rng.integers(0, slack + 1))
    chosen = []
    for slot in rng.permutation(slots):
        piece = recording[offset + slot * length: offset + (slot + 1) * length]
        if np.abs(piece).max() > peak * 10 ** (quiet_db / 20):
            chosen.append(piece.astype(np.float32))
        if len(chosen) == most:
            break
    return chosen
