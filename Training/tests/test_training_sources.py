"""The training data's sources: every class draws from several kinds of source, every packaged source
plays what the catalogue says it plays, and no source reserved for the unseen-source evaluation is used."""

import os
import re

import numpy as np
import pytest

from scipy.io import wavfile

from sonotype.data import CLASSES, SAMPLE_RATE, catalogue, noises, samplers
from sonotype.data.__main__ import random_crop
from sonotype.data.sources import (HELDOUT_LANGUAGES, HELDOUT_SENTENCES, SENTENCES, SOUNDFONTS, espeak_voices, heldout_variants,
                                   read_wav, render_instrument_clips)

DATA = os.path.join(os.path.dirname(__file__), "..", "sonotype", "data")
RESERVED = ["musescore", "timgm6mb", "flite", "festival", "festvox", "text2wave", "sonic-pi", "hydrogen", "ktuberling", "hedgewars",
            "supercollider", "scratch", "sounds/alsa", "@audio-samples", "@tonejs"]


def rms_db(x):
    return 20 * np.log10(np.sqrt(np.mean(np.square(x, dtype=np.float64))) + 1e-12)


def test_no_reserved_source_in_the_training_code():
    for name in sorted(os.listdir(DATA)):
        if name.endswith(".py"):
            text = open(os.path.join(DATA, name)).read().lower()
            found = [r for r in RESERVED if r in text]
            assert not found, f"{name} names {found}: reserved for the unseen-source evaluation"


def test_every_class_draws_from_several_kinds_of_source():
    for label in CLASSES:
        sources = catalogue.sources_for(label)
        assert abs(sum(s.weight for s in sources) - 1) < 1e-9
        if label in catalogue.INSTRUMENTS:
            kinds = {s.kind for s in sources}
            fonts = [s for s in sources if s.kind == "soundfont"]
            assert {"soundfont", "sampler"} <= kinds, label
            assert len(fonts) >= 3, f"{label}: {[s.name for s in fonts]}"
            assert max(s.weight for s in sources) < 0.35, f"{label}: one source dominates"
    assert [s.name for s in catalogue.sources_for("speech")] == ["espeak-ng", "espeak"]


def test_allocation_and_left_out_sources():
    sources = catalogue.sources_for("organ")
    for count in (1, 2, 7, 100, 2400):
        counts = catalogue.allocate(count, sources)
        assert sum(counts) == count and min(counts) >= 0
    counts = catalogue.allocate(1000, sources)
    for s, n in zip(sources, counts):
        assert abs(n - 1000 * s.weight) <= 1
    without = catalogue.sources_for("organ", without=("soundfont",))
    assert {s.kind for s in without} == {"synth", "sampler"}
    assert catalogue.expand(("soundfont",)) == sorted(SOUNDFONTS)
    with pytest.raises(ValueError, match="unknown source nosuch"):
        catalogue.expand(("nosuch",))
    with pytest.raises(ValueError, match="every source of speech is left out"):
        catalogue.sources_for("speech", without=("speech",))


@pytest.mark.parametrize("name", sorted(SOUNDFONTS))
def test_each_soundfont_plays_every_family_it_claims(name):
    """A clip of every family a soundfont is listed for is audible: a bank, program or kit that maps to
    nothing (a silent preset) would teach the instrument classes silence."""
    font = SOUNDFONTS[name]
    rng = np.random.default_rng(3)
    for family in sorted(font.families()):
        clips = render_instrument_clips(rng, family, 2, 1.5, soundfont=font)
        assert len(clips) == 2 and all(len(c) == int(1.5 * SAMPLE_RATE) for c in clips)
        for clip in clips:
            assert np.isfinite(clip).all()
            assert rms_db(clip) > -60, f"{name} {family}: {rms_db(clip):.0f} dBFS"


