"""Drum patterns with known hit times, rendered by fluidsynth through Debian's soundfonts: the
per-hit mode's test and evaluation material (`python3 -m sonotype.hits.evaluate` reports on it)."""

import random
import subprocess
from pathlib import Path

import mido

# name: (soundfont, MIDI channel of its drum kit). General MIDI banks have their kit on channel 10;
# the AVL kits are an ordinary preset (bank 0, program 0), played on channel 1.
KITS = {
    "FluidR3": ("/usr/share/sounds/sf2/FluidR3_GM.sf2", 9),
    "GM bank (sf_GMbank)": ("/usr/share/sounds/sf2/sf_GMbank.sf2", 9),
    "TimGM6mb": ("/usr/share/sounds/sf2/TimGM6mb.sf2", 9),
    "OPL3 FM": ("/usr/share/sounds/sf2/OPL-3_FM_128M.sf2", 9),
    "AVL Black Pearl": ("/usr/share/sounds/sf2/Black_Pearl_4_LV2.sf2", 0),
    "AVL Red Zeppelin": ("/usr/share/sounds/sf2/Red_Zeppelin_4_LV2.sf2", 0),
}
PIECES = {"kick": 36, "snare": 38, "hat": 42}


def render_pattern(path, soundfont, channel, seed, seconds=12.0, pieces=("kick", "snare", "hat"), gaps=(0.125, 0.25, 0.375, 0.5)):
    """Renders random hits of `pieces`, `gaps` seconds apart, to the WAV `path` (44.1 kHz); returns
    [(time in seconds, piece)] of the hits."""
    rng = random.Random(seed)
    hits, t = [], 0.5
    while t < seconds:
        hits.append((t, rng.choice(pieces), rng.randint(60, 120)))
        t += rng.choice(gaps)
    events = sorted([(t, "note_on", PIECES[p], v) for t, p, v in hits] + [(t + 0.1, "note_off", PIECES[p], 0) for t, p, _ in hits])
    midi = mido.MidiFile(ticks_per_beat=480)
    track = mido.MidiTrack()
    midi.tracks.append(track)
    track.append(mido.MetaMessage("set_tempo", tempo=500000))
    last = 0.0
    for t, kind, note, velocity in events:
        track.append(mido.Message(kind, channel=channel, note=note, velocity=velocity, time=int(round((t - last) * 960))))
        last = t
    path = Path(path)
    midi_path = path.with_suffix(".mid")
    midi.save(midi_path)
    subprocess.run(["fluidsynth", "-ni", "-g", "0.8", "-r", "44100", "-F", str(path), soundfont, str(midi_path)], check=True, capture_output=True)
    return [(t, p) for t, p, _ in hits]


def f_measure(truth, found, tolerance=0.025):
    """(F-measure, precision, recall, [found - true for each match]) of onset times in seconds."""
    used, matched, errors = set(), 0, []
    for t in truth:
        candidates = [(abs(f - t), i) for i, f in enumerate(found) if i not in used and abs(f - t) <= tolerance]
        if candidates:
            _, best = min(candidates)
            used.add(best)
            matched += 1
            errors.append(found[best] - t)
    precision, recall = matched / max(len(found), 1), matched / max(len(truth), 1)
    return 2 * precision * recall / max(precision + recall, 1e-9), precision, recall, errors
