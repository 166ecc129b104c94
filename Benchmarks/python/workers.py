"""Persistent contender processes of the latency benchmark and the round-robin that times them.

Every worker (Sonotype's C++ sonotype_bench_worker, torch_worker.py eager/torchscript, the ONNX Runtime
node worker) loads one model, writes its output for the shared input, prints "ready", then answers
"run N" with "times T1 .. TN" (milliseconds per run, timed inside the worker around the inference
call alone). The driver rotates through the workers round by round so that slow drifts of the machine
(other processes, frequency changes) hit every contender alike.
"""

import os
import select
import subprocess
import time
from typing import Dict, List, Optional, Sequence

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PYTHON = "/usr/bin/python3"

CONTENDERS = ("pytorch", "torchscript", "libtorch", "ort", "sonotype")
NAMES = {"pytorch": "PyTorch eager", "torchscript": "TorchScript", "libtorch": "libtorch C++", "ort": "ONNX Runtime",
         "sonotype": "Sonotype"}
# Sonotype forced onto a lower kernel path than the one it dispatches to: "sonotype@avx2", "sonotype@baseline"
# (the worker runs with SONOTYPE_KERNELS=PATH).
LOWER_PATH_PREFIX = "sonotype@"


def display_name(contender: str) -> str:
    if contender.startswith(LOWER_PATH_PREFIX):
        return f"Sonotype, {contender[len(LOWER_PATH_PREFIX):]} path"
    return NAMES[contender]


def is_known(contender: str) -> bool:
    return contender in CONTENDERS or (contender.startswith(LOWER_PATH_PREFIX) and len(contender) > len(LOWER_PATH_PREFIX))


class WorkerError(RuntimeError):
    pass


class Worker:
    def __init__(self, name: str, command: Sequence[str], output_path: str, log_path: str, timeout_s: float = 300.0,
                 extra_env: Optional[dict] = None):
        self.name, self.output_path, self.timeout_s = name, output_path, timeout_s
        self.log_path = log_path
        environment = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1",
                           PYTHONPATH=os.pathsep.join([HERE, os.path.join(ROOT, "Training")]))
        environment.pop("SONOTYPE_KERNELS", None)
        environment.update(extra_env or {})
        self.log = open(log_path, "w")
        try:
            self.process = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                            text=True, bufsize=1, env=environment, cwd=HERE)
        except OSError:
            self.log.close()
            raise
        self._expect("ready")

    def _line(self) -> str:
        ready, _, _ = select.select([self.process.stdout], [], [], self.timeout_s)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            self.process.kill()
            self.process.wait()
            self.log.flush()
            with open(self.log_path) as f:
                detail = f.read().strip()[-2000:]
            raise WorkerError(f"{self.name}: no answer (exit code {self.process.returncode}): {detail}")
        return line.strip()

    def _expect(self, word: str) -> List[str]:
        words = self._line().split()
        if not words or words[0] != word:
            raise WorkerError(f"{self.name}: expected '{word}', got {' '.join(words)!r}")
        return words[1:]

    def run(self, count: int, command: str = "run") -> List[float]:
        self.process.stdin.write(f"{command} {count}\n")
        self.process.stdin.flush()
        times = [float(t) for t in self._expect("times")]
        if len(times) != count:
            raise WorkerError(f"{self.name}: {len(times)} times for {command} {count}")
        return times

    def output(self) -> np.ndarray:
        return np.fromfile(self.output_path, dtype=np.float32)

    def close(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.write("quit\n")
                self.process.stdin.flush()
                self.process.wait(timeout=30)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self.log.close()


def start_worker(contender: str, entry: dict, bench_bin: str) -> Worker:
    folder = entry["folder"]
    input_path = os.path.join(folder, "input.f32")
    output_path = os.path.join(folder, f"output_{contender}.f32")
    extra_env = {}
    if contender == "sonotype" or contender.startswith(LOWER_PATH_PREFIX):
        command = [os.path.join(bench_bin, "sonotype_bench_worker"), os.path.join(folder, "model.safetensors"), input_path,
                   output_path]
        if contender != "sonotype":
            extra_env["SONOTYPE_KERNELS"] = contender[len(LOWER_PATH_PREFIX):]
    elif contender in ("pytorch", "torchscript"):
        mode = "eager" if contender == "pytorch" else "torchscript"
        command = [PYTHON, os.path.join(HERE, "torch_worker.py"), mode, entry["key"], input_path, output_path]
    elif contender == "libtorch":
        command = [os.path.join(bench_bin, "sonotype_bench_libtorch"), os.path.join(folder, "model.pt"), input_path,
                   output_path, ",".join(str(d) for d in entry["input_shape"])]
    elif contender == "ort":
        command = ["node", os.path.join(ROOT, "Benchmarks", "peers", "ort_worker.js"), os.path.join(folder, "model.onnx"),
                   input_path, output_path, str(entry["input_shape"]).replace(" ", "")]
    else:
        raise ValueError(contender)
    return Worker(f"{contender} ({entry['key']})", command, output_path, os.path.join(folder, f"{contender}.log"),
                  extra_env=extra_env)


def batch_size(seconds_per_run: float, target_s: float) -> int:
    return int(min(500, max(1, round(target_s / max(seconds_per_run, 1e-6)))))


def measure_model(entry: dict, contenders: Sequence[str], bench_bin: str, rounds: int, target_batch_s: float,
                  load_repeats: int) -> dict:
    """Starts one worker per contender, checks outputs, warms up, then `rounds` rounds, each contender
    running a batch of about target_batch_s per round (the first contender changing every round)."""
    reference = np.fromfile(os.path.join(entry["folder"], "reference.f32"), dtype=np.float32)
    workers: Dict[str, Worker] = {}
    result = {"times": {}, "max_abs_diff": {}, "errors": {}, "round_medians": {}}
    try:
        for contender in contenders:
            try:
                workers[contender] = start_worker(contender, entry, bench_bin)
            except (WorkerError, OSError) as error:
                result["errors"][contender] = str(error)
                continue
            output = workers[contender].output()
            if output.shape != reference.shape:
                result["errors"][contender] = f"output has {output.size} values, PyTorch {reference.size}"
                workers.pop(contender).close()
                continue
            result["max_abs_diff"][contender] = float(np.max(np.abs(output.astype(np.float64) - reference)))
        batches = {}
        for contender, worker in workers.items():  # warm-up, and the batch size for about target_batch_s
            worker.run(2)
            estimate = float(np.median(worker.run(3))) / 1e3
            batches[contender] = batch_size(estimate, target_batch_s)
            worker.run(batches[contender])
        names = list(workers)
        for contender in names:
            result["times"][contender] = []
            result["round_medians"][contender] = []
        for r in range(rounds if names else 0):
            order = names[r % len(names):] + names[: r % len(names)]
            for contender in order:
                times = workers[contender].run(batches[contender])
                result["times"][contender].extend(times)
                result["round_medians"][contender].append(float(np.median(times)))
        if "sonotype" in workers and load_repeats > 0:
            result["load_ms"] = workers["sonotype"].run(load_repeats, "load")
        result["batches"] = batches
    finally:
        for worker in workers.values():
            worker.close()
    return result


def summarise(times: List[float]) -> dict:
    values = np.asarray(times, dtype=np.float64)
    return {"median": float(np.median(values)), "p10": float(np.percentile(values, 10)),
            "p90": float(np.percentile(values, 90)), "n": int(values.size)}


def wall_clock(function, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start