@pytest.mark.parametrize("name", ["fluidr3", "sf-gmbank"])
def test_renders_are_reproducible_from_the_seed(name):
    """The same seed renders the same audio (fluidsynth is deterministic; timidity was not, and is not used)."""
    a = render_instrument_clips(np.random.default_rng(3), "strings", 3, 1.5, soundfont=SOUNDFONTS[name])
    b = render_instrument_clips(np.random.default_rng(3), "strings", 3, 1.5, soundfont=SOUNDFONTS[name])
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_heldout_speech_shares_no_language_variant_or_sentence_with_training():
    seen = set()
    for engine in ("espeak-ng", "espeak"):
        voices, variants = espeak_voices(engine=engine)
        held_voices, held_variants = espeak_voices(engine=engine, heldout=True)
        assert voices and variants and held_voices and held_variants
        assert not set(voices) & set(held_voices) and not set(variants) & set(held_variants)
        seen |= set(variants)
    for engine in ("espeak-ng", "espeak"):
        assert not seen & set(espeak_voices(engine=engine, heldout=True)[1])  # across the engines too
    assert not set(SENTENCES) & set(HELDOUT_SENTENCES)
    crowd_voices, crowd_variants = noises._espeak_voices()
    assert not {v for v in crowd_voices if v.split("-")[0] in HELDOUT_LANGUAGES}
    assert not set(crowd_variants) & heldout_variants()


def test_wav_files_are_scaled_by_their_sample_format(tmp_path):
    """A quiet 16-bit file stays quiet (one LSB is -90 dBFS), 32-bit and 8-bit files are scaled by their own range."""
    for data, expected in ((np.array([1, -1, 0, 1] * 4000, np.int16), 1 / 32768), (np.array([2 ** 30] * 16000, np.int32), 0.5),
                           (np.array([192] * 16000, np.uint8), 0.5), (np.array([0.25] * 16000, np.float32), 0.25)):
        wavfile.write(tmp_path / "a.wav", SAMPLE_RATE, data)
        assert abs(np.abs(read_wav(str(tmp_path / "a.wav"))).max() - expected) < 1e-6


def test_quiet_gaps_of_a_loud_clip_are_not_labelled_with_its_class():
    """A crop that is only the floor under a loud clip's gap (50 dB under its loudest second) is drawn again."""
    t = np.arange(3 * SAMPLE_RATE) / SAMPLE_RATE
    clip = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    clip[SAMPLE_RATE:] = 0.5 * 10 ** (-50 / 20) * np.sin(2 * np.pi * 440 * t[SAMPLE_RATE:])  # peak -56 dBFS: above -60
    rng = np.random.default_rng(1)
    crops = [random_crop(rng, clip, SAMPLE_RATE, quiet_allowed=False) for _ in range(50)]
    kept = [c for c in crops if c is not None]
    assert kept and all(np.abs(c).max() > 0.1 for c in kept)  # every kept crop holds some of the loud second


def test_sampler_plays_packaged_recordings_at_the_asked_pitch():
    for family in samplers.FILES:
        assert samplers.recordings(family), f"no recordings for {family}"
    rng = np.random.default_rng(5)
    for family in ("piano", "drums", "bass", "woodwind"):
        for clip in samplers.sampler_clips(rng, family, 3, 2.0):
            assert len(clip) == 2 * SAMPLE_RATE and np.isfinite(clip).all() and rms_db(clip) > -50
    t = np.arange(SAMPLE_RATE) / SAMPLE_RATE
    tone = np.sin(2 * np.pi * 440 * t).astype(np.float32)
    up = samplers.varispeed(tone, 12)
    spectrum = np.abs(np.fft.rfft(up * np.hanning(len(up))))
    assert abs(np.argmax(spectrum) * SAMPLE_RATE / len(up) - 880) < 3
    assert abs(len(up) - SAMPLE_RATE / 2) <= 2


def test_sound_effect_presets_are_noise_not_notes():
    """The General MIDI effects used for noise (seashore, helicopter, applause, rain, wind, engines) are
    broadband: a spectral flatness far above a note's."""
    rng = np.random.default_rng(6)
    clips = render_instrument_clips(rng, "noise", 6, 2.0, soundfont=SOUNDFONTS["sf-gmbank"])
    flatness = []
    for clip in clips:
        power = np.abs(np.fft.rfft(clip)) ** 2 + 1e-20
        flatness.append(np.exp(np.mean(np.log(power))) / np.mean(power))
    notes = render_instrument_clips(rng, "woodwind", 2, 2.0, soundfont=SOUNDFONTS["sf-gmbank"])
    note_flatness = max(np.exp(np.mean(np.log(np.abs(np.fft.rfft(n)) ** 2 + 1e-20))) / np.mean(np.abs(np.fft.rfft(n)) ** 2) for n in notes)
    assert np.median(flatness) > 10 * note_flatness


def test_source_names_are_plain():
    for name in catalogue.names():
        assert re.fullmatch(r"[a-z0-9-]+", name)
