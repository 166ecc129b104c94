"""Packaged recordings played by a small sampler: LMMS's sample library and the instrument snippets of
sound-icons, each file assigned to a class by what it is (its name and a listen).

A short recording (a note, a hit) is a one-shot: the sampler plays phrases of it, each note resampled
(varispeed, the product's resampler) to its pitch; drum hits are sequenced into patterns. A longer
recording (a riff, a loop, a held chord) is played from a random point, looped to fill the clip."""

import functools
import glob
import os

import numpy as np

from . import SAMPLE_RATE
from .midi import RANGES
from .resample import resample
from .sources import read_audio

LMMS = "/usr/share/lmms/samples"
ICONS = "/usr/share/sounds/sound-icons"

# class -> file patterns (relative to LMMS, or absolute). LMMS's "basses" and "bassloops" are synth bass
# lines in the bass register (General MIDI files synth bass under bass too); its "techno_synth" loops are synth.
FILES = {
    "piano": ["instruments/piano0*.ogg", "instruments/e_piano_accord0*.ogg", f"{ICONS}/piano-3.wav", f"{ICONS}/electric-piano-3.wav"],
    "organ": ["instruments/church_organ0*.ogg", "instruments/e_organ01.ogg"],
    "guitar": ["instruments/steel_guitar*.ogg", "latin/latin_guitar0*.ogg", f"{ICONS}/guitar-1*.wav"],
    "bass": ["instruments/bassslap0*.ogg", "basses/bass*.ogg", "basses/horror_bass01.ogg", "basses/matrix1000_pluck01.ogg",
             "basses/rave_bass0*.ogg", "basses/synth_acid0*.ogg", "bassloops/briff01.ogg", "bassloops/rave_bass0*.ogg", "bassloops/tb303_01.ogg",
             "bassloops/techno_bass0*.ogg"],
    "strings": ["instruments/cello01.ogg", "instruments/violin_double_stop01.ogg", "instruments/violin_fingered01.ogg",
                "stringsnpads/strings01.ogg", f"{ICONS}/violoncello-7.wav"],
    "brass": ["instruments/trumpet01.ogg", "latin/latin_brass01.ogg", f"{ICONS}/trumpet-1*.wav"],
    "woodwind": ["instruments/flute01.ogg"],
    "synth": ["stringsnpads/juno_pad01.ogg", "stringsnpads/nord_ambient01.ogg", "stringsnpads/korg_poly6_drone01.ogg",
              "stringsnpads/space_strings0*.ogg", "bassloops/techno_synth0*.ogg"],
    "drums": ["drums/bassdrum*.ogg", "drums/kick*.ogg", "drums/snare*.ogg", "drums/hihat*.ogg", "drums/crash*.ogg", "drums/ride*.ogg",
              "drums/tom*.ogg", "drums/clap*.ogg", "drums/rim01.ogg", "drums/sidestick01.ogg", "drums/shaker*.ogg", "beats/*.ogg"],
    "noise": ["misc/applause01.ogg", "misc/raving_crowd01.ogg"],
}
LOOP_SECONDS = 2.5  # recordings at least this long are played as loops, shorter ones as one-shots
# Varispeed ranges: a melodic one-shot moves at most this many semitones from its recorded pitch;
# loops by at most LOOP_SEMITONES (a tempo change that stays plausible).
ONE_SHOT_SEMITONES = 7
LOOP_SEMITONES = 1.5


def _paths(family):
    paths = []
    for pattern in FILES[family]:
        paths.extend(sorted(glob.glob(pattern if os.path.isabs(pattern) else os.path.join(LMMS, pattern))))
    return paths


@functools.lru_cache(maxsize=None)
def recordings(family):
    """(path, audio) of the family's recordings that load, leading and trailing silence trimmed."""
    out = []
    for path in _paths(family):
        try:
            audio = read_audio(path)
        except Exception:  # noqa: BLE001 - a file sox cannot read (LMMS ships one) is left out
            continue
        loud = np.flatnonzero(np.abs(audio) > 10 ** (-50 / 20) * max(np.abs(audio).max(), 1e-9))
        if len(loud) and np.abs(audio).max() > 1e-4:
            out.append((path, audio[loud[0]:loud[-1] + 1].astype(np.float32)))
    return tuple(out)


