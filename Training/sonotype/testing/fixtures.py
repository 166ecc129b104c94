"""Exports the models the C++ tests load, with inputs and PyTorch's outputs, into a folder.

Run by CTest before the C++ tests: `python -m sonotype.testing.fixtures OUTDIR`.
"""

import os
import sys

import numpy as np
import torch

from ..export import export_model
from ..hits.kit import render_kit
from ..frontend import LogMelFrontend
from ..models.audio_transformer import AudioTransformer

# A 1 s window at 16 kHz: 101 frames of 32 log-mel bands.
TINY_FRONTEND = LogMelFrontend(sample_rate=16000, n_fft=400, hop_length=160, n_mels=32,
                               log={"type": "db", "top_db": 80.0}, mean=-40.0, std=20.0, window_samples=16000)


class WaveformClassifier(torch.nn.Module):
    """Raw waveform in: log-mel features computed inside the model (torchaudio), a linear head."""

    def __init__(self) -> None:
        super().__init__()
        import torchaudio
        self.mel = torchaudio.transforms.MelSpectrogram(sample_rate=16000, n_fft=400, hop_length=160, n_mels=32)
        self.to_db = torchaudio.transforms.AmplitudeToDB(top_db=80.0)
        self.head = torch.nn.Linear(32, 4)

    def forward(self, waveform: torch.Tensor) -> torch.Tensor:
        features = (self.to_db(self.mel(waveform)) + 40.0) / 20.0  # [1, 32, frames]
        return self.head(features.mean(dim=-1))


def large_transformer() -> torch.nn.Module:
    layer = torch.nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True)
    return torch.nn.TransformerEncoder(layer, 6, enable_nested_tensor=False)


class RecurrentTagger(torch.nn.Module):
    """Recurrent layers for the real-time tests: a convolution over log-mel frames, a 2-layer
    bidirectional GRU, an LSTM with a projection, a linear head on the mean over time."""

    def __init__(self, n_mels: int = 32, n_classes: int = 5):
        super().__init__()
        self.conv = torch.nn.Conv1d(n_mels, 32, 3, padding=1)
        self.gru = torch.nn.GRU(32, 24, num_layers=2, batch_first=True, bidirectional=True)
        self.lstm = torch.nn.LSTM(48, 32, batch_first=True, proj_size=16)
        self.head = torch.nn.Linear(16, n_classes)

    def forward(self, x):  # [B, mels, T]
        x = torch.relu(self.conv(x)).transpose(1, 2)
        x, _ = self.gru(x)
        x, (h, c) = self.lstm(x)
        return self.head(x.mean(dim=1))


FIXTURES = {
    # name: (model factory, input shape)
    "seed000": (lambda: AudioTransformer(n_mels=64, d_model=64, n_head=4, n_layers=2, n_classes=12), (1, 64, 100)),
    "large_transformer": (large_transformer, (1, 256, 256)),
    # A classifier with front-end settings, for the runtime and CLI tests.
    "tiny_classifier": (lambda: AudioTransformer(n_mels=32, d_model=32, n_head=4, n_layers=1, n_classes=4), (1, 32, 101)),
    # GRU and LSTM (recurrent layers lowered whole), for the real-time and parity tests.
    "recurrent_tagger": (RecurrentTagger, (1, 32, 101)),
    # A classifier that takes 1 s of raw audio at 16 kHz (waveform front end), for the runtime and plugin tests.
    "waveform_classifier": (WaveformClassifier, (1, 16000)),
}


def write_fixtures(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    for index, (name, (factory, shape)) in enumerate(FIXTURES.items()):
        torch.manual_seed(1234 + index)
        model = factory().eval()
        x = torch.randn(*shape)
        with torch.no_grad():
            y = model(x)
        labels = [f"class{i}" for i in range(y.shape[-1])] if y.dim() == 2 else None
        frontend = TINY_FRONTEND if name == "tiny_classifier" else None
        export_model(model, x, os.path.join(out_dir, f"{name}.safetensors"), labels=labels, frontend=frontend)
        np.save(os.path.join(out_dir, f"{name}.input.npy"), x.numpy())
        np.save(os.path.join(out_dir, f"{name}.expected.npy"), y.numpy())
        print(f"fixture {name}: input {tuple(shape)} -> output {tuple(y.shape)}")
    # Drum material for the plugin's per-hit tests: a FluidR3 kit's pieces and a 12 s pattern.
    hits = render_kit(os.path.join(out_dir, "kit"), "FluidR3")
    print(f"fixture kit: kick/, snare/, hat/ and pattern.wav ({len(hits)} hits), FluidR3")


if __name__ == "__main__":
    write_fixtures(sys.argv[1] if len(sys.argv) > 1 else "fixtures")
