"""Exports the soak test's slow model: the fixtures' tiny front end (16 kHz, 1 s windows, 32 mel
bands) feeding a transformer much bigger than the built-in model's, so the plugin's worker spends
tens of milliseconds per window instead of a few. The soak test swaps it in for its "slowed worker"
stretches. Usage: python3 export_slow_model.py OUTDIR
"""

import os
import sys

import torch

from sonotype.export.exporter import export_model
from sonotype.models.audio_transformer import AudioTransformer
from sonotype.testing.fixtures import TINY_FRONTEND


def main(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(4321)
    model = AudioTransformer(n_mels=32, d_model=256, n_head=8, n_layers=8, n_classes=6).eval()
    x = torch.randn(1, 32, 101)
    path = os.path.join(out_dir, "soak_slow.safetensors")
    export_model(model, x, path, labels=[f"slow{i}" for i in range(6)], frontend=TINY_FRONTEND)
    print(f"slow model: {path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fixtures")