def families():
    return [family for family in FILES if recordings(family)]


def varispeed(x, semitones):
    """Pitch and tempo together by `semitones`, through the product's resampler."""
    if abs(semitones) < 1e-3:
        return x
    ratio = 2 ** (semitones / 12)
    return resample(x, int(round(SAMPLE_RATE * ratio)), SAMPLE_RATE)


def _loop(rng, audio, n, semitones):
    audio = varispeed(audio, semitones)
    start = int(rng.integers(0, max(1, len(audio) - n // 2)))
    out = np.concatenate([audio[start:]] + [audio] * (1 + n // max(len(audio), 1)))
    return out[:n]


def _one_shots(rng, family, shots, n):
    """A phrase of one-shots: drum hits in a pattern, or notes of a melodic recording at varied pitch,
    chords for the polyphonic families."""
    out = np.zeros(n + SAMPLE_RATE * 3, dtype=np.float32)
    beat = 60.0 / rng.uniform(70, 170)
    t = 0.0
    if family == "drums":
        pattern = [shots[int(i)] for i in rng.choice(len(shots), size=min(len(shots), int(rng.integers(2, 6))), replace=False)]
        step = beat / float(rng.choice([1, 2, 4]))
        while t * SAMPLE_RATE < n:
            for hit in pattern:
                if rng.random() < 0.6:
                    start = int(t * SAMPLE_RATE)
                    out[start:start + len(hit)] += hit[: len(out) - start] * rng.uniform(0.3, 1.0)
            t += step
        return out[:n]
    shot = shots[int(rng.integers(0, len(shots)))]
    chords = RANGES.get(family, (0, 0, False))[2]
    contour = 0
    while t * SAMPLE_RATE < n:
        duration = beat * float(rng.choice([0.5, 1, 1, 2]))
        contour = int(np.clip(contour + rng.integers(-3, 4), -ONE_SHOT_SEMITONES, ONE_SHOT_SEMITONES))
        intervals = [0, 4, 7] if chords and rng.random() < 0.5 else [0]
        start = int(t * SAMPLE_RATE)
        gain = rng.uniform(0.4, 1.0)
        for interval in intervals:
            note = varispeed(shot, float(np.clip(contour + interval, -ONE_SHOT_SEMITONES, ONE_SHOT_SEMITONES)))
            note = note[: int((duration * 1.5 + 0.3) * SAMPLE_RATE)]
            fade = min(len(note), 400)
            note = note.copy()
            note[len(note) - fade:] *= np.linspace(1, 0, fade, dtype=np.float32)
            out[start:start + len(note)] += note[: len(out) - start] * gain
        t += duration
    return out[:n]


def sampler_clips(rng, family, count, seconds):
    """`count` clips of `seconds` of the family's packaged recordings."""
    found = recordings(family)
    if not found:
        raise ValueError(f"no packaged recordings for {family}")
    n = int(seconds * SAMPLE_RATE)
    loops = [audio for _, audio in found if len(audio) >= LOOP_SECONDS * SAMPLE_RATE]
    shots = [audio for _, audio in found if len(audio) < LOOP_SECONDS * SAMPLE_RATE]
    clips = []
    for _ in range(count):
        if family == "noise" or (loops and (not shots or rng.random() < 0.5)):
            pool = loops + shots if family == "noise" else loops  # noise recordings are never phrased as notes
            audio = pool[int(rng.integers(0, len(pool)))]
            clip = _loop(rng, audio, n, float(rng.uniform(-LOOP_SEMITONES, LOOP_SEMITONES)))
        else:
            clip = _one_shots(rng, family, shots, n)
        clips.append(clip.astype(np.float32))
    return clips
