"""The code-written sources of the training data: every noise kind and instrument family renders, at
the right length and level, and each has the structure its label needs (blade-pass tones, mains
peaks, speech-band murmur without gaps, periodic decaying plucks, an inharmonic piano, a sustaining
organ, silence under -60 dBFS)."""

import numpy as np
import pytest

from sonotype.data import PROGRAMS, SAMPLE_RATE
from sonotype.data import noises, synths
from sonotype.data.midi import PROGRAM_RANGES, RANGES

SR = SAMPLE_RATE


def peak_db(x):
    return 20 * np.log10(np.abs(x).max() + 1e-20)


def rms_db(x):
    return 10 * np.log10(np.mean(np.asarray(x, np.float64) ** 2) + 1e-20)


def frame_db(x, seconds=0.02):
    size = int(seconds * SR)
    frames = x[: len(x) // size * size].reshape(-1, size).astype(np.float64)
    return 10 * np.log10(np.mean(frames ** 2, axis=1) + 1e-20)


def longest_run(mask):
    best = run = 0
    for value in mask:
        run = run + 1 if value else 0
        best = max(best, run)
    return best


def power_spectrum(x):
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x)), 8 * len(x))) ** 2
    return np.fft.rfftfreq(8 * len(x), 1 / SR), spectrum


def band_power(freqs, spectrum, low, high):
    return spectrum[(freqs >= low) & (freqs <= high)]


@pytest.mark.parametrize("kind", list(noises.NOISE_KINDS))
def test_every_noise_kind_renders_at_full_level(kind):
    clips = [noises.noise_clip(np.random.default_rng(seed), 1.5, kind=kind) for seed in (1, 2)]
    for x in clips:
        assert x.dtype == np.float32 and x.shape == (int(1.5 * SR),)
        assert np.isfinite(x).all()
        assert abs(peak_db(x) + 1.0) < 0.05
        assert rms_db(x) > -45  # audible noise, not a click in silence
    assert not np.allclose(clips[0], clips[1])  # the seed draws the parameters


def test_noise_kind_is_checked():
    with pytest.raises(ValueError, match="unknown noise kind 'thunder'"):
        noises.noise_clip(np.random.default_rng(0), 1.0, kind="thunder")


def test_noise_floors_have_unit_rms():
    for kind in noises.FLOOR_KINDS:
        x = noises.noise_floor(np.random.default_rng(3), SR, kind=kind)
        assert x.dtype == np.float32 and len(x) == SR and np.isfinite(x).all()
        assert abs(np.sqrt(np.mean(x.astype(np.float64) ** 2)) - 1.0) < 1e-3


def test_silence_stays_under_minus_60_dbfs():
    rng = np.random.default_rng(5)
    peaks = [peak_db(noises.silence_clip(rng, 1.0)) for _ in range(60)]
    zeros = [p for p in peaks if p < -300]
    floors = [p for p in peaks if p >= -300]
    assert 5 <= len(zeros) <= 30  # about a quarter digital zero
    assert max(floors) <= -60.0 + 1e-3
    assert min(floors) >= -90.0 - 1e-3
    assert max(floors) - min(floors) > 15  # levels spread over the range, not one value


@pytest.mark.parametrize("blades,rpm", [(5, 1500), (7, 2400), (3, 900)])
def test_fan_has_its_blade_pass_tone(blades, rpm):
    blade_pass = blades * rpm / 60
    x = noises.fan(np.random.default_rng(blades), 3 * SR, blades=blades, rpm=rpm)
    freqs, spectrum = power_spectrum(x)
    near = band_power(freqs, spectrum, blade_pass * 0.97, blade_pass * 1.03).max()
    around = np.median(np.concatenate([band_power(freqs, spectrum, blade_pass * 0.6, blade_pass * 0.85),
                                       band_power(freqs, spectrum, blade_pass * 1.15, blade_pass * 1.4)]))
    assert 10 * np.log10(near / around) > 15


@pytest.mark.parametrize("mains", [50.0, 60.0])
def test_hum_peaks_at_the_mains_frequency(mains):
    x = noises.hum(np.random.default_rng(int(mains)), 2 * SR, mains=mains)
    freqs, spectrum = power_spectrum(x)
    at_mains = band_power(freqs, spectrum, mains - 1, mains + 1).max()
    other = 60.0 if mains == 50.0 else 50.0  # the other country's mains is not there
    assert 10 * np.log10(at_mains / band_power(freqs, spectrum, other - 1, other + 1).max()) > 30
    strongest = freqs[np.argmax(np.where(freqs < 1000, spectrum, 0))]  # the loudest line is one of its harmonics
    harmonic = round(strongest / mains)
    assert harmonic >= 1 and abs(strongest - harmonic * mains) < 0.004 * harmonic * mains + 0.5


