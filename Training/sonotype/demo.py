"""The README's main job: classify the bundled example clips with the built-in model, print the
per-window table and a per-file summary, and time one inference of the built-in model.

    PYTHONPATH=Training python3 -m sonotype.demo
"""

import os
import subprocess

import numpy as np

from .data import CLASSES, FRONTEND
from .engine_cli import cli_path

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EXAMPLES = os.path.join("Resources", "examples")
MODEL = os.path.join(ROOT, "Resources", "models", "default.safetensors")


def sonotype(*args):
    return subprocess.run([cli_path(), *args], capture_output=True, text=True, check=True, cwd=ROOT).stdout


def main() -> None:
    print(f"$ sonotype classify {EXAMPLES}")
    print(sonotype("classify", EXAMPLES), end="")
    print(f"\n$ sonotype classify --summary {EXAMPLES}")
    print(sonotype("classify", "--summary", EXAMPLES), end="")

    # How long one window takes in the engine, on one core.
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "x.npy"), np.zeros((1, FRONTEND["n_mels"], 101), dtype=np.float32))
        result = subprocess.run([cli_path(), "run-model", MODEL, "--input", os.path.join(tmp, "x.npy"), "--output",
                                 os.path.join(tmp, "y.npy"), "--benchmark", "200"], capture_output=True, text=True, check=True)
    print(f"\nbuilt-in model, one 1 s window ({len(CLASSES)} classes): {result.stderr.strip()}")


if __name__ == "__main__":
    main()
