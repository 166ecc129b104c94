"""Packaged sound sources rendered from MIDI phrases (soundfonts through fluidsynth) and speech from two
formant synthesizers (espeak-ng, espeak 1.48).

freepats (GUS patches) would need timidity, whose output differs from run to run for the same MIDI file
and options (it seeds its own random generator: measured, 5 renders gave 4-5 different files, with or
without its reverb and chorus), which a seeded recipe cannot have: it is left out.

The sources reserved for the unseen-source evaluation (see sonotype.evaluate) are never used here."""

import os
import subprocess
import tempfile
from dataclasses import dataclass, field

import mido
import numpy as np
from scipy.io import wavfile

from . import PROGRAMS, SAMPLE_RATE
from .midi import phrase_events, write_midi
from .resample import resample

SOUNDFONT = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
DRUM_KITS = [0, 8, 16, 24, 25, 32, 40, 48]


@dataclass(frozen=True)
class Soundfont:
    """One sample set and the synthesizer that plays it. `programs`: family -> [(bank, program, gm)], where
    `gm` is the General MIDI program whose range and articulation the phrase follows (a bank's sound
    need not sit at its GM number); `drum_kits`: [(bank, program)] on channel 10; `melodic_kit`: the kit is
    an ordinary preset at bank 0 program 0 (AVL's drum soundfonts), played on channel 1."""
    name: str
    path: str
    programs: dict = field(default_factory=dict)
    drum_kits: tuple = ()
    melodic_kit: bool = False

    def families(self):
        return set(self.programs) | ({"drums"} if self.drum_kits else set())


def gm(programs, bank=0):
    return {family: [(bank, p, p) for p in numbers] for family, numbers in programs.items()}


# csound's sf_GMbank has a General MIDI bank and an MT-32 bank (127) of other recordings; the MT-32
# presets below are the ones whose names put them in a family (fluidsynth's `inst 1` lists them).
MT32 = {
    "piano": [(127, p, g) for p, g in ((0, 0), (1, 1), (2, 2), (3, 4), (4, 4), (5, 5), (7, 3))],
    "organ": [(127, p, g) for p, g in ((8, 16), (9, 17), (10, 18), (11, 16), (12, 19), (13, 19), (14, 20))],
    "guitar": [(127, p, g) for p, g in ((59, 24), (60, 25), (61, 27), (62, 29))],
    "bass": [(127, p, g) for p, g in ((64, 32), (65, 32), (66, 33), (67, 34), (68, 36), (69, 37), (70, 35), (71, 35),
                                      (28, 38), (29, 39))],
    "strings": [(127, p, g) for p, g in ((48, 48), (49, 48), (50, 49), (52, 40), (53, 40), (54, 42), (55, 42), (56, 43))],
    "brass": [(127, p, g) for p, g in ((88, 56), (89, 56), (90, 57), (91, 57), (92, 60), (93, 60), (94, 58), (95, 61),
                                       (96, 61), (24, 62), (25, 63))],
    "woodwind": [(127, p, g) for p, g in ((72, 73), (73, 73), (74, 72), (75, 72), (76, 74), (77, 75), (78, 65), (79, 66),
                                          (80, 64), (81, 67), (82, 71), (83, 71), (84, 68), (85, 69), (86, 70))],
    "synth": [(127, p, g) for p, g in ((32, 88), (37, 99), (44, 84), (47, 80), (36, 97), (125, 89))],
}
SF_GMBANK_VARIATIONS = {
    "piano": [(8, 4, 4), (8, 5, 5)], "organ": [(8, 16, 16), (8, 17, 17), (8, 19, 19)],
    "guitar": [(8, 25, 25), (8, 26, 26), (8, 27, 27), (8, 28, 28), (16, 25, 25)], "bass": [(8, 38, 38), (8, 39, 39)],
    "strings": [(8, 40, 40), (8, 48, 48)], "brass": [(8, 61, 61), (8, 62, 62), (8, 63, 63)], "synth": [(8, 80, 80)],
}


def _merge(*tables):
    merged = {}
    for table in tables:
        for family, entries in table.items():
            merged.setdefault(family, []).extend(entries)
    return merged


