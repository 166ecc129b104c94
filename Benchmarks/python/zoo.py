"""The benchmark models: PyTorch modules, their inputs (batch 1) and FLOP counts.

Every contender runs the same weights on the same input: Sonotype the exported model file (the built-in
model: the committed Resources/models/default.safetensors itself), the peers this module's nn.Module.
"""

import math
import os
import sys
from dataclasses import dataclass
from typing import Callable, List, Optional

import torch
import torch.nn as nn

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Training"))

from sonotype.models.audio_transformer import AudioTransformer, SpectrogramStem  # noqa: E402

BUILTIN_MODEL = os.path.join(ROOT, "Resources", "models", "default.safetensors")


@dataclass
class BenchModel:
    key: str                 # short name, used for files
    title: str               # the report's row name
    build: Callable[[], nn.Module]
    input_shape: tuple
    seed: int
    group: str               # "audio" (the classifier-shaped models) or "encoder" (the grid)
    committed_file: Optional[str] = None  # Sonotype runs this file instead of a fresh export

    def make(self):
        """(model in eval mode, input): deterministic for the key."""
        torch.manual_seed(self.seed)
        model = self.build().eval()
        generator = torch.Generator().manual_seed(self.seed + 1000)
        x = torch.randn(*self.input_shape, generator=generator)
        return model, x


# ----- the built-in model: rebuilt from the committed file's weights ------------------------------

from sonotype.models.builtin import builtin_model  # noqa: E402,F401  (BenchModel "builtin" below)


# ----- the seed-000 model (Training/tests/test_parity_seed_models.py) ------------------------------

def seed000_model() -> nn.Module:
    torch.manual_seed(0)
    model = AudioTransformer(n_mels=64, d_model=64, n_head=4, n_layers=2, n_classes=12)
    for module in model.modules():
        if isinstance(module, nn.BatchNorm1d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    return model


# ----- a CNN stem + 4-layer d128 encoder (the second row) --------------------------------

class CnnStemEncoder(nn.Module):
    """log-mel [B, 64, frames] -> SpectrogramStem (32 channels, ReLU) -> 4 x TransformerEncoderLayer
    (d_model 128, 4 heads, feed-forward 384) -> mean over tokens -> 12 logits."""

    def __init__(self):
        super().__init__()
        self.stem = SpectrogramStem(64, 128, channels=32, activation="relu")
        layer = nn.TransformerEncoderLayer(128, 4, dim_feedforward=384, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
        self.head = nn.Linear(128, 12)

    def forward(self, x):
        tokens = self.stem(x).permute(0, 2, 1)  # [B, T, 128]
        return self.head(self.encoder(tokens).mean(dim=1))


def randomise_batchnorm(model: nn.Module) -> nn.Module:
    for module in model.modules():
        if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d)):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    return model


# ----- the nn.TransformerEncoder grid -------------------------------------------------------------

def encoder(d_model: int, heads: int) -> Callable[[], nn.Module]:
    def build():
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=4 * d_model, dropout=0.0, batch_first=True)
        return nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
    return build


def all_models() -> List[BenchModel]:
    models = [
        BenchModel("builtin", "built-in model", builtin_model, (1, 64, 101), 1, "audio", committed_file=BUILTIN_MODEL),
        BenchModel("seed000", "seed-000 model (d64, 2 layers)", seed000_model, (1, 64, 100), 2, "audio"),
        BenchModel("cnn_d128", "CNN stem + 4-layer d128 encoder", lambda: randomise_batchnorm(CnnStemEncoder()),
                   (1, 64, 101), 3, "audio"),
    ]
    seed = 10
    for d_model, variants in ((64, (4, 1)), (256, (4,)), (512, (8,))):
        for heads in variants:
            for tokens in (32, 128, 512):
                if heads == 1 and tokens != 128:
                    continue  # the head-dim-64 variant of d64 at one length only
                head_dim = d_model // heads
                models.append(BenchModel(f"enc_d{d_model}_h{heads}_t{tokens}",
                                         f"encoder d{d_model} h{heads} (head dim {head_dim}), {tokens} tokens",
                                         encoder(d_model, heads), (1, tokens, d_model), seed, "encoder"))
                seed += 1
    return models


QUICK_MODELS = ("builtin", "cnn_d128", "enc_d64_h4_t128", "enc_d256_h4_t128")


def select(names: Optional[str], quick: bool) -> List[BenchModel]:
    models = all_models()
    if names:
        wanted = [n.strip() for n in names.split(",") if n.strip()]
        unknown = [n for n in wanted if not any(m.key == n for m in models)]
        if unknown:
            raise SystemExit(f"unknown model(s) {unknown}; known: {[m.key for m in models]}")
        return [m for m in models if m.key in wanted]
    if quick:
        return [m for m in models if m.key in QUICK_MODELS]
    return models


# ----- FLOPs: 2 x multiply-adds of the matrix products and convolutions ---------------------------

def count_flops(model: nn.Module, x: torch.Tensor) -> float:
    """2 x the multiply-adds of Linear, Conv and MultiheadAttention (projections, scores, weighted
    values) in one forward pass. Norms, softmax, activations and pooling are not counted (a few %).
    Runs with autograd on so that PyTorch takes the module-by-module path the hooks see."""
    macs = [0.0]

    def linear(module, inputs, output):
        macs[0] += output.numel() / module.out_features * module.in_features * module.out_features

    def conv(module, inputs, output):
        macs[0] += output.numel() * (module.in_channels // module.groups) * math.prod(module.kernel_size)

    def attention(module, inputs, output):
        query, key = inputs[0], inputs[1]
        batch_first = getattr(module, "batch_first", False)
        seq_axis, batch = (1, query.shape[0]) if batch_first else (0, query.shape[1])
        L, S, E = query.shape[seq_axis], key.shape[seq_axis], module.embed_dim
        macs[0] += batch * (L * E * E + 2 * S * E * E + 2 * L * S * E + L * E * E)

    hooks = []
    for module in model.modules():
        if isinstance(module, nn.MultiheadAttention):
            hooks.append(module.register_forward_hook(attention))
        elif isinstance(module, nn.Linear) and not isinstance(module, nn.modules.linear.NonDynamicallyQuantizableLinear):
            hooks.append(module.register_forward_hook(linear))
        elif isinstance(module, (nn.Conv1d, nn.Conv2d)):
            hooks.append(module.register_forward_hook(conv))
    try:
        with torch.enable_grad():
            model(x)
    finally:
        for hook in hooks:
            hook.remove()
    return 2.0 * macs[0]


def describe(models: List[BenchModel]) -> str:
    quick = set(QUICK_MODELS)
    return "\n".join(f"{m.key:20} {m.title}, input {list(m.input_shape)}{'  (--quick)' if m.key in quick else ''}"
                     for m in models)
