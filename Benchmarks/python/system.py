"""The benchmarks beside model latency: the machine, one core's peak, the engine's dispatched kernel
path, per-op profiles, the runtime's Google Benchmarks (push(), front end), `sonotype classify`
throughput against a PyTorch pipeline, model load time and peak memory."""

import json
import math
import os
import re
import subprocess
import tempfile
import time
import wave
from typing import Optional

import numpy as np

from workers import HERE, PYTHON, ROOT

SIMD_FLAGS = ("sse2", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512dq", "avx512bw", "avx512vl",
              "avx512_vnni", "avx512_bf16", "amx_tile", "amx_bf16")


def cpu_info() -> dict:
    model, flags, ids = "unknown", set(), []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown":
                    model = line.split(":", 1)[1].strip()
                elif line.split(":")[0].strip() in ("cpu family", "model", "stepping") and len(ids) < 3:
                    ids.append(line.split(":", 1)[1].strip())
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return {"model": model, "cores": os.cpu_count(), "simd": [f for f in SIMD_FLAGS if f in flags],
            "family_model_stepping": "/".join(ids)}


def peak_gflops(bench_bin: str) -> dict:
    result = subprocess.run([os.path.join(bench_bin, "sonotype_bench_peak")], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def peak_key_for_path(path: str) -> str:
    """The peak (sonotype_bench_peak's key) of a kernel path as `sonotype inspect` names it."""
    name = "".join(ch for ch in path.lower() if ch.isalnum())
    if "avx512" in name:
        return "avx512f"
    if "avx2" in name or "fma" in name:
        return "avx2_fma"
    return "sse2"


def inspect(cli: str, model_path: str) -> dict:
    """`sonotype inspect`'s work line, and the flops and kernels lines where the engine prints them."""
    result = subprocess.run([cli, "inspect", model_path], capture_output=True, text=True)
    info = {"text": result.stdout, "ok": result.returncode == 0}
    match = re.search(r"^flops:\s+([\d.]+)\s*MFLOP", result.stdout, re.M)
    if match:
        info["mflops"] = float(match.group(1))
    match = re.search(r"^kernels:\s+(\S+)", result.stdout, re.M)
    if match:
        info["kernels"] = match.group(1)
        info["kernels_line"] = re.search(r"^kernels:\s+(.*)$", result.stdout, re.M).group(1).strip()
    match = re.search(r"^work:\s+([\d.]+)\s*M operations", result.stdout, re.M)
    if match:
        info["mops"] = float(match.group(1))
    return info


def lower_kernel_paths(info: dict) -> list:
    """The kernel paths below the dispatched one that this CPU runs, from `inspect`'s kernels line
    ("avx512 (...; this CPU runs: baseline avx2 avx512; ...)"), fastest first."""
    match = re.search(r"this CPU runs:\s*([a-z0-9 ]+)", info.get("kernels_line", ""))
    if not match or "kernels" not in info:
        return []
    return [p for p in reversed(match.group(1).split()) if p != info["kernels"]]


def profile(cli: str, folder: str, runs: int, repeats: int = 3) -> dict:
    """`sonotype run-model --profile` (per node and per op kind), if this build has it: run `repeats`
    times, keeping the run whose total time per inference is the median (one noisy run on a shared
    machine can be far off; all figures then come from one consistent run)."""
    command = [cli, "run-model", os.path.join(folder, "model.safetensors"), "--input", os.path.join(folder, "input.npy"),
               "--output", os.path.join(folder, "profile_output.npy"), "--benchmark", str(runs), "--profile"]
    attempts = []
    for _ in range(repeats):
        result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        text = (result.stdout + result.stderr).strip()
        total = re.search(r"profile: \d+ runs, ([0-9.]+) ms per run", text)
        attempts.append((float(total.group(1)) if total else float("inf"), result, text))
        if result.returncode != 0:
            break
    attempts.sort(key=lambda attempt: attempt[0])
    _, result, text = attempts[len(attempts) // 2]
    shown = ["sonotype"] + [os.path.relpath(word, ROOT) if word.startswith(ROOT) else word for word in command[1:]]
    return {"available": result.returncode == 0, "text": text, "command": " ".join(shown), "by_kind": op_kinds(text)}


def op_kinds(text: str) -> dict:
    """The "by op kind:" table of `run-model --profile`: {op: {"nodes", "ms", "share", "mflop", "gflops"}}."""
    kinds, inside = {}, False
    for line in text.splitlines():
        if line.startswith("by op kind"):
            inside = True
            continue
        if inside and not line.startswith(" "):
            break
        words = line.split()
        if not inside or len(words) != 6 or words[0] == "op":
            continue
        try:
            kinds[words[0]] = {"nodes": int(words[1]), "ms": float(words[2]), "share": float(words[3].rstrip("%")) / 100,
                               "mflop": None if words[4] == "-" else float(words[4]),
                               "gflops": None if words[5] == "-" else float(words[5])}
        except ValueError:
            continue
    return kinds


def runtime_benchmarks(bench_bin: str, min_time_s: float, repetitions: int) -> dict:
    """sonotype_bench_runtime's counters: the median over repetitions of each benchmark."""
    command = [os.path.join(bench_bin, "sonotype_bench_runtime"), "--benchmark_format=json",
               f"--benchmark_min_time={min_time_s}", f"--benchmark_repetitions={repetitions}",
               "--benchmark_report_aggregates_only=true"]
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    data = json.loads(result.stdout)
    figures = {}
    for bench in data["benchmarks"]:
        if bench.get("aggregate_name", "median") != "median" or bench.get("error_occurred"):
            continue
        name = bench.get("run_name", bench["name"])
        figures[name] = {k: bench[k] for k in ("ns_per_frame", "us_per_audio_second") if k in bench}
        figures[name]["real_time_ns"] = bench["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[bench["time_unit"]]
    errors = [b["name"] + ": " + b.get("error_message", "") for b in data["benchmarks"] if b.get("error_occurred")]
    return {"figures": figures, "errors": errors, "context": data.get("context", {})}


# ----- classify throughput ---------------------------------------------------------------------

def make_audio(folder: str, num_files: int, seconds: float, rate: int = 44100) -> float:
    """Deterministic test audio (16-bit WAV, mono): harmonic tones with vibrato, noise bursts, clicks
    and silence, one mix per file. Returns the total length in seconds."""
    os.makedirs(folder, exist_ok=True)
    random = np.random.default_rng(15)
    t = np.arange(int(seconds * rate)) / rate
    for i in range(num_files):
        f0 = 110.0 * 2 ** (i / 3)
        tone = sum(np.sin(2 * np.pi * f0 * (h + 1) * t + 0.3 * np.sin(2 * np.pi * 5 * t)) / (h + 1) for h in range(6))
        envelope = (np.sin(2 * np.pi * t / (2.0 + i)) > -0.3).astype(np.float64)
        noise = random.normal(0, 0.3, t.size) * (np.sin(2 * np.pi * t / 3.1 + i) > 0.6)
        clicks = np.zeros(t.size)
        clicks[:: int(rate * (0.25 + 0.05 * i))] = 0.9
        mix = 0.25 * tone * envelope + noise + clicks
        samples = np.clip(mix / max(1e-9, np.abs(mix).max()) * 0.8, -1, 1)
        with wave.open(os.path.join(folder, f"bench_{i:02d}.wav"), "wb") as f:
            f.setnchannels(1)
            f.setsampwidth(2)
            f.setframerate(rate)
            f.writeframes((samples * 32767).astype(np.int16).tobytes())
    return num_files * seconds


def run_with_rusage(command, env=None) -> dict:
    """Runs a command to completion; its stdout, wall seconds and its peak RSS in KiB, as GNU time
    reports it (a child of this Python process would inherit the driver's own peak: Linux carries
    ru_maxrss over exec())."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        start = time.perf_counter()
        result = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name] + list(command), capture_output=True, env=env)
        wall = time.perf_counter() - start
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.decode()[-2000:]}")
        maxrss = int(rss.read().strip().splitlines()[-1])
    return {"wall_s": wall, "stdout": result.stdout.decode(), "maxrss_kib": maxrss}


def classify_throughput(cli: str, audio_folder: str, audio_seconds: float, one_file_folder: str, repeats: int) -> dict:
    """`sonotype classify --summary` (--jobs 1 and 2; whole-process wall time, model load included)
    against torch_pipeline.py (in-process time), alternating, `repeats` times each; and with the
    window rows merged into segments (--segments, one core) and exported as a REAPER region list
    (--format reaper, which takes one file: `one_file_folder` holds one file as long as the rest)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.path.join(ROOT, "Training")]), OMP_NUM_THREADS="1")
    variants = {
        "jobs1": ["--summary", "--jobs", "1", audio_folder],
        "jobs2": ["--summary", "--jobs", "2", audio_folder],
        "segments": ["--segments", "--jobs", "1", audio_folder],
        "reaper": ["--format", "reaper", "--jobs", "1", one_file_folder],
    }
    results = {key: [] for key in list(variants) + ["pytorch", "rss_kib"]}
    for _ in range(repeats):
        for key, arguments in variants.items():
            run = run_with_rusage([cli, "classify"] + arguments)
            results[key].append(audio_seconds / run["wall_s"])
            if key == "jobs1":
                results["rss_kib"].append(run["maxrss_kib"])
        run = run_with_rusage([PYTHON, os.path.join(HERE, "torch_pipeline.py"), audio_folder], env=env)
        report = json.loads(run["stdout"])
        results["pytorch"].append(report["audio_seconds"] / report["seconds"])
        results["pytorch_windows"] = report["windows"]
    results["audio_seconds"] = audio_seconds
    results["median"] = {k: float(np.median(results[k])) for k in list(variants) + ["pytorch"]}
    results["cli_maxrss_kib"] = int(max(results["rss_kib"]))
    return results


def plugin_rss(bench_bin: str, seconds: float) -> Optional[dict]:
    result = subprocess.run([os.path.join(bench_bin, "sonotype_bench_plugin"), str(seconds)], capture_output=True, text=True,
                            timeout=seconds + 120)
    if result.returncode != 0:
        return {"error": (result.stdout + result.stderr)[-2000:]}
    return json.loads(result.stdout.strip().splitlines()[-1])


def many_instances(bench_bin: str, counts, seconds: float) -> dict:
    """`sonotype_bench_instances N SECONDS` for each N: a headless host with N plugin instances fed
    real-time audio (48 kHz, 128-sample stereo blocks). One run per count, fewest first."""
    rows = {}
    for count in counts:
        result = subprocess.run([os.path.join(bench_bin, "sonotype_bench_instances"), str(count), str(seconds)],
                                capture_output=True, text=True, timeout=seconds + 180)
        if result.returncode != 0:
            rows[str(count)] = {"error": (result.stdout + result.stderr)[-2000:]}
            continue
        rows[str(count)] = json.loads(result.stdout.strip().splitlines()[-1])
    return rows


def fmt(value: float, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.{digits}g}"
