"""Sound sources: FluidR3 GM through fluidsynth, espeak-ng voices, noise and silence made in code."""

import os
import subprocess
import tempfile

import mido
import numpy as np
from scipy import signal as sps
from scipy.io import wavfile

from . import PROGRAMS, SAMPLE_RATE
from .midi import phrase_events, write_midi
from .resample import resample

SOUNDFONT = "/usr/share/sounds/sf2/FluidR3_GM.sf2"

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
    rate, data = wavfile.read(path)
    data = data.astype(np.float32)
    if data.dtype.kind != "f" or np.abs(data).max() > 1.5:
        data = data / 32768.0
    if data.ndim == 2:
        data = data.mean(axis=1)
    if rate != SAMPLE_RATE:
        data = resample(data, int(rate), SAMPLE_RATE)
    return data


RENDER_RATES = [16000, 22050, 32000, 44100, 48000]
LAYER_PROBABILITY = 0.15


def render_instrument_clips(rng, family, count, seconds, programs=None, soundfont=SOUNDFONT, vary=True):
    """`count` clips of `seconds` of one instrument family, rendered in several fluidsynth runs with
    reverb and chorus on or off. With `vary` (training data), each run has a random sample rate (brought
    to 16 kHz by the product's resampler) and the phrases vary the timbre and are sometimes layered;
    without it (the unseen-source evaluation), plain phrases at 16 kHz."""
    programs = programs if programs is not None else PROGRAMS.get(family, [0])
    clips = []
    runs = max(1, min(16 if vary else 4, count // 8))
    per_run = [count // runs + (1 if i < count % runs else 0) for i in range(runs)]
    gap = 1.5  # release tails ring out before the next phrase
    with tempfile.TemporaryDirectory() as tmp:
        for run, n in enumerate(per_run):
            segments = []
            for i in range(n):
                layer = None
                if vary and family != "drums" and len(programs) > 1 and rng.random() < LAYER_PROBABILITY:
                    layer = int(rng.choice(programs))
                events = phrase_events(rng, family, int(rng.choice(programs)), seconds + 0.5, layer, timbre=vary)
                for channel in ((9,) if family == "drums" else (0, 1)):
                    events.append((seconds + 0.6, mido.Message("control_change", channel=channel, control=123, value=0)))
                    events.append((seconds + 0.6, mido.Message("control_change", channel=channel, control=121, value=0)))
                segments.append((i * (seconds + gap), events))
            midi_path = os.path.join(tmp, f"{family}{run}.mid")
            wav_path = os.path.join(tmp, f"{family}{run}.wav")
            write_midi(midi_path, segments)
            reverb, chorus = int(rng.integers(0, 2)), int(rng.integers(0, 2))
            rate = int(rng.choice(RENDER_RATES)) if vary else SAMPLE_RATE
            subprocess.run(["fluidsynth", "-ni", "-q", "-g", "0.6", "-r", str(rate), "-R", str(reverb), "-C", str(chorus),
                            "-F", wav_path, soundfont, midi_path], check=True, capture_output=True)
            audio = read_wav(wav_path)
            length = int(seconds * SAMPLE_RATE)
            for i in range(n):
                start = int(i * (seconds + gap) * SAMPLE_RATE)
                clip = audio[start:start + length]
                clips.append(np.pad(clip, (0, length - len(clip))))
    return clips


def espeak_voices(languages=("en", "de", "fr", "es", "it", "nl", "pt", "pl", "sv", "hi")):
    """espeak-ng voice names: English voices and variants plus a few other languages."""
    listing = subprocess.run(["espeak-ng", "--voices"], capture_output=True, text=True, check=True).stdout.splitlines()[1:]
    voices = sorted({line.split()[4] for line in listing if line.split() and line.split()[1].split("-")[0] in languages})
    variants = subprocess.run(["espeak-ng", "--voices=variant"], capture_output=True, text=True, check=True).stdout.splitlines()[1:]
    variant_names = sorted({line.split()[4].split("/")[-1] for line in variants if line.split()})
    return voices, variant_names


def speech_clips(rng, count, seconds, voices, variants):
    length = int(seconds * SAMPLE_RATE)
    clips = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "speech.wav")
        for _ in range(count):
            voice = str(rng.choice(voices))
            if rng.random() < 0.6:
                voice += "+" + str(rng.choice(variants))
            parts = []
            while sum(len(p) for p in parts) < length + SAMPLE_RATE // 2:
                text = " ".join(rng.choice(SENTENCES, size=2, replace=False))
                subprocess.run(["espeak-ng", "-v", voice, "-s", str(int(rng.integers(110, 230))), "-p", str(int(rng.integers(10, 90))),
                                "-g", str(int(rng.integers(0, 8))), "-w", path, text], check=True, capture_output=True)
                parts.append(read_wav(path))
            audio = np.concatenate(parts)
            start = int(rng.integers(0, max(1, len(audio) - length)))
            clips.append(audio[start:start + length])
    return clips


def coloured_noise(rng, n, exponent):
    """Noise with a 1/f^exponent power spectrum (0 white, 1 pink, 2 brown)."""
    spectrum = np.fft.rfft(rng.standard_normal(n))
    freqs = np.maximum(np.fft.rfftfreq(n), 1.0 / n)
    noise = np.fft.irfft(spectrum / freqs ** (exponent / 2.0), n)
    return (noise / (np.abs(noise).max() + 1e-9)).astype(np.float32)


def noise_clip(rng, seconds):
    n = int(seconds * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    kind = rng.integers(0, 5)
    if kind == 0:
        return coloured_noise(rng, n, float(rng.choice([0.0, 1.0, 2.0])))
    if kind == 1:  # mains hum with harmonics
        mains = float(rng.choice([50.0, 60.0]))
        hum = sum(rng.uniform(0.1, 1.0) / h * np.sin(2 * np.pi * mains * h * t + rng.uniform(0, 6)) for h in range(1, 8))
        return (hum / np.abs(hum).max() + 0.05 * coloured_noise(rng, n, 1.0)).astype(np.float32)
    if kind == 2:  # fan: band-passed noise with a slow wobble
        low = rng.uniform(50, 400)
        b, a = sps.butter(2, [low, low * rng.uniform(2, 8)], btype="band", fs=SAMPLE_RATE)
        x = sps.lfilter(b, a, rng.standard_normal(n)) * (1 + 0.2 * np.sin(2 * np.pi * rng.uniform(0.2, 3) * t))
        return (x / np.abs(x).max()).astype(np.float32)
    if kind == 3:  # vinyl-like crackle over hiss
        x = 0.05 * coloured_noise(rng, n, 0.0)
        clicks = rng.random(n) < rng.uniform(0.0005, 0.005)
        x[clicks] += rng.uniform(-1, 1, clicks.sum())
        return x.astype(np.float32)
    b, a = sps.butter(4, rng.uniform(500, 6000), btype=str(rng.choice(["low", "high"])), fs=SAMPLE_RATE)
    x = sps.lfilter(b, a, rng.standard_normal(n))
    return (x / np.abs(x).max()).astype(np.float32)


def silence_clip(rng, seconds):
    n = int(seconds * SAMPLE_RATE)
    if rng.random() < 0.3:
        return np.zeros(n, dtype=np.float32)
    level_db = rng.uniform(-110, -70)  # a noise floor below -65 dBFS
    return (coloured_noise(rng, n, float(rng.choice([0.0, 1.0]))) * 10 ** (level_db / 20)).astype(np.float32)
