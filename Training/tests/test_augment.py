"""Recording-realistic augmentation (sonotype.data.augment): every stage measured on the property it models."""

import numpy as np
import pytest
from scipy import signal as sps

from sonotype.data import CLASSES, SAMPLE_RATE
from sonotype.data.augment import (AUGMENT_DEFAULTS, GROUPS, PEAK_DB, PITCH_RANGES, SILENCE_PEAK_DB, augment,
                                   compress, doppler_ratio, mix_at, only, phone_band, room_impulse_response,
                                   time_warp, varispeed, vibrato_ratio, without)

N = 3 * SAMPLE_RATE
OFF = without(*AUGMENT_DEFAULTS)


def stages(**on):
    """Every stage off except the given ones, at the given probabilities."""
    return {**OFF, **on}


def tone(freq=440.0, n=N, amplitude=0.5):
    return (amplitude * np.sin(2 * np.pi * freq * np.arange(n) / SAMPLE_RATE)).astype(np.float32)


def white(seed, n=N):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def peak_db(x):
    return 20 * np.log10(np.abs(x).max())


def rms(x):
    return np.sqrt(np.mean(np.square(x, dtype=np.float64)))


def band_energy(x, low, high):
    spectrum = np.abs(np.fft.rfft(x.astype(np.float64))) ** 2
    freqs = np.fft.rfftfreq(len(x), 1 / SAMPLE_RATE)
    return spectrum[(freqs >= low) & (freqs < high)].sum()


def frequency(x):
    """The strongest sinusoid's frequency (Hann window, parabolic interpolation of the log spectrum)."""
    spectrum = np.log(np.abs(np.fft.rfft(x * np.hanning(len(x)), 8 * len(x))) + 1e-12)
    k = int(np.argmax(spectrum))
    a, b, c = spectrum[k - 1], spectrum[k], spectrum[k + 1]
    return (k + 0.5 * (a - c) / (a - 2 * b + c)) * SAMPLE_RATE / (8 * len(x))


def reverberation_time(ir, low, high, fit=(-5.0, -35.0)):
    """T30 of `ir` in one band: Schroeder's backward-integrated energy decay, a line fitted from -5 to -35 dB."""
    h = sps.sosfilt(sps.butter(4, [low, high], "bandpass", fs=SAMPLE_RATE, output="sos"), ir)
    energy = np.cumsum((h ** 2)[::-1])[::-1]
    edc = 10 * np.log10(energy / energy[0] + 1e-30)
    start, stop = int(np.argmax(edc <= fit[0])), int(np.argmax(edc <= fit[1]))
    assert stop - start > 10
    t = np.arange(len(h)) / SAMPLE_RATE
    slope = np.polyfit(t[start:stop], edc[start:stop], 1)[0]
    return -60.0 / slope


def mixture_gains(out, x, other):
    """Least-squares a, c with out ≈ a x + c other."""
    basis = np.stack([x, other], axis=1).astype(np.float64)
    (a, c), *_ = np.linalg.lstsq(basis, out.astype(np.float64), rcond=None)
    return a, c


def test_every_class_keeps_length_range_and_finiteness():
    x, background, floor = tone(330) * np.linspace(0.2, 1, N, dtype=np.float32), white(1), white(2)
    for seed, label in enumerate(CLASSES * 3):
        quiet = label == "silence"
        source = white(seed, N) * 10 ** (-75 / 20) if quiet else x
        out = augment(np.random.default_rng(seed), source, label, background=background, noise_floor=floor)
        assert out.dtype == np.float32 and out.shape == (N,), label
        assert np.all(np.isfinite(out)) and np.abs(out).max() <= 1.0, label


def test_level_lands_between_minus_45_and_0_dbfs_peak():
    levels = []
    for seed in range(40):
        label = CLASSES[1 + seed % (len(CLASSES) - 1)]
        out = augment(np.random.default_rng(seed), tone(220), label, background=white(seed), noise_floor=white(99))
        levels.append(peak_db(out))
    levels = np.array(levels)
    assert levels.min() >= PEAK_DB[0] - 0.01 and levels.max() <= PEAK_DB[1] + 0.01
    assert levels.min() < -30 and levels.max() > -10  # spread over the range, not one level
    for scale in (1e-9, 1e3):  # every stage is relative to the clip: a very quiet or hot source lands there too
        out = augment(np.random.default_rng(1), tone(220) * scale, "piano", noise_floor=white(99) * scale)
        assert PEAK_DB[0] <= peak_db(out) <= PEAK_DB[1]


