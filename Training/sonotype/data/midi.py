"""MIDI phrases for the instrument classes: lines for monophonic instruments, chords for polyphonic
ones, in each instrument's natural range, with varied tempo, velocity, articulation, vibrato,
expression and pitch bend. Phrases are laid end to end in one file per render, separated by rests."""

import mido
import numpy as np

# Natural ranges (MIDI notes) and whether the instrument plays chords.
RANGES = {
    "piano": (36, 96, True), "organ": (36, 88, True), "guitar": (40, 84, True), "bass": (28, 55, False),
    "strings": (43, 96, True), "brass": (40, 82, False), "woodwind": (55, 96, False), "synth": (36, 96, True),
}
DRUM_NOTES = [35, 36, 38, 40, 42, 44, 46, 49, 51, 41, 43, 45, 47, 48, 50, 37, 39, 54, 56, 69, 70, 75, 76]
DRUM_KITS = [0, 8, 16, 24, 25, 32, 40, 48]
TICKS = 480


def _seconds_to_ticks(seconds, tempo_bpm):
    return int(round(seconds * TICKS * tempo_bpm / 60.0))


def phrase_events(rng, family, program, seconds):
    """(time_s, message) events of one phrase of about `seconds` for an instrument family."""
    events = []
    channel = 9 if family == "drums" else 0
    if family == "drums":
        events.append((0.0, mido.Message("program_change", channel=9, program=int(rng.choice(DRUM_KITS)))))
    else:
        events.append((0.0, mido.Message("program_change", channel=0, program=program)))
    events.append((0.0, mido.Message("control_change", channel=channel, control=7, value=int(rng.integers(80, 128)))))
    events.append((0.0, mido.Message("control_change", channel=channel, control=11, value=int(rng.integers(70, 128)))))
    events.append((0.0, mido.Message("control_change", channel=channel, control=1, value=int(rng.choice([0, 0, 30, 70, 110])))))
    events.append((0.0, mido.Message("control_change", channel=channel, control=91, value=int(rng.integers(0, 100)))))
    events.append((0.0, mido.Message("control_change", channel=channel, control=93, value=int(rng.integers(0, 80)))))
    bend = int(rng.choice([0, 0, 0, rng.integers(-1200, 1200)]))
    events.append((0.0, mido.Message("pitchwheel", channel=channel, pitch=bend)))
    beat = 60.0 / rng.uniform(60, 180)
    t = 0.0
    if family == "drums":
        pattern = rng.choice(DRUM_NOTES, size=int(rng.integers(2, 6)), replace=False)
        step = beat / rng.choice([1, 2, 4])
        while t < seconds:
            for note in pattern:
                if rng.random() < 0.6:
                    velocity = int(rng.integers(40, 128))
                    events.append((t, mido.Message("note_on", channel=9, note=int(note), velocity=velocity)))
                    events.append((t + 0.1, mido.Message("note_off", channel=9, note=int(note))))
            t += step
        return events
    low, high, chords = RANGES[family]
    centre = int(rng.integers(low + 6, high - 6))
    legato = rng.uniform(0.5, 1.05)
    while t < seconds:
        duration = beat * float(rng.choice([0.25, 0.5, 1, 1, 2, 3]))
        velocity = int(rng.integers(35, 128))
        root = int(np.clip(centre + rng.integers(-7, 8), low, high))
        if chords and rng.random() < 0.6:
            shape = [[0, 4, 7], [0, 3, 7], [0, 4, 7, 11], [0, 5, 9], [0, 7, 12], [0, 3, 7, 10]][int(rng.integers(0, 6))]
            notes = [n for n in (root + i for i in shape) if low <= n <= high]
        else:
            notes = [root]
        for note in notes:
            events.append((t, mido.Message("note_on", channel=0, note=note, velocity=velocity)))
            events.append((t + duration * legato, mido.Message("note_off", channel=0, note=note)))
        t += duration
        centre = int(np.clip(centre + rng.integers(-3, 4), low + 3, high - 3))
    return events


def write_midi(path, segments, tempo_bpm=120.0):
    """segments: list of (start_s, events) -> one type-0 MIDI file."""
    events = []
    for start, segment in segments:
        events.extend((start + t, m) for t, m in segment)
    events.sort(key=lambda e: (e[0], 0 if e[1].type in ("program_change", "control_change", "pitchwheel") else 1))
    track = mido.MidiTrack()
    track.append(mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(tempo_bpm)))
    last = 0
    for time, message in events:
        tick = _seconds_to_ticks(time, tempo_bpm)
        track.append(message.copy(time=max(0, tick - last)))
        last = max(last, tick)
    midi = mido.MidiFile(type=0, ticks_per_beat=TICKS)
    midi.tracks.append(track)
    midi.save(path)
