"""Exports every benchmark model for every contender into a work folder:

  WORK/KEY/model.safetensors   our exporter (Training/sonotype/export) - the built-in model: the committed file
  WORK/KEY/model.pt            TorchScript (the trace; the libtorch C++ peer freezes and optimises it)
  WORK/KEY/model.onnx          torch.onnx.export (with autograd on: PyTorch 1.13's fast-path encoder op has no ONNX form)
  WORK/KEY/input.f32, .npy     the input (batch 1), raw float32 / .npy
  WORK/KEY/reference.f32       PyTorch eager's output under torch.inference_mode(), one thread
  WORK/manifest.json           per model: shapes, parameters, FLOPs, files

The peers rebuild the nn.Module from zoo.py by its key (deterministic seeds); every contender's output
is compared with reference.f32 by the driver.
"""

import json
import os
import shutil
import time
import warnings

import numpy as np
import torch

import zoo
from sonotype.export import ExportError, export_model


def prepare_model(model_def: zoo.BenchModel, folder: str) -> dict:
    os.makedirs(folder, exist_ok=True)
    model, x = model_def.make()
    with torch.inference_mode():
        reference = model(x)
    x.numpy().astype(np.float32).tofile(os.path.join(folder, "input.f32"))
    np.save(os.path.join(folder, "input.npy"), x.numpy().astype(np.float32))
    reference.numpy().astype(np.float32).tofile(os.path.join(folder, "reference.f32"))

    sonotype_file = os.path.join(folder, "model.safetensors")
    errors = {}
    if model_def.committed_file:
        shutil.copyfile(model_def.committed_file, sonotype_file)
    else:
        try:
            export_model(model, x, sonotype_file)
        except ExportError as error:  # the Sonotype worker then fails on the missing file, and the report says so
            errors["sonotype"] = f"export: {error}"

    # TorchScript for the libtorch C++ peer (the Python TorchScript worker traces the same way itself).
    torchscript_file = os.path.join(folder, "model.pt")
    try:
        with torch.no_grad():
            traced = torch.jit.trace(model, (x,), check_trace=False)
            torch.jit.save(traced, torchscript_file)  # frozen and optimised by the C++ worker
    except (RuntimeError, TypeError) as error:  # the libtorch worker then reports the missing file
        errors["libtorch"] = f"torch.jit.trace: {error}"

    onnx_file = os.path.join(folder, "model.onnx")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x,), onnx_file, input_names=["input"], output_names=["output"], opset_version=17,
                              do_constant_folding=True)
    except (RuntimeError, TypeError, torch.onnx.errors.OnnxExporterError) as error:
        errors["ort"] = f"torch.onnx.export: {error}"
    for contender, error in errors.items():
        print(f"  {model_def.key}: {contender}: {error}", flush=True)

    return {
        "key": model_def.key,
        "title": model_def.title,
        "group": model_def.group,
        "input_shape": list(x.shape),
        "output_shape": list(reference.shape),
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "flops_python": zoo.count_flops(model, x),
        "folder": folder,
        "export_errors": errors,
    }


def prepare(models, work: str) -> dict:
    torch.set_num_threads(1)
    os.makedirs(work, exist_ok=True)
    manifest = {}
    for model_def in models:
        start = time.monotonic()
        manifest[model_def.key] = prepare_model(model_def, os.path.join(work, model_def.key))
        print(f"  exported {model_def.key} ({time.monotonic() - start:.1f} s)", flush=True)
    with open(os.path.join(work, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest
