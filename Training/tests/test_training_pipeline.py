"""CI does not train: a smoke test of the data generator and of one short training run."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from sonotype.data import CLASSES, FRONTEND
from sonotype.data.__main__ import generate
from sonotype.engine_cli import run_model
from sonotype.export import export_model
from sonotype.frontend import LogMelFrontend
from sonotype.train import train


def test_generator_and_one_epoch(tmp_path):
    data = tmp_path / "data"
    generate(str(data), seed=5, clips_per_class=2, heldout_per_class=1, jobs=2, verbose=False)
    train_npz = np.load(data / "train.npz")
    frames = 1 + FRONTEND["window_samples"] // FRONTEND["hop_length"]
    assert train_npz["features"].shape[1:] == (FRONTEND["n_mels"], frames)
    assert set(train_npz["labels"].tolist()) | set(np.load(data / "val.npz")["labels"].tolist()) == set(range(len(CLASSES)))
    heldout = np.load(data / "heldout.npz")
    assert sorted(heldout["labels"].tolist()) == list(range(len(CLASSES)))
    assert np.isfinite(train_npz["features"].astype(np.float32)).all()
    assert sorted(os.listdir(data / "examples"))  # example clips are written

    # Determinism: the same seed gives the same data.
    again = tmp_path / "again"
    generate(str(again), seed=5, clips_per_class=2, heldout_per_class=1, jobs=1, verbose=False)
    assert np.array_equal(np.load(again / "heldout.npz")["features"], heldout["features"])

    model, history, results, sizes = train(str(data), epochs=1, seed=0)
    assert len(history) == 1 and np.isfinite(history[0]["loss"])
    # Reproducible: the same seed trains the same weights.
    again_model, again_history, _, _ = train(str(data), epochs=1, seed=0)
    assert again_history == history
    for (name, a), (_, b) in zip(model.state_dict().items(), again_model.state_dict().items()):
        assert torch.equal(a, b), name
    assert sizes["heldout"] == len(CLASSES)
    # --ema: an average of the weights is returned, while the live model trains exactly as without it.
    ema_model, ema_history, _, _ = train(str(data), epochs=1, seed=0, ema=0.5)
    assert [h["loss"] for h in ema_history] == [h["loss"] for h in history]
    assert any(not torch.equal(a, b) for a, b in zip(ema_model.parameters(), model.parameters()))
    # bf16: the forward pass in bfloat16 (a different rounding, so different weights), still float32
    # weights and a float32 model out; reproducible too.
    bf16_model, bf16_history, _, _ = train(str(data), epochs=1, seed=0, precision="bf16")
    assert np.isfinite(bf16_history[0]["loss"]) and bf16_history[0]["loss"] != history[0]["loss"]
    assert all(p.dtype == torch.float32 for p in bf16_model.parameters())
    bf16_again, bf16_again_history, _, _ = train(str(data), epochs=1, seed=0, precision="bf16")
    assert bf16_again_history == bf16_history
    assert all(torch.equal(a, b) for a, b in zip(bf16_again.state_dict().values(), bf16_model.state_dict().values()))
    with pytest.raises(ValueError, match="precision must be one of fp32, bf16"):
        train(str(data), epochs=1, seed=0, precision="fp16")
    path = str(tmp_path / "model.safetensors")
    export_model(model, torch.zeros(1, 64, frames), path, labels=CLASSES, frontend=LogMelFrontend(**FRONTEND))
    x = torch.from_numpy(heldout["features"][:1].astype(np.float32))
    with torch.no_grad():
        expected = model(x).numpy()
    assert np.abs(run_model(path, x.numpy()) - expected).max() < 1e-4



def test_clips_give_windows_of_any_length_with_band_normalisation_mixup_and_a_left_out_source(tmp_path):
    from sonotype.data import catalogue
    from sonotype.train import export_builtin, model_config
    from sonotype.windows import ClipWindows, valid_starts

    # In a process of its own: the generator's workers are forked, and a fork of this process, whose
    # PyTorch thread pool an earlier test started, can hang in the child.
    data = tmp_path / "data"
    subprocess.run([sys.executable, "-m", "sonotype.data", "--out", str(data), "--seed", "5", "--clips", "3", "--heldout-clips", "1",
                    "--jobs", "2", "--store", "clips"], check=True, capture_output=True)
    clips = np.load(data / "train_clips.npz")
    assert clips["features"].shape[1:] == (FRONTEND["n_mels"], 301)  # whole 3 s clips
    assert clips["frame_peak_db"].shape == clips["frame_rms_db"].shape == clips["features"].shape[:1] + (301,)
    assert (clips["frame_peak_db"].astype(np.float32) >= clips["frame_rms_db"].astype(np.float32) - 1e-2).all()

    # The quiet-crop rules: a crop that peaks under -60 dBFS, or lies 40 dB under the clip's loudest, is
    # not a window of the clip's class (silence takes any).
    peak = np.full((2, 301), -20.0)
    rms = np.full((2, 301), -30.0)
    peak[:, 150:] = -70.0
    rms[:, 150:] = -80.0
    starts = valid_starts(peak, rms, 101, np.array([False, True]))
    assert starts[0, :50].all() and not starts[0, 150:].any() and starts[1].all()

    # Asked for no window length, data of clips gives 1 s windows (the ablation suites' default).
    from sonotype.windows import open_split
    default = open_split(str(data), "train")
    assert isinstance(default, ClipWindows) and default.window == 101

    windows = ClipWindows(str(data / "train_clips.npz"), 201)
    x, y, sources = windows.gather(windows.draw(np.random.default_rng(0), 2))
    assert x.shape[1:] == (FRONTEND["n_mels"], 201) and x.dtype == torch.float32 and len(y) == len(sources) == len(x)
    # A window is the clip's frames from its start.
    pairs = windows.draw(np.random.default_rng(1), 1)
    first, _, _ = windows.gather(pairs[:1])
    clip, start = pairs[0]
    assert torch.equal(first[0], windows.features[clip, :, start:start + 201].float())

    left_out = catalogue.sources_for("piano", ())[0].name
    config = model_config(201, band_norm="mean")
    model, history, results, sizes = train(str(data), epochs=1, seed=0, config=config, window_seconds=2.0, mixup=0.4,
                                           validate_on=(left_out,))
    assert np.isfinite(history[0]["loss"]) and "loso_acc" in history[0]
    assert set(results["per_source"]["loso"]) == {left_out}
    calibration = results["calibration"]
    assert 0.25 <= calibration["temperature"] <= 8.0 and 0.0 <= calibration["heldout_ece"] <= 1.0
    assert 0.25 <= calibration["temperature_left_out"] <= 8.0 and 0.0 <= calibration["left_out_half_ece_calibrated"] <= 1.0
    # Reproducible in this mode too.
    _, again, _, _ = train(str(data), epochs=1, seed=0, config=config, window_seconds=2.0, mixup=0.4, validate_on=(left_out,))
    assert again == history

    # The report of such a run: its confusion figures (random split, held-out, left-out sources) and tables.
    from sonotype.train import write_report
    report = tmp_path / "MODEL.md"
    write_report(str(report), str(tmp_path / "model"), history, results, sizes, 60.0, (0.5, None), 1000, 0, "fp32",
                 str(data), config=config, window_seconds=2.0)
    assert {p.name for p in (tmp_path / "model").iterdir()} >= {"confusion_val.png", "confusion_heldout.png", "confusion_loso.png"}
    assert "over 2 s windows" in report.read_text() and "| piano |" in report.read_text()

    # The engine runs it as PyTorch does, its front end set to 2 s windows.
    path = str(tmp_path / "context.safetensors")
    export_builtin(model, path, window_seconds=2.0)
    x = windows.gather(windows.draw(np.random.default_rng(2), 1)[:1])[0]
    with torch.no_grad():
        expected = model(x).numpy()
    assert np.abs(run_model(path, x.numpy()) - expected).max() < 1e-4


@pytest.mark.parametrize("band_norm", ["mean", "meanvar", "tilt2", "tilt4"])
def test_band_normalisation_runs_in_the_engine_as_in_pytorch(tmp_path, band_norm):
    from sonotype.models.audio_transformer import AudioTransformer, BandNormalization
    from sonotype.train import export_builtin, model_config

    torch.manual_seed(0)
    model = AudioTransformer(**model_config(101, band_norm=band_norm)).eval()
    path = str(tmp_path / "model.safetensors")
    export_builtin(model, path)
    x = torch.randn(1, FRONTEND["n_mels"], 101) * 2
    with torch.no_grad():
        expected = model(x).numpy()
    assert np.abs(run_model(path, x.numpy()) - expected).max() < 1e-4
    if band_norm.startswith("tilt"):
        # A coloration of the window (a level and a tilt over the bands) is taken out exactly.
        colour = (torch.linspace(-1, 1, FRONTEND["n_mels"]) * 10 + 5).reshape(1, -1, 1)
        normalise = BandNormalization(FRONTEND["n_mels"], band_norm)
        assert torch.allclose(normalise(x + colour), normalise(x), atol=1e-4)