def test_crowd_murmur_is_speech_band_without_gaps_and_smoother_than_one_voice():
    rng = np.random.default_rng(7)
    crowd = noises.crowd(rng, 3 * SR, voices=16)
    freqs, spectrum = power_spectrum(crowd)
    speech_band = band_power(freqs, spectrum, 150, 4000).sum() / spectrum.sum()
    assert speech_band > 0.85
    frames = frame_db(crowd, 0.05)
    assert frames.min() > np.median(frames) - 20  # no gap between words: many voices overlap
    # one voice rises and falls with its syllables and pauses; sixteen fill each other's gaps (on average
    # over a few draws: one reverberant voice can be smooth by chance)
    singles = [np.std(frame_db(noises.crowd(np.random.default_rng(seed), 3 * SR, voices=1), 0.05)) for seed in (1, 2, 3)]
    crowds = [np.std(frame_db(noises.crowd(np.random.default_rng(seed), 3 * SR, voices=16), 0.05)) for seed in (1, 2, 3)]
    assert np.mean(singles) > np.mean(crowds) + 3


@pytest.mark.parametrize("family", synths.FAMILIES)
def test_every_synth_family_and_model_renders_audibly_throughout(family):
    for model in synths.MODELS[family]:
        x = synths.synth_clip(np.random.default_rng(11), family, 2.0, model=model)
        assert x.dtype == np.float32 and x.shape == (2 * SR,), model
        assert np.isfinite(x).all(), model
        assert abs(peak_db(x) + 1.0) < 0.05, model
        quiet = frame_db(x, 0.02) < -50  # the instrument is heard: rests shorter than 0.4 s
        assert longest_run(quiet) * 0.02 < 0.4, (model, longest_run(quiet))


def test_synth_family_is_checked():
    with pytest.raises(ValueError, match="unknown synth family 'kazoo'"):
        synths.synth_clip(np.random.default_rng(0), "kazoo", 1.0)
    with pytest.raises(ValueError, match="unknown guitar model 'banjo'"):
        synths.synth_clip(np.random.default_rng(0), "guitar", 1.0, model="banjo")


def test_phrases_stay_in_each_family_range():
    """Notes stay in the voice's register, and the register inside the family's natural range (RANGES,
    widened by the General MIDI programs of the family that play lower, as the sax and contrabass)."""
    for family in synths.FAMILIES:
        low, high, _ = RANGES[family]
        for program in PROGRAMS[family]:
            low, high = min(low, PROGRAM_RANGES.get(program, (low, high))[0]), max(high, PROGRAM_RANGES.get(program, (low, high))[1])
        for seed in range(8):
            voice = synths._voice(np.random.default_rng(seed), family)
            notes = [note for _, _, note, _ in voice.notes(3.0)]
            assert low <= voice.note_range[0] and voice.note_range[1] <= high, (family, voice.model)
            assert notes and voice.note_range[0] <= min(notes) and max(notes) <= voice.note_range[1], (family, voice.model, notes)


def test_clips_differ_in_timbre_from_seed_to_seed():
    def centroid(x):
        freqs, spectrum = power_spectrum(x)
        return (freqs * spectrum).sum() / spectrum.sum()
    for family in ("synth", "organ", "brass"):
        centroids = [centroid(synths.synth_clip(np.random.default_rng(seed), family, 1.0)) for seed in range(6)]
        assert max(centroids) / min(centroids) > 1.3, family


def autocorrelation(x):
    x = x - x.mean()
    spectrum = np.fft.rfft(x, 2 * len(x))
    ac = np.fft.irfft(np.abs(spectrum) ** 2)[: len(x)]
    return ac / ac[0]


@pytest.mark.parametrize("family,note,model", [("guitar", 45, "steel"), ("guitar", 57, "nylon"), ("guitar", 52, "electric"),
                                               ("bass", 33, "finger"), ("bass", 40, "slap")])
def test_plucked_string_is_periodic_at_its_pitch_and_decays(family, note, model):
    x = synths.synth_note(np.random.default_rng(note), family, note, 2.0, model=model).astype(np.float64)
    period = SR / (440 * 2 ** ((note - 69) / 12))
    ac = autocorrelation(x[int(0.1 * SR):int(0.5 * SR)])
    lags = np.arange(int(period * 0.6), int(period * 1.5))
    best = lags[np.argmax(ac[lags])]
    left, centre, right = ac[best - 1:best + 2]
    measured = best + 0.5 * (left - right) / (left - 2 * centre + right)  # parabolic peak
    assert abs(measured - period) < 0.2  # in tune within about 2 cents
    assert ac[best] > 0.8
    assert rms_db(x[int(1.5 * SR):]) < rms_db(x[int(0.05 * SR):int(0.5 * SR)]) - 6