SOUNDFONTS = {
    "fluidr3": Soundfont("fluidr3", SOUNDFONT, programs=gm(PROGRAMS), drum_kits=tuple((128, k) for k in DRUM_KITS)),
    "fluidr3-mono": Soundfont("fluidr3-mono", "/usr/share/sounds/sf3/FluidR3Mono_GM.sf3", programs=gm(PROGRAMS),
                              drum_kits=((128, 0), (128, 8), (128, 16), (128, 24), (128, 25), (128, 32), (128, 40), (128, 48))),
    "sf-gmbank": Soundfont("sf-gmbank", "/usr/share/sounds/sf2/sf_GMbank.sf2",
                           programs=_merge(gm(PROGRAMS), MT32, SF_GMBANK_VARIATIONS),
                           drum_kits=tuple((128, k) for k in (0, 8, 16, 24, 25, 32, 40, 48, 127))),
    # FM synthesis of every General MIDI program: only the families FM imitates well enough to carry their label.
    "opl3": Soundfont("opl3", "/usr/share/sounds/sf2/OPL-3_FM_128M.sf2", programs=gm({"organ": PROGRAMS["organ"], "synth": PROGRAMS["synth"]})),
    "avl-black-pearl": Soundfont("avl-black-pearl", "/usr/share/sounds/sf2/Black_Pearl_4_LV2.sf2", drum_kits=((0, 0),), melodic_kit=True),
    "avl-red-zeppelin": Soundfont("avl-red-zeppelin", "/usr/share/sounds/sf2/Red_Zeppelin_4_LV2.sf2", drum_kits=((0, 0),), melodic_kit=True),
}
# General MIDI sound effects (and the GS variations in sf_GMbank) that are noise by the classes' definition
# and sound for as long as the key is held (not the one-shots Car-Stop and Car-Pass).
NOISE_PRESETS = [(0, 122, 122), (0, 125, 125), (0, 126, 126), (1, 122, 122), (1, 125, 125), (2, 122, 122),
                 (3, 122, 122), (4, 122, 122), (6, 125, 125), (7, 125, 125), (9, 125, 125)]


SENTENCES = [
    "the quick brown fox jumps over the lazy dog", "please turn the volume down a little", "we recorded the vocals last night",
    "can you hear the difference between these two takes", "the session starts at nine tomorrow morning",
    "this microphone sounds warmer than the other one", "let us try the chorus again from the top",
    "every good boy deserves fudge", "the weather is lovely today isn't it", "numbers one two three four five six seven",
    "she sells sea shells by the sea shore", "how much wood would a woodchuck chuck", "I will call you back in an hour",
    "the train to the city leaves from platform four", "listen carefully and repeat after me",
    "music is the space between the notes", "open the door and let the light in", "where did you put the headphones",
]


def read_wav(path):
    """A WAV file as 16 kHz mono float32, scaled by its sample format (int16, int32, uint8 or float)."""
    rate, data = wavfile.read(path)
    if data.dtype == np.uint8:
        data = (data.astype(np.float32) - 128.0) / 128.0
    elif data.dtype.kind == "i":
        data = data.astype(np.float32) / float(2 ** (8 * data.dtype.itemsize - 1))
    else:
        data = data.astype(np.float32)
    if data.ndim == 2:
        data = data.mean(axis=1)
    if rate != SAMPLE_RATE:
        data = resample(data, int(rate), SAMPLE_RATE)
    return data


def read_audio(path):
    """Any file sox reads (OGG, FLAC, WAV…) as 16 kHz mono float32, through the product's resampler."""
    with tempfile.TemporaryDirectory() as tmp:
        wav = os.path.join(tmp, "a.wav")
        subprocess.run(["sox", path, "-b", "16", "-c", "1", wav], check=True, capture_output=True)
        return read_wav(wav)


RENDER_RATES = [16000, 22050, 32000, 44100, 48000]
LAYER_PROBABILITY = 0.15


