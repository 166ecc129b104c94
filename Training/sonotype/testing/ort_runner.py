"""ONNX Runtime as a reference for the ONNX conversion tests, through node and npm's onnxruntime-node.

The package is pinned in `ort/package-lock.json` (shared with scripts/benchmark.sh) and installed
into `ort/node_modules` on first use with `npm ci --ignore-scripts` (scripts/install-deps.sh does it
ahead of time).  Without node, npm or the network this fails loudly: the comparison with ONNX
Runtime is part of the tests, never skipped.
"""

import fcntl
import filecmp
import json
import os
import shutil
import subprocess
import tempfile
from typing import Dict, List, Sequence, Tuple

import numpy as np

ORT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort")
RUNNER = os.path.join(ORT_DIR, "run_onnx.js")


def ensure_installed(folder: str = ORT_DIR) -> None:
    """Installs onnxruntime-node from the lock file in `folder` unless that exact lock is installed
    there already; raises RuntimeError if it cannot."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"`{tool}` is not installed: the ONNX tests compare with ONNX Runtime through node "
                               "(scripts/install-deps.sh installs nodejs and npm)")
    lock = os.path.join(folder, "package-lock.json")
    stamp = os.path.join(folder, "node_modules", ".sonotype-lock")
    with open(os.path.join(folder, ".install.lock"), "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)  # tests running in parallel install once
        if os.path.isfile(stamp) and filecmp.cmp(lock, stamp, shallow=False):
            return
        result = subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=folder,
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"installing onnxruntime-node with npm failed (exit {result.returncode}; no network?):\n"
                               f"{result.stdout[-2000:]}{result.stderr[-2000:]}")
        shutil.copyfile(lock, stamp)


def run_many(jobs: Sequence[Tuple[str, Dict[str, np.ndarray]]]) -> List[List[np.ndarray]]:
    """Runs each (model path, {input name: array}) in ONNX Runtime (one node process for all);
    returns each model's outputs in its output order."""
    ensure_installed()
    with tempfile.TemporaryDirectory() as tmp:
        spec = []
        for index, (model_path, inputs) in enumerate(jobs):
            paths = {}
            for number, (name, array) in enumerate(inputs.items()):
                paths[name] = os.path.join(tmp, f"job{index}.input{number}.npy")
                np.save(paths[name], np.ascontiguousarray(array))
            spec.append({"model": os.path.abspath(model_path), "inputs": paths,
                         "output_dir": os.path.join(tmp, f"job{index}")})
        spec_path = os.path.join(tmp, "jobs.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        result = subprocess.run(["node", RUNNER, spec_path], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"ONNX Runtime failed: {result.stderr.strip()}")
        outputs = []
        for job in spec:
            with open(os.path.join(job["output_dir"], "names.json")) as f:
                count = len(json.load(f))
            outputs.append([np.load(os.path.join(job["output_dir"], f"{i}.npy")) for i in range(count)])
        return outputs


def run_onnx(model_path: str, inputs: Dict[str, np.ndarray]) -> List[np.ndarray]:
    return run_many([(model_path, inputs)])[0]
