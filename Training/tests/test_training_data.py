"""The training data's building blocks: the resampler path, the soundfont's playable keys, NRPN timbre
control, and quiet crops kept out of the instrument classes."""

import json
import os
import subprocess
import tempfile

import mido
import numpy as np
import torch

from sonotype.data import CLASSES, FRONTEND, PROGRAMS, SAMPLE_RATE
from sonotype.data.__main__ import featurise
from sonotype.data.midi import PROGRAM_RANGES, nrpn_events, write_midi
from sonotype.data.resample import resample
from sonotype.data.sources import SOUNDFONT, read_wav, render_instrument_clips
from sonotype.engine_cli import cli_path
from sonotype.frontend import LogMelFrontend


def chirp(rate, seconds, seed=0):
    t = np.arange(int(rate * seconds)) / rate
    noise = 0.05 * np.random.default_rng(seed).standard_normal(len(t))
    return (0.4 * np.sin(2 * np.pi * (200 + 900 * t) * t) + noise).astype(np.float32)


def test_training_audio_is_resampled_like_the_product(tmp_path):
    """Clips rendered at other rates go through libsoxr as the C++ front end does: the features match
    `sonotype features --rate` except in the top mel bands, where only the resampler's stopband residue
    (about -100 dB) differs."""
    frontend = LogMelFrontend(**FRONTEND)
    settings = tmp_path / "frontend.json"
    settings.write_text(json.dumps(frontend.frontend_settings()))
    for rate in (22050, 32000, 44100, 48000):
        x = chirp(rate, 1.3)
        np.save(tmp_path / "x.npy", x)
        subprocess.run([cli_path(), "features", "--frontend", settings, "--input", tmp_path / "x.npy", "--output",
                        tmp_path / "y.npy", "--rate", str(rate)], check=True)
        product = np.load(tmp_path / "y.npy")
        resampled = resample(x, rate, SAMPLE_RATE)
        assert len(resampled) == round(len(x) * SAMPLE_RATE / rate)
        with torch.no_grad():
            ours = frontend(torch.from_numpy(resampled)).numpy()
        assert ours.shape == product.shape
        assert np.abs(ours[:60] - product[:60]).max() * FRONTEND["std"] < 0.05  # dB


def test_every_program_plays_in_its_range():
    """FluidR3's contrabass, tuba, some saxes, English horn and bassoon fall silent above their real
    range; phrases for them stay inside PROGRAM_RANGES, so no instrument clip is silence."""
    rng = np.random.default_rng(11)
    for program in PROGRAM_RANGES:
        family = next(name for name, programs in PROGRAMS.items() if program in programs)
        for clip in render_instrument_clips(rng, family, 3, 2.0, programs=[program]):
            rms_db = 20 * np.log10(np.sqrt(np.mean(clip ** 2)) + 1e-12)
            assert rms_db > -55, f"program {program}: clip at {rms_db:.0f} dBFS"


def render_note(events, note=84, program=48):
    midi = [(0.0, mido.Message("program_change", channel=0, program=program)), *events,
            (0.01, mido.Message("note_on", channel=0, note=note, velocity=100)),
            (1.0, mido.Message("note_off", channel=0, note=note))]
    with tempfile.TemporaryDirectory() as tmp:
        write_midi(os.path.join(tmp, "a.mid"), [(0.0, midi)])
        subprocess.run(["fluidsynth", "-ni", "-q", "-r", str(SAMPLE_RATE), "-R", "0", "-C", "0", "-F", os.path.join(tmp, "a.wav"),
                        SOUNDFONT, os.path.join(tmp, "a.mid")], check=True, capture_output=True)
        return read_wav(os.path.join(tmp, "a.wav"))[: SAMPLE_RATE]


def band_db(x, low, high):
    spectrum = np.abs(np.fft.rfft(x)) ** 2
    freqs = np.fft.rfftfreq(len(x), 1 / SAMPLE_RATE)
    return 10 * np.log10(spectrum[(freqs >= low) & (freqs < high)].sum() + 1e-20)


def test_nrpn_moves_the_soundfont_filter():
    plain = render_note(nrpn_events(0, {8: 0}))
    dark = render_note(nrpn_events(0, {8: -2500}))
    assert band_db(plain, 3000, 8000) - band_db(dark, 3000, 8000) > 10  # the low-pass closed
    assert abs(band_db(plain, 0, 8000) - band_db(render_note([]), 0, 8000)) < 0.1  # offset 0 changes nothing


def test_quiet_crops_are_not_given_instrument_labels():
    """A window under -60 dBFS is silence by the classes' definition: crops of other classes that quiet are
    drawn again; silence keeps them."""
    clip = np.concatenate([np.zeros(2 * SAMPLE_RATE, np.float32), 0.3 * chirp(SAMPLE_RATE, 1.2)])
    piano, silence = CLASSES.index("piano"), CLASSES.index("silence")
    features, labels = featurise([clip] * 20, [piano] * 20, np.random.default_rng(0), 1)
    assert len(labels) == 20 and (labels == piano).all()
    assert (features.astype(np.float32).std(axis=(1, 2)) > 0.1).all()  # none is the constant floor of zeros
    features, _ = featurise([clip] * 20, [silence] * 20, np.random.default_rng(0), 1)
    assert (features.astype(np.float32).std(axis=(1, 2)) == 0).any()
