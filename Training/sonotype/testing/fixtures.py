"""Exports the models the C++ tests load, with inputs and PyTorch's outputs, into a folder.

Run by CTest before the C++ tests: `python -m sonotype.testing.fixtures OUTDIR`.
"""

import os
import sys

import numpy as np
import torch

from ..export import export_model
from ..models.audio_transformer import AudioTransformer


def large_transformer() -> torch.nn.Module:
    layer = torch.nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True)
    return torch.nn.TransformerEncoder(layer, 6, enable_nested_tensor=False)


FIXTURES = {
    # name: (model factory, input shape)
    "seed000": (lambda: AudioTransformer(n_mels=64, d_model=64, n_head=4, n_layers=2, n_classes=12), (1, 64, 100)),
    "large_transformer": (large_transformer, (1, 256, 256)),
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
        export_model(model, x, os.path.join(out_dir, f"{name}.safetensors"), labels=labels)
        np.save(os.path.join(out_dir, f"{name}.input.npy"), x.numpy())
        np.save(os.path.join(out_dir, f"{name}.expected.npy"), y.numpy())
        print(f"fixture {name}: input {tuple(shape)} -> output {tuple(y.shape)}")


if __name__ == "__main__":
    write_fixtures(sys.argv[1] if len(sys.argv) > 1 else "fixtures")