def _soundfont(soundfont):
    if isinstance(soundfont, Soundfont):
        return soundfont
    return Soundfont(os.path.basename(soundfont), soundfont, programs=gm(PROGRAMS), drum_kits=tuple((128, k) for k in DRUM_KITS))


def _voice(events, channel, entry, drums=False):
    """Rewrites the phrase's program change on `channel` to the soundfont's (bank, program) of `entry`."""
    bank, program = entry[0], entry[1]
    out = []
    for t, message in events:
        if message.type == "program_change" and message.channel == channel:
            if not drums:
                out.append((t, mido.Message("control_change", channel=channel, control=0, value=bank)))
            message = message.copy(program=program)
        out.append((t, message))
    return out


def _to_channel(events, source, target):
    return [(t, m.copy(channel=target) if getattr(m, "channel", None) == source else m) for t, m in events]


def sound_effect_events(rng, program, seconds):
    """A sound-effect preset held for the whole phrase (one or two long notes at varied pitch and level)."""
    events = [(0.0, mido.Message("program_change", channel=0, program=program)),
              (0.0, mido.Message("control_change", channel=0, control=7, value=int(rng.integers(80, 128))))]
    t = 0.0
    while t < seconds:
        length = float(rng.uniform(1.0, seconds + 0.5))
        note = int(rng.integers(48, 73))
        events.append((t, mido.Message("note_on", channel=0, note=note, velocity=int(rng.integers(60, 128)))))
        events.append((t + length, mido.Message("note_off", channel=0, note=note)))
        t += length * float(rng.uniform(0.6, 1.0))
    return events


