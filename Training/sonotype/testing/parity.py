"""Export a model, run it in the C++ engine, compare with PyTorch."""

import os
import tempfile
from dataclasses import dataclass
from typing import List

import numpy as np
import torch
from torch.utils._pytree import tree_flatten

from ..engine_cli import run_model
from ..export import export_model

# Tolerances of the parity tests.  The relative error of an element is
# |engine - torch| / max(|torch|, REL_FLOOR): near zero the absolute bound is the meaningful one.
MAX_ABS_ERROR = 1e-5
MAX_REL_ERROR = 1e-4
REL_FLOOR = 0.1


@dataclass
class Parity:
    max_abs: float
    max_rel: float

    def ok(self, max_abs: float = MAX_ABS_ERROR, max_rel: float = MAX_REL_ERROR) -> bool:
        return self.max_abs <= max_abs and self.max_rel <= max_rel


def compare(engine: np.ndarray, reference: np.ndarray) -> Parity:
    if engine.shape != reference.shape:
        raise AssertionError(f"engine output shape {engine.shape} != PyTorch {reference.shape}")
    if not np.array_equal(np.isnan(engine), np.isnan(reference)):
        raise AssertionError("NaN positions differ between engine and PyTorch")
    finite = ~np.isnan(reference)
    diff = np.abs(engine[finite].astype(np.float64) - reference[finite].astype(np.float64))
    if diff.size == 0:
        return Parity(0.0, 0.0)
    rel = diff / np.maximum(np.abs(reference[finite].astype(np.float64)), REL_FLOOR)
    return Parity(float(diff.max()), float(rel.max()))


class Lambda(torch.nn.Module):
    """A model made of a function: forward(x) = fn(x, *modules), the modules registered as its own
    (so their weights are the model's parameters); for the op-level parity tests."""

    def __init__(self, fn, *modules):
        super().__init__()
        self.fn = fn
        self.layers = torch.nn.ModuleList(modules)

    def forward(self, x):
        return self.fn(x, *self.layers)


def torch_reference(model: torch.nn.Module, x: torch.Tensor):
    """The model's output as inference runs it (no_grad); with autograd on where PyTorch 1.13's
    fused eval path fails for the model (MultiheadAttention with bias=False)."""
    try:
        with torch.no_grad():
            return model(x)
    except TypeError as error:
        if "_native_multi_head_attention" not in str(error):
            raise
        return model(x)


def engine_outputs(model: torch.nn.Module, x: torch.Tensor, count: int, **export_kwargs) -> List[np.ndarray]:
    """Exports `model` and runs it in the engine on `x`: its first `count` outputs."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.safetensors")
        export_model(model, x, path, **export_kwargs)
        return [run_model(path, x.numpy(), i) for i in range(count)]


def engine_vs_torch(model: torch.nn.Module, x: torch.Tensor, **export_kwargs) -> List[Parity]:
    """Exports `model`, runs every output through the engine and compares with PyTorch."""
    model = model.eval()
    reference = [t.detach() for t in tree_flatten(torch_reference(model, x))[0] if isinstance(t, torch.Tensor)]
    outputs = engine_outputs(model, x, len(reference), **export_kwargs)
    return [compare(out, ref.numpy()) for out, ref in zip(outputs, reference)]


def assert_parity(model: torch.nn.Module, x: torch.Tensor, max_abs: float = MAX_ABS_ERROR, max_rel: float = MAX_REL_ERROR,
                  **export_kwargs) -> List[Parity]:
    results = engine_vs_torch(model, x, **export_kwargs)
    for i, result in enumerate(results):
        assert result.ok(max_abs, max_rel), f"output {i}: max abs error {result.max_abs:.3g}, max rel error {result.max_rel:.3g}"
    return results