def test_silence_stays_under_minus_60_dbfs_and_gets_nothing_added():
    floor = white(3) * 10 ** (-72 / 20)  # a hiss floor peaking around -60 dBFS
    for seed in range(20):
        rng = np.random.default_rng(seed)
        out = augment(rng, floor, "silence", background=tone(), noise_floor=white(4))
        assert peak_db(out) <= SILENCE_PEAK_DB
        assert abs(np.corrcoef(out, floor)[0, 1]) > 0.9999  # a level change only
    zero = np.zeros(N, np.float32)
    assert not np.any(augment(np.random.default_rng(0), zero, "silence", background=tone(), noise_floor=white(4)))
    too_loud = white(5) * 0.01  # -40 dBFS RMS is no silence: brought down to the silence ceiling
    assert peak_db(augment(np.random.default_rng(0), too_loud, "silence")) <= SILENCE_PEAK_DB


def test_phone_band_removes_energy_above_4_khz_and_below_250_hz():
    x = white(6)
    y = phone_band(x.astype(np.float64))
    assert len(y) == len(x)
    for low, high, most in ((4000, 8000, -60), (0, 250, -20)):
        kept = 10 * np.log10(band_energy(y, low, high) / band_energy(x, low, high))
        assert kept < most, (low, high, kept)
    kept = 10 * np.log10(band_energy(y, 500, 3000) / band_energy(x, 500, 3000))
    assert kept > -1.5  # the voice band passes
    out = augment(np.random.default_rng(0), x, "speech", settings=stages(phone=1.0))
    assert band_energy(out, 4000, 8000) < 1e-6 * band_energy(out, 500, 3000)
    bass = augment(np.random.default_rng(0), x, "bass", settings=stages(phone=1.0))
    assert band_energy(bass, 0, 250) > 0.01 * band_energy(bass, 500, 3000)  # bass keeps its fundamentals


@pytest.mark.parametrize("rt60", [0.2, 0.6, 1.5])
def test_room_impulse_response_has_the_rt60_asked_and_highs_decay_faster(rt60):
    rng = np.random.default_rng(int(rt60 * 10))
    ir = room_impulse_response(rng, rt60=rt60, drr_db=-6.0)
    assert np.all(np.isfinite(ir))
    assert reverberation_time(ir, 707, 1414) == pytest.approx(rt60, rel=0.15)
    assert reverberation_time(ir, 2828, 5657) < 0.95 * reverberation_time(ir, 177, 354)
    direct_to_reverberant = 10 * np.log10(ir[0] ** 2 / np.sum(ir[1:] ** 2))
    assert direct_to_reverberant == pytest.approx(-6.0, abs=0.5)


def test_room_stage_spreads_an_impulse_in_time():
    click = np.zeros(N, np.float32)
    click[1000] = 1.0
    out = augment(np.random.default_rng(1), click, "drums", settings=stages(rooms=1.0)).astype(np.float64)
    energy = out ** 2
    assert energy[1000] < 0.99 * energy.sum()  # reverberant energy after the direct sound
    assert energy[1001:].sum() > 0.01 * energy.sum() and energy[:1000].sum() < 1e-12 * energy.sum()  # causal


@pytest.mark.parametrize("ratio", [2 ** (-1.5 / 12), 2 ** (2 / 12), 0.8])
def test_varispeed_moves_a_sine_by_the_ratio(ratio):
    y = varispeed(tone(440), ratio)
    assert len(y) == pytest.approx(N / ratio, abs=2)
    assert frequency(y) / 440 == pytest.approx(ratio, rel=2e-4)


def test_pitch_stage_stays_in_the_class_range_and_keeps_length():
    for label in ("piano", "drums", "speech", "noise"):
        low, high = PITCH_RANGES[label]
        ratios = []
        for seed in range(6):
            out = augment(np.random.default_rng(seed), tone(440), label, settings=stages(pitch=1.0))
            assert len(out) == N
            ratios.append(frequency(out) / 440)
        assert low * 0.999 <= min(ratios) and max(ratios) <= high * 1.001, label
        assert max(ratios) - min(ratios) > 0.1 * (high - low), label  # actually shifted, and by varying amounts
    for label in ("piano", "speech"):
        semitones = 12 * np.log2(PITCH_RANGES[label][1])
        assert semitones == pytest.approx({"piano": 1.5, "speech": 3.0}[label])