def render_instrument_clips(rng, family, count, seconds, programs=None, soundfont=SOUNDFONT, vary=True):
    """`count` clips of `seconds` of one family from one soundfont (a Soundfont of SOUNDFONTS, or a .sf2 path
    played by fluidsynth with the General MIDI programs), rendered in several runs with the synthesizer's
    reverb and chorus on or off. `family` "noise" plays NOISE_PRESETS. With `vary` (training data), each run
    has a random sample rate (brought to 16 kHz by the product's resampler) and the phrases vary the timbre
    and are sometimes layered; without it (the unseen-source evaluation), plain phrases at 16 kHz.
    `programs`: General MIDI program numbers to restrict the choice to."""
    font = _soundfont(soundfont)
    drums = family == "drums"
    if drums:
        entries = list(font.drum_kits)
    elif family == "noise":
        entries = list(NOISE_PRESETS)
    else:
        entries = list(font.programs.get(family, []))
        if programs is not None:
            entries = [e for e in entries if e[2] in programs]
    if not entries:
        raise ValueError(f"soundfont {font.name} has no {family} programs")
    clips = []
    runs = max(1, min(16 if vary else 4, count // 8))
    per_run = [count // runs + (1 if i < count % runs else 0) for i in range(runs)]
    gap = 1.5  # release tails ring out before the next phrase
    with tempfile.TemporaryDirectory() as tmp:
        for run, n in enumerate(per_run):
            if n == 0:
                continue
            segments = []
            for i in range(n):
                entry = entries[int(rng.integers(0, len(entries)))]
                if family == "noise":
                    events = sound_effect_events(rng, entry[1], seconds + 0.5)
                    events = _voice(events, 0, entry)
                elif drums:
                    events = phrase_events(rng, family, 0, seconds + 0.5, timbre=vary)
                    events = _voice(events, 9, entry, drums=True)
                    if font.melodic_kit:
                        events = _to_channel(_voice(events, 9, (0, 0), drums=True), 9, 0)
                else:
                    layer = None
                    if vary and len(entries) > 1 and rng.random() < LAYER_PROBABILITY:
                        layer = entries[int(rng.integers(0, len(entries)))]
                    events = phrase_events(rng, family, entry[2], seconds + 0.5, layer[2] if layer else None, timbre=vary)
                    events = _voice(events, 0, entry)
                    if layer:
                        events = _voice(events, 1, layer)
                channels = (0,) if drums and font.melodic_kit else (9,) if drums else (0, 1)
                for channel in channels:
                    events.append((seconds + 0.6, mido.Message("control_change", channel=channel, control=123, value=0)))
                    events.append((seconds + 0.6, mido.Message("control_change", channel=channel, control=121, value=0)))
                segments.append((i * (seconds + gap), events))
            midi_path = os.path.join(tmp, f"{family}{run}.mid")
            wav_path = os.path.join(tmp, f"{family}{run}.wav")
            write_midi(midi_path, segments)
            reverb, chorus = int(rng.integers(0, 2)), int(rng.integers(0, 2))
            rate = int(rng.choice(RENDER_RATES)) if vary else SAMPLE_RATE
            subprocess.run(["fluidsynth", "-ni", "-q", "-g", "0.6", "-r", str(rate), "-R", str(reverb), "-C", str(chorus),
                            "-F", wav_path, font.path, midi_path], check=True, capture_output=True)
            audio = read_wav(wav_path)
            length = int(seconds * SAMPLE_RATE)
            for i in range(n):
                start = int(i * (seconds + gap) * SAMPLE_RATE)
                clip = audio[start:start + length]
                clips.append(np.pad(clip, (0, length - len(clip))))
    return clips


SPEECH_LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "pl", "sv", "hi")
# Kept out of training for the held-out split, in both engines (espeak-ng is a fork of espeak: the same
# language rules) and in the crowd murmur of the noise class: these languages, and every fourth
# variant name (sorted over both engines' variants).
HELDOUT_LANGUAGES = ("nl", "pl", "hi")


def espeak_listing(engine, kind=""):
    """The rows of `engine --voices` (or `--voices=variant` with kind "=variant"), split into columns."""
    lines = subprocess.run([engine, f"--voices{kind}"], capture_output=True, text=True, check=True).stdout.splitlines()[1:]
    return [line.split() for line in lines if len(line.split()) > 4]


def heldout_variants():
    names = sorted({row[4].split("/")[-1] for engine in ("espeak-ng", "espeak") for row in espeak_listing(engine, "=variant")})
    return set(names[::4])


def espeak_voices(languages=SPEECH_LANGUAGES, engine="espeak-ng", heldout=False):
    """(voices, variants) of `engine` (espeak-ng, or espeak 1.48) in `languages`: the training ones, or with
    `heldout` the held-out ones (HELDOUT_LANGUAGES, heldout_variants())."""
    kept = heldout_variants()
    voices = sorted({row[4] for row in espeak_listing(engine) if row[1].split("-")[0] in languages
                     and (row[1].split("-")[0] in HELDOUT_LANGUAGES) == heldout})
    variants = sorted({row[4].split("/")[-1] for row in espeak_listing(engine, "=variant")})
    return voices, [v for v in variants if (v in kept) == heldout]


# Sentences of the held-out split, none of them in SENTENCES.
HELDOUT_SENTENCES = [
    "turn left at the second light and park behind the shop", "the printer on the desk is out of paper again",
    "our neighbours painted their front door bright yellow", "I would like two tickets for the late show please",
    "the bakery opens at six every morning except sunday", "the river was so high the bridge had to close",
    "write your name at the top of every page", "he forgot his umbrella on the bus yesterday",
]


def speech_clips(rng, count, seconds, voices, variants, engine="espeak-ng", sentences=SENTENCES):
    length = int(seconds * SAMPLE_RATE)
    clips = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "speech.wav")
        for _ in range(count):
            voice = str(rng.choice(voices))
            if variants and rng.random() < 0.6:
                voice += "+" + str(rng.choice(variants))
            parts = []
            while sum(len(p) for p in parts) < length + SAMPLE_RATE // 2:
                text = " ".join(rng.choice(sentences, size=2, replace=False))
                subprocess.run([engine, "-v", voice, "-s", str(int(rng.integers(110, 230))), "-p", str(int(rng.integers(10, 90))),
                                "-g", str(int(rng.integers(0, 8))), "-w", path, text], check=True, capture_output=True)
                parts.append(read_wav(path))
            audio = np.concatenate(parts)
            start = int(rng.integers(0, max(1, len(audio) - length)))
            clips.append(audio[start:start + length])
    return clips
