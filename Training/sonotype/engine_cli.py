"""Running model files through the C++ engine via the `sonotype` command-line tool."""

import os
import shutil
import subprocess
import tempfile

import numpy as np

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli_path() -> str:
    """The built `sonotype` binary: $SONOTYPE_CLI, build/sonotype, or one on PATH."""
    candidates = [os.environ.get("SONOTYPE_CLI"), os.path.join(_REPO, "build", "sonotype"), shutil.which("sonotype")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise FileNotFoundError("the sonotype CLI is not built: run scripts/build.sh or set SONOTYPE_CLI")


def run_model(model_path: str, x: np.ndarray, output_index: int = 0) -> np.ndarray:
    """Runs `sonotype run-model` on x and returns the engine's output."""
    with tempfile.TemporaryDirectory() as tmp:
        input_path = os.path.join(tmp, "input.npy")
        output_path = os.path.join(tmp, "output.npy")
        np.save(input_path, np.ascontiguousarray(x, dtype=np.float32))
        result = subprocess.run([cli_path(), "run-model", model_path, "--input", input_path, "--output", output_path,
                                 "--output-index", str(output_index)], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"sonotype run-model failed ({result.returncode}): {result.stderr.strip()}")
        return np.load(output_path)


def features(settings: dict, samples: np.ndarray, rate: float = None, use_model_file: bool = True) -> np.ndarray:
    """The C++ front end's features of one clip (`sonotype features`), for comparison with torchaudio.

    By default the settings travel in a model file, as in real use (with torchaudio's window and
    filterbank stored); with use_model_file=False as plain JSON (the C++ side computes them)."""
    import json

    import torch

    from .export import export_model

    class Scale(torch.nn.Module):
        def forward(self, x):
            return x * 2.0

    with tempfile.TemporaryDirectory() as tmp:
        if use_model_file:
            source = ["--model", os.path.join(tmp, "frontend.safetensors")]
            # A model whose input is the front end's window (4 frames when the settings leave it open).
            from .export.exporter import window_frames
            frames = window_frames(settings, int(settings["window_samples"])) if settings.get("window_samples") else 4
            export_model(Scale().eval(), torch.zeros(1, settings["n_mels"], frames), source[1], frontend=settings)
        else:
            source = ["--frontend", os.path.join(tmp, "frontend.json")]
            with open(source[1], "w") as f:
                json.dump(settings, f)
        input_path = os.path.join(tmp, "samples.npy")
        output_path = os.path.join(tmp, "features.npy")
        np.save(input_path, np.ascontiguousarray(samples, dtype=np.float32))
        command = [cli_path(), "features", *source, "--input", input_path, "--output", output_path]
        if rate is not None:
            command += ["--rate", str(rate)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"sonotype features failed ({result.returncode}): {result.stderr.strip()}")
        return np.load(output_path)


def inspect(model_path: str) -> str:
    result = subprocess.run([cli_path(), "inspect", model_path], capture_output=True, text=True, check=True)
    return result.stdout