def instantaneous_frequency(x):
    """Per-sample frequency of a single sinusoid (the analytic signal's phase slope), 20 ms smoothed."""
    phase = np.unwrap(np.angle(sps.hilbert(x)))
    f = np.diff(phase) * SAMPLE_RATE / (2 * np.pi)
    return np.convolve(f, np.ones(320) / 320, mode="same")


def test_time_warp_with_a_constant_ratio_matches_varispeed():
    y = time_warp(tone(440), np.full(N, 2 ** (1 / 12)))
    assert len(y) == N
    assert frequency(y[: N - 4000]) == pytest.approx(440 * 2 ** (1 / 12), rel=5e-4)


def test_vibrato_swings_pitch_by_the_depth_at_the_rate():
    y = time_warp(tone(440), vibrato_ratio(N, 5.0, 40.0, onset_s=0.0, ramp_s=1e-3))
    f = instantaneous_frequency(y)[2000:N - 2000]
    cents = 1200 * np.log2(f / 440)
    assert 35 < cents.max() < 41 and -41 < cents.min() < -35  # 20 ms smoothing takes a little off the 40
    swing = np.abs(np.fft.rfft(cents - cents.mean()))
    assert np.fft.rfftfreq(len(cents), 1 / SAMPLE_RATE)[np.argmax(swing)] == pytest.approx(5.0, abs=0.4)
    for label in ("piano", "bass", "drums"):  # no vibrato on instruments that have none
        out = augment(np.random.default_rng(0), tone(440), label, settings=stages(vibrato=1.0))
        assert np.allclose(out, tone(440) * (np.abs(out).max() / 0.5), atol=1e-6)
    out = augment(np.random.default_rng(0), tone(440), "strings", settings=stages(vibrato=1.0))
    assert np.ptp(1200 * np.log2(instantaneous_frequency(out)[8000:N - 2000] / 440)) > 15


def test_doppler_pitch_falls_as_the_source_passes():
    ratio = doppler_ratio(N, 20.0, closest_s=1.5, passing_s=0.3)
    f = instantaneous_frequency(time_warp(tone(440), ratio))
    approaching, leaving = np.median(f[1000:6000]), np.median(f[N - 6000:N - 1000])
    assert approaching == pytest.approx(440 * 343 / (343 - 20), rel=0.01)
    assert leaving == pytest.approx(440 * 343 / (343 + 20), rel=0.01)
    out = augment(np.random.default_rng(0), tone(440), "noise", settings=stages(doppler=1.0))
    assert len(out) == N and np.all(np.isfinite(out))


def test_background_lands_at_minus_20_to_minus_10_db_and_never_under_noise():
    x, other = tone(440), white(7)
    assert 20 * np.log10(rms(mix_at(x, other, -15.0) - x) / rms(x)) == pytest.approx(-15.0, abs=1e-6)
    seen = []
    for seed in range(10):
        out = augment(np.random.default_rng(seed), x, "guitar", background=other, settings=stages(background=1.0))
        a, c = mixture_gains(out, x, other)
        seen.append(20 * np.log10(abs(c) * rms(other) / (abs(a) * rms(x))))
    assert -20.01 <= min(seen) and max(seen) <= -9.99 and max(seen) - min(seen) > 2
    noise = white(8)
    out = augment(np.random.default_rng(0), noise, "noise", background=tone(300), noise_floor=white(9),
                  settings=stages(background=1.0, noise_floor=1.0))
    a, c = mixture_gains(out, noise, tone(300))
    assert abs(c) < 1e-6 * abs(a)


def test_noise_floor_lands_10_to_50_db_under_the_source():
    x, floor = tone(440), white(10)
    snrs = []
    for seed in range(12):
        out = augment(np.random.default_rng(seed), x, "organ", noise_floor=floor, settings=stages(noise_floor=1.0))
        a, c = mixture_gains(out, x, floor)
        snrs.append(20 * np.log10(abs(a) * rms(x) / (abs(c) * rms(floor))))
    assert 9.99 <= min(snrs) and max(snrs) <= 50.01 and max(snrs) - min(snrs) > 10


def crest_db(x):
    return 20 * np.log10(np.abs(x).max() / rms(x))


def test_compressor_reduces_crest_factor_and_leaves_quiet_audio_alone():
    notes = tone(300, amplitude=0.8) * np.exp(-(np.arange(N) % 8000) / (0.12 * SAMPLE_RATE)).astype(np.float32)
    squashed = compress(notes.astype(np.float64), ratio=8.0, threshold_db=-30.0)
    assert crest_db(squashed) < crest_db(notes) - 4
    quiet = tone(300, amplitude=0.01).astype(np.float64)  # -43 dBFS peak, under the threshold
    assert np.allclose(compress(quiet, ratio=8.0, threshold_db=-30.0), quiet)
    reductions = [crest_db(notes) - crest_db(augment(np.random.default_rng(seed), notes, "piano",
                                                     settings=stages(compression=1.0))) for seed in range(6)]
    assert min(reductions) > 0.1 and np.mean(reductions) > 1.5, reductions


def test_degradations_band_limit_and_quantise():
    x = white(11) * 0.3
    coded = augment(np.random.default_rng(0), x, "noise", settings=stages(codec=1.0))
    assert band_energy(coded, 7600, 8000) < 1e-4 * band_energy(coded, 200, 4000)
    lines = tone(1000) + tone(3000, amplitude=0.05) + tone(2000, amplitude=0.5 * 10 ** (-70 / 20))
    coded = augment(np.random.default_rng(0), lines, "noise", settings=stages(codec=1.0))
    weak, kept, strong = (band_energy(coded, f - 20, f + 20) for f in (2000, 3000, 1000))
    # The -70 dB line dropped (what stays is the resynthesis' own residue, around -80 dB); the -20 dB kept.
    assert 10 * np.log10(weak / strong) < -75
    assert 10 * np.log10(kept / strong) == pytest.approx(-20.0, abs=0.2)
    quantised = augment(np.random.default_rng(0), x, "noise", settings=stages(bit_depth=1.0))
    assert len(np.unique(quantised)) <= 2 ** 12 + 1


def test_every_stage_off_returns_the_level_normalised_input():
    x = tone(500) * np.linspace(0.1, 1, N, dtype=np.float32)
    for label in ("speech", "noise", "piano"):
        out = augment(np.random.default_rng(3), x, label, background=white(1), noise_floor=white(2), settings=OFF)
        gain = np.abs(out).max() / np.abs(x).max()
        assert np.allclose(out, x * gain, atol=1e-7)
        assert PEAK_DB[0] <= peak_db(out) <= PEAK_DB[1]


def test_same_seed_same_output_and_another_seed_another():
    x, background, floor = tone(250), white(12), white(13)
    first = augment(np.random.default_rng(42), x, "strings", background=background, noise_floor=floor)
    again = augment(np.random.default_rng(42), x, "strings", background=background, noise_floor=floor)
    other = augment(np.random.default_rng(43), x, "strings", background=background, noise_floor=floor)
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


def test_settings_switch_stages_and_groups_off():
    assert without("rooms")["rooms"] == 0 and without("rooms")["eq"] == AUGMENT_DEFAULTS["eq"]
    assert all(without("coloration")[key] == 0 for key in GROUPS["coloration"])
    assert only("dynamics") == {key: (value if key in GROUPS["dynamics"] else 0.0)
                                for key, value in AUGMENT_DEFAULTS.items()}


def test_bad_input_gets_a_specific_error():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="unknown label"):
        augment(rng, tone(), "kazoo")
    with pytest.raises(ValueError, match="background has"):
        augment(rng, tone(), "piano", background=white(0, N - 1))
    with pytest.raises(ValueError, match="at least"):
        augment(rng, tone(n=100), "piano")
    with pytest.raises(ValueError, match="NaN"):
        augment(rng, np.full(N, np.nan, np.float32), "piano")
    with pytest.raises(ValueError, match="1-D"):
        augment(rng, np.zeros((2, N), np.float32), "piano")
    with pytest.raises(ValueError, match="unknown settings"):
        augment(rng, tone(), "piano", settings={"reverb": 1.0})
    with pytest.raises(ValueError, match="probability"):
        augment(rng, tone(), "piano", settings={"rooms": 2.0})
    with pytest.raises(ValueError, match="unknown stage"):
        without("reverb")