def test_palm_mute_dies_fast():
    x = synths.synth_note(np.random.default_rng(3), "guitar", 45, 2.0, model="palm_mute")
    assert rms_db(x[int(1.0 * SR):]) < rms_db(x[: int(0.2 * SR)]) - 30


def partial_frequency(freqs, spectrum, expected, width):
    band = (freqs > expected * (1 - width)) & (freqs < expected * (1 + width))
    return freqs[band][np.argmax(spectrum[band])]


@pytest.mark.parametrize("note", [48, 60])
def test_piano_partials_are_inharmonic(note):
    """f_n = n f0 sqrt(1 + B n^2): the measured partials run sharp of the harmonic series, more so the
    higher the partial, and a fit of (f_n / (n f1))^2 against n^2 gives a positive B."""
    x = synths.synth_note(np.random.default_rng(note), "piano", note, 1.5, model="grand").astype(np.float64)
    freqs, spectrum = power_spectrum(x[: int(1.2 * SR)])
    f1 = partial_frequency(freqs, spectrum, 440 * 2 ** ((note - 69) / 12), 0.03)
    n = np.arange(1, 13)
    measured = []
    for k in n:  # each partial searched within half a fundamental of where the previous ones point
        expected = f1 if k == 1 else measured[-1] / (k - 1) * k
        measured.append(partial_frequency(freqs, spectrum, expected, 0.5 / k))
    levels = np.array([spectrum[np.argmin(np.abs(freqs - f))] for f in measured])
    strong = levels > levels.max() * 1e-4  # partials the hammer position all but cancels are left out
    stretch = np.array(measured) / (n * f1)
    b, one = np.polyfit(n[strong].astype(float) ** 2, stretch[strong] ** 2, 1)
    assert 5e-5 < b < 2e-3  # a harmonic tone: |B| < 1e-5 at this resolution
    assert abs(one - 1) < 2e-3
    fitted = np.sqrt(one + b * n[strong] ** 2)
    assert np.abs(stretch[strong] - fitted).max() < 4e-3  # the stiff-string law, within the unison strings' detune
    assert stretch[strong][-1] - 1 > 0.005  # the highest ones well sharp of their harmonic


def test_piano_decays_and_organ_sustains():
    piano = synths.synth_note(np.random.default_rng(1), "piano", 60, 4.0, model="grand")
    assert rms_db(piano[int(2.0 * SR):int(3.7 * SR)]) < rms_db(piano[int(0.2 * SR):int(1.9 * SR)]) - 6
    for seed in range(3):
        for model in ("drawbar", "pipe"):
            organ = synths.synth_note(np.random.default_rng(seed), "organ", 60, 4.0, model=model)
            early, late = rms_db(organ[int(0.2 * SR):int(1.9 * SR)]), rms_db(organ[int(2.0 * SR):int(3.7 * SR)])
            assert abs(late - early) < 2.0, (model, seed, early, late)


@pytest.mark.parametrize("f0", [82.4, 220.0, 740.0])
def test_karplus_strong_fundamental_falls_60_db_in_t60(f0):
    """The string's loop gain is set for its fundamental, the loss filter's own damping at f0 made up:
    a high note rings as long as a low one (it used to die in a fraction of a second)."""
    from sonotype.data.signals import filt
    rng = np.random.default_rng(int(f0))
    excitation = rng.uniform(-1, 1, int(SR / f0))
    x = synths._ks(excitation, f0, 2 * SR, t60=2.0, damping=0.3)
    fundamental = filt(x, "band", f0, 8.0)
    drop = rms_db(fundamental[int(0.2 * SR):int(0.4 * SR)]) - rms_db(fundamental[int(1.0 * SR):int(1.2 * SR)])
    assert abs(drop - 0.8 * 30) < 3  # 30 dB a second over the 0.8 s between the windows


def test_same_seed_same_clip():
    """Everything random comes from the rng passed in: a seed gives the same clip again."""
    for family in synths.FAMILIES:
        a = synths.synth_clip(np.random.default_rng(21), family, 1.0)
        b = synths.synth_clip(np.random.default_rng(21), family, 1.0)
        assert np.array_equal(a, b), family
    for kind in ("traffic", "crowd", "rain"):
        first, again = (noises.noise_clip(np.random.default_rng(4), 1.0, kind=kind) for _ in range(2))
        assert np.array_equal(first, again), kind
    assert np.array_equal(noises.silence_clip(np.random.default_rng(9), 1.0), noises.silence_clip(np.random.default_rng(9), 1.0))
