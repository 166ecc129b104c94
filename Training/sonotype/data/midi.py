"""MIDI phrases for the instrument classes: lines for monophonic instruments, chords for polyphonic
ones, in each instrument's natural range, with varied tempo, velocity, articulation, vibrato,
expression and pitch bend; the soundfont's own timbre moved through NRPN (filter cutoff and
resonance, attack and release, vibrato, detune) and, now and then, a second program of the same
family layered on the line. Phrases are laid end to end in one file per render, separated by rests."""

import mido
import numpy as np

# Natural ranges (MIDI notes) and whether the instrument plays chords.
RANGES = {
    "piano": (36, 96, True), "organ": (36, 88, True), "guitar": (40, 84, True), "bass": (28, 55, False),
    "strings": (43, 96, True), "brass": (40, 82, False), "woodwind": (55, 96, False), "synth": (36, 96, True),
}
# Programs whose FluidR3 samples go silent inside their family's range: the keys they really play
# (contrabass, tuba, alto and baritone sax, English horn, bassoon), measured note by note.
PROGRAM_RANGES = {43: (28, 57), 58: (28, 72), 65: (49, 83), 67: (36, 71), 69: (52, 84), 70: (34, 83)}
DRUM_NOTES = [35, 36, 38, 40, 42, 44, 46, 49, 51, 41, 43, 45, 47, 48, 50, 37, 39, 54, 56, 69, 70, 75, 76]
DRUM_KITS = [0, 8, 16, 24, 25, 32, 40, 48]
TICKS = 480
SUSTAINED = {"organ", "strings", "brass", "woodwind", "synth"}

# SoundFont 2 generators that fluidsynth lets MIDI offset through NRPN (CC99 = 120, CC98 = generator,
# data entry CC38 then CC6 = 8192 + offset), with the offsets that audibly change FluidR3's sounds at
# 16 kHz (smaller ones often do nothing): generator -> (lowest, highest offset).
TIMBRE_GENERATORS = {
    8: (-2500, 0),      # initialFilterFc: a darker low-pass (-3500 all but silences high notes)
    9: (0, 150),        # initialFilterQ: resonance
    34: (0, 4000),      # attackVolEnv: slower attack (sustained families only)
    38: (-1500, 4000),  # releaseVolEnv
    6: (0, 300),        # vibLfoToPitch: vibrato depth
    24: (-1500, 1500),  # freqVibLFO: vibrato rate
    52: (-40, 40),      # fineTune: detune in cents
}


def _seconds_to_ticks(seconds, tempo_bpm):
    return int(round(seconds * TICKS * tempo_bpm / 60.0))


def timbre_events(rng, family, channel):
    """NRPN events that set every generator of TIMBRE_GENERATORS on `channel`: about half the phrases keep
    the soundfont's own sound (all offsets 0), the others move a few generators. Setting all of them each
    phrase leaves nothing behind from the previous phrase of the same render."""
    vary = rng.random() < 0.5
    offsets = {}
    for generator, (low, high) in TIMBRE_GENERATORS.items():
        offsets[generator] = 0
        if vary and rng.random() < 0.4 and (generator != 34 or family in SUSTAINED):
            offsets[generator] = int(rng.integers(low, high + 1))
    return nrpn_events(channel, offsets)


def nrpn_events(channel, offsets):
    """Events at time 0 that offset SoundFont generators ({generator: offset}) on `channel`."""
    events = []
    for generator, offset in offsets.items():
        value = 8192 + offset
        for control, data in ((99, 120), (98, generator), (38, value & 127), (6, value >> 7)):
            events.append((0.0, mido.Message("control_change", channel=channel, control=control, value=data)))
    return events


def phrase_events(rng, family, program, seconds, layer_program=None, timbre=True):
    """(time_s, message) events of one phrase of about `seconds` for an instrument family; with
    `timbre`, NRPN timbre variation; with `layer_program`, channel 1 doubles the notes with that
    program, quieter and with a timbre of its own."""
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
    if timbre:
        events.extend(timbre_events(rng, family, channel))
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
    for start, duration, note, velocity in _phrase_notes(rng, family, program, seconds, beat):
        events.append((start, mido.Message("note_on", channel=0, note=note, velocity=velocity)))
        events.append((start + duration, mido.Message("note_off", channel=0, note=note)))
    if layer_program is not None:
        events.extend(layer_events(rng, family, layer_program, events))
    return events


def phrase_notes(rng, family, seconds, program=None, note_range=None):
    """The notes of one phrase of about `seconds` for an instrument family, as phrase_events plays them:
    [(start_s, duration_s, midi_note, velocity)], chord notes sharing a start. `program` narrows the range
    to PROGRAM_RANGES; `note_range` = (low, high) replaces it (at least 13 semitones wide)."""
    beat = 60.0 / rng.uniform(60, 180)
    return _phrase_notes(rng, family, program, seconds, beat, note_range)


def _phrase_notes(rng, family, program, seconds, beat, note_range=None):
    low, high, chords = RANGES[family]
    low, high = note_range if note_range is not None else PROGRAM_RANGES.get(program, (low, high))
    centre = int(rng.integers(low + 6, high - 6))
    legato = rng.uniform(0.5, 1.05)
    notes = []
    t = 0.0
    while t < seconds:
        duration = beat * float(rng.choice([0.25, 0.5, 1, 1, 2, 3]))
        velocity = int(rng.integers(35, 128))
        root = int(np.clip(centre + rng.integers(-7, 8), low, high))
        if chords and rng.random() < 0.6:
            shape = [[0, 4, 7], [0, 3, 7], [0, 4, 7, 11], [0, 5, 9], [0, 7, 12], [0, 3, 7, 10]][int(rng.integers(0, 6))]
            chord = [n for n in (root + i for i in shape) if low <= n <= high]
        else:
            chord = [root]
        notes.extend((t, duration * legato, note, velocity) for note in chord)
        t += duration
        centre = int(np.clip(centre + rng.integers(-3, 4), low + 3, high - 3))
    return notes


def layer_events(rng, family, program, events):
    """Channel 1 doubling the notes of channel 0 with another program, quieter, with its own timbre."""
    layer = [(0.0, mido.Message("program_change", channel=1, program=program)),
             (0.0, mido.Message("control_change", channel=1, control=7, value=int(rng.integers(50, 100)))),
             (0.0, mido.Message("control_change", channel=1, control=11, value=127)),
             (0.0, mido.Message("pitchwheel", channel=1, pitch=0))]
    layer.extend((t, m.copy(channel=1)) for t, m in timbre_events(rng, family, 1))
    layer.extend((t, m.copy(channel=1)) for t, m in events if m.type in ("note_on", "note_off"))
    return layer


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
