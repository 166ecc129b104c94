"""The audio front end's reference implementation (torchaudio) and its settings.

A model file carries the settings (the `frontend` metadata, written by `export_model(...,
frontend=...)`); the C++ front end (Source/dsp) computes the same log-mel features from them.
Settings, all optional but `sample_rate` and `n_mels` (defaults are torchaudio's):

    sample_rate  n_fft (400)  win_length (n_fft)  hop_length (win_length // 2)
    f_min (0)  f_max (null: sample_rate // 2)  n_mels  window ("hann", periodic)
    center (true)  pad_mode ("reflect" or "constant")  power (2.0 or 1.0)
    mel_scale ("htk" or "slaney")  norm (null or "slaney")
    log: {"type": "db", "top_db": null or dB}  |  {"type": "log", "offset": 1e-6}  |  {"type": "none"}
    mean, std: a number or one per mel band (features become (x - mean) / std)
    window_samples: samples per analysis window at sample_rate
"""

import math
from typing import Optional, Sequence, Union

import torch
import torchaudio

Number = Union[float, Sequence[float]]


class LogMelFrontend(torch.nn.Module):
    """waveform [..., samples] at `sample_rate` -> features [..., n_mels, frames]."""

    def __init__(self, sample_rate: int = 16000, n_fft: int = 400, win_length: Optional[int] = None,
                 hop_length: Optional[int] = None, f_min: float = 0.0, f_max: Optional[float] = None, n_mels: int = 64,
                 center: bool = True, pad_mode: str = "reflect", power: float = 2.0, mel_scale: str = "htk",
                 norm: Optional[str] = None, log: Optional[dict] = None, mean: Number = 0.0, std: Number = 1.0,
                 window_samples: Optional[int] = None):
        super().__init__()
        self.mel = torchaudio.transforms.MelSpectrogram(
            sample_rate=sample_rate, n_fft=n_fft, win_length=win_length, hop_length=hop_length, f_min=f_min,
            f_max=f_max, n_mels=n_mels, center=center, pad_mode=pad_mode, power=power, mel_scale=mel_scale, norm=norm)
        self.log = dict(log) if log is not None else {"type": "db", "top_db": 80.0}
        if self.log["type"] == "db":
            self.to_db = torchaudio.transforms.AmplitudeToDB("power" if power == 2.0 else "magnitude", self.log.get("top_db"))
        self.mean, self.std = mean, std
        self.window_samples = window_samples

    def forward(self, waveform: torch.Tensor) -> torch.Tensor:
        features = self.mel(waveform)
        if self.log["type"] == "db":
            features = self.to_db(features)
        elif self.log["type"] == "log":
            features = torch.log(features + self.log.get("offset", 1e-6))
        mean = torch.tensor(self.mean, dtype=torch.float32)
        std = torch.tensor(self.std, dtype=torch.float32)
        if mean.dim() == 1:
            mean = mean.unsqueeze(-1)
        if std.dim() == 1:
            std = std.unsqueeze(-1)
        return (features - mean) / std

    def frontend_settings(self) -> dict:
        return frontend_settings(self.mel, log=self.log, mean=self.mean, std=self.std, window_samples=self.window_samples)


def frontend_settings(mel: torchaudio.transforms.MelSpectrogram, *, log: Optional[dict] = None, mean: Number = 0.0,
                      std: Number = 1.0, window_samples: Optional[int] = None) -> dict:
    """The settings of a torchaudio MelSpectrogram (plus log and normalisation), as a model file stores them."""
    spectrogram = mel.spectrogram
    scale = mel.mel_scale  # the MelScale module
    if spectrogram.pad != 0 or spectrogram.normalized or not spectrogram.onesided:
        raise ValueError("Spectrogram pad, normalized and onesided=False are not supported by the front end")
    window = spectrogram.window
    if not torch.allclose(window, torch.hann_window(spectrogram.win_length, periodic=True), atol=1e-7):
        raise ValueError("only the (periodic) Hann window is supported by the front end")
    settings = {
        "sample_rate": int(mel.sample_rate),
        "n_fft": int(spectrogram.n_fft),
        "win_length": int(spectrogram.win_length),
        "hop_length": int(spectrogram.hop_length),
        "f_min": float(mel.f_min),
        "f_max": float(scale.f_max),
        "n_mels": int(mel.n_mels),
        "window": "hann",
        "center": bool(spectrogram.center),
        "pad_mode": spectrogram.pad_mode,
        "power": float(spectrogram.power),
        "mel_scale": scale.mel_scale,
        "norm": scale.norm,
        "log": dict(log) if log is not None else {"type": "none"},
        "mean": list(mean) if isinstance(mean, (list, tuple)) else float(mean),
        "std": list(std) if isinstance(std, (list, tuple)) else float(std),
    }
    if window_samples is not None:
        settings["window_samples"] = int(window_samples)
    return settings


def frontend_from_settings(settings: dict) -> LogMelFrontend:
    """The torchaudio reference for a settings dict (the parity tests compare the C++ front end with it)."""
    known = {"sample_rate", "n_fft", "win_length", "hop_length", "f_min", "f_max", "n_mels", "center", "pad_mode",
             "power", "mel_scale", "norm", "log", "mean", "std", "window_samples"}
    arguments = {key: value for key, value in settings.items() if key in known}
    if settings.get("window", "hann") != "hann":
        raise ValueError("only the Hann window is supported")
    return LogMelFrontend(**arguments)


def num_frames(settings: dict, num_samples: int) -> int:
    n_fft = settings.get("n_fft", 400)
    hop = settings.get("hop_length") or (settings.get("win_length") or n_fft) // 2
    if settings.get("center", True):
        return 1 + num_samples // hop
    return 1 + (num_samples - n_fft) // hop


__all__ = ["LogMelFrontend", "frontend_settings", "frontend_from_settings", "num_frames", "math"]
