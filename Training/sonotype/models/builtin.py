"""The built-in model as a PyTorch module: the network of the built-in configuration (train.py
MODEL_CONFIG) with the weights of the committed Resources/models/default.safetensors (the benchmarks
run it against the engine; the per-hit studies take its intermediate layers)."""

import os

import torch

from sonotype.export.safetensors_io import read_safetensors

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
BUILTIN_MODEL = os.path.join(ROOT, "Resources", "models", "default.safetensors")


def builtin_model() -> torch.nn.Module:
    """The network of the built-in model's configuration (docs/MODEL.md, Training/sonotype/train.py
    MODEL_CONFIG) with the weights of Resources/models/default.safetensors. The file stores the exported
    graph's constants under the names of the ops that made them ("cls_token.expand", "...pe.slice");
    the sinusoidal positional table is not a weight (the exported slice is checked against it)."""
    from sonotype.train import MODEL_CONFIG, build_model
    tensors, metadata = read_safetensors(BUILTIN_MODEL)
    model = build_model(MODEL_CONFIG)
    if metadata.get("model_class") != type(model).__name__:
        raise ValueError(f"{BUILTIN_MODEL}: model_class {metadata.get('model_class')}, expected {type(model).__name__}")
    state = model.state_dict()
    loaded = {}
    for name, value in tensors.items():
        if name.startswith("frontend."):
            continue
        target = {"cls_token.expand": "cls_token"}.get(name, name)
        if target == "positional_encoder.pe.slice":
            pe = state["positional_encoder.pe"]
            if not torch.allclose(pe[: value.shape[0]], torch.as_tensor(value), atol=1e-6):
                raise ValueError("the built-in model's positional table is not the sinusoidal one")
            continue
        if target not in state:
            raise ValueError(f"{BUILTIN_MODEL}: tensor {name} has no counterpart in {type(model).__name__}")
        loaded[target] = torch.as_tensor(value).reshape(state[target].shape)
    missing = [k for k in state if k not in loaded and not k.endswith("num_batches_tracked") and k != "positional_encoder.pe"]
    if missing:
        raise ValueError(f"{BUILTIN_MODEL}: no weights for {missing}")
    model.load_state_dict(loaded, strict=False)
    return model
