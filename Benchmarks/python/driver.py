"""The benchmark suite, in one run (scripts/benchmark.sh calls this after building):

  1. the machine: CPU model and SIMD flags, one core's peak GFLOP/s per ISA, the engine's kernel path
  2. exports every model for every contender (prepare.py)
  3. latency: persistent workers per contender, rounds alternating between them (workers.py)
  4. per-op profiles, push() and front-end costs, classify throughput, load time, peak memory, many plugin
     instances in one host (system.py)
  5. docs/BENCHMARKS.md + docs/images/benchmarks.png (report.py), and the raw figures as JSON

  driver.py --bench-bin build-bench [--quick] [--models a,b] [--rounds N] [--skip-system] ...
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

from workers import CONTENDERS, LOWER_PATH_PREFIX, ROOT, is_known, measure_model, summarise

import prepare  # noqa: E402  (after workers: sys.path holds Training/ through zoo)
import report
import system
import zoo


def parse_arguments():
    parser = argparse.ArgumentParser(prog="scripts/benchmark.sh", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench-bin", default=os.path.join(ROOT, "build-bench"), help="folder of the built benchmark programs")
    parser.add_argument("--cli", help="the sonotype CLI (default: BENCH_BIN/sonotype)")
    parser.add_argument("--work", help="scratch folder for exported models and audio (default: BENCH_BIN/bench-work)")
    parser.add_argument("--quick", action="store_true", help="a few minutes: 4 models, 4 rounds, short system benchmarks")
    parser.add_argument("--models", help="comma-separated model keys (see --list)")
    parser.add_argument("--list", action="store_true", help="list the model keys and exit")
    parser.add_argument("--rounds", type=int, help="latency rounds per model (default 20; quick 4)")
    parser.add_argument("--batch-seconds", type=float, help="time each contender runs per round (default 0.2 s; quick 0.08)")
    parser.add_argument("--contenders", help="subset of " + ",".join(CONTENDERS) + " (default: all; libtorch where "
                        "sonotype_bench_libtorch was built, i.e. libtorch-dev is installed)")
    parser.add_argument("--paths", choices=("all", "dispatched"), help="all: Sonotype also on every lower kernel path "
                        "this CPU runs (SONOTYPE_KERNELS), as extra contenders; dispatched: only the path it picks "
                        "(default: all; quick: dispatched)")
    parser.add_argument("--skip-system", action="store_true", help="latency only (no push/front end/classify/RSS)")
    parser.add_argument("--render", metavar="RESULTS_JSON", help="only write the report again from a run's results.json")
    parser.add_argument("--report", default=os.path.join(ROOT, "docs", "BENCHMARKS.md"))
    parser.add_argument("--plot", default=os.path.join(ROOT, "docs", "images", "benchmarks.png"))
    return parser.parse_args()


def log(message: str):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def main():
    args = parse_arguments()
    if args.list:
        print(zoo.describe(zoo.all_models()))
        return
    if args.render:
        with open(args.render) as f:
            report.write(json.load(f), args.report, args.plot)
        log(f"wrote {args.report} and {args.plot} from {args.render}")
        return
    args.bench_bin = os.path.abspath(args.bench_bin)
    cli = os.path.abspath(args.cli or os.path.join(args.bench_bin, "sonotype"))
    work = os.path.abspath(args.work or os.path.join(args.bench_bin, "bench-work"))
    rounds = args.rounds or (4 if args.quick else 20)
    batch_s = args.batch_seconds or (0.08 if args.quick else 0.2)
    if args.contenders:
        contenders = [c for c in args.contenders.split(",") if c]
    else:
        has_libtorch = os.path.exists(os.path.join(args.bench_bin, "sonotype_bench_libtorch"))
        contenders = [c for c in CONTENDERS if c != "libtorch" or has_libtorch]
    unknown = [c for c in contenders if not is_known(c)]
    if unknown:
        raise SystemExit(f"unknown contender(s) {unknown}; known: {CONTENDERS} and {LOWER_PATH_PREFIX}PATH")
    models = zoo.select(args.models, args.quick)
    started = time.monotonic()

    results = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "quick": args.quick, "subset": bool(args.models), "rounds": rounds, "batch_seconds": batch_s, "contenders": contenders,
               "command": user_command(), "platform": platform.platform()}
    try:
        results["commit"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                           text=True).stdout.strip()
        changed = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", ".",
                                  ":!docs/BENCHMARKS.md", ":!docs/images/benchmarks.png"], capture_output=True, text=True).stdout
        if changed.strip():
            results["commit"] += " + uncommitted changes"
    except OSError:
        results["commit"] = "?"
    results["versions"] = peer_versions()

    log("machine: CPU, one core's peak per ISA, the engine's kernel path")
    results["cpu"] = system.cpu_info()
    results["peak"] = system.peak_gflops(args.bench_bin)
    results["inspect_builtin"] = system.inspect(cli, zoo.BUILTIN_MODEL)
    if (args.paths or ("dispatched" if args.quick else "all")) == "all" and "sonotype" in contenders:
        lower = system.lower_kernel_paths(results["inspect_builtin"])
        contenders = [c for c in contenders if c != "sonotype"] + [LOWER_PATH_PREFIX + p for p in lower] + ["sonotype"]
        results["contenders"] = contenders

    log(f"exporting {len(models)} models")
    manifest = prepare.prepare(models, work)

    results["models"] = {}
    for index, model_def in enumerate(models):
        entry = manifest[model_def.key]
        log(f"latency {index + 1}/{len(models)}: {model_def.key} ({rounds} rounds)")
        measured = measure_model(entry, contenders, args.bench_bin, rounds, batch_s, load_repeats=5)
        for contender, error in entry.get("export_errors", {}).items():  # the cause, rather than a missing file
            if contender in measured["errors"]:
                measured["errors"][contender] = error
        info = system.inspect(cli, os.path.join(entry["folder"], "model.safetensors"))
        entry = dict(entry, inspect={k: v for k, v in info.items() if k != "text"},
                     max_abs_diff=measured["max_abs_diff"], errors=measured["errors"],
                     stats={c: summarise(t) for c, t in measured["times"].items() if t},
                     round_medians=measured["round_medians"], batches=measured.get("batches", {}))
        if "load_ms" in measured:
            entry["load_ms"] = summarise(measured["load_ms"])
        for contender, error in measured["errors"].items():
            log(f"  {contender}: {error}")
        for contender, diff in measured["max_abs_diff"].items():
            if diff > report.MAX_ABS_DIFF:
                log(f"  {contender}: output differs from PyTorch eager by {diff:.3g} (more than {report.MAX_ABS_DIFF:g})")
        medians = {c: s["median"] for c, s in entry["stats"].items()}
        log("  " + "  ".join(f"{c} {m:.3f} ms" for c, m in medians.items()))
        entry["profile"] = system.profile(cli, entry["folder"], runs=20 if args.quick else 100)
        if entry["profile"]["available"] and not entry["profile"]["by_kind"]:
            log("  run-model --profile answered, but its 'by op kind' table could not be read (format changed?)")
        graph_mflops = entry["inspect"].get("mflops")
        if graph_mflops and abs(graph_mflops * 1e6 / entry["flops_python"] - 1) > 0.05:
            log(f"  FLOPs: our graph counts {graph_mflops:.1f} MFLOP, the PyTorch module {entry['flops_python'] / 1e6:.1f}")
        results["models"][model_def.key] = entry

    if not args.skip_system:
        log("runtime: push() per block size, front end (Google Benchmark)")
        results["runtime"] = system.runtime_benchmarks(args.bench_bin, 0.1 if args.quick else 0.5, 3 if args.quick else 5)
        audio_folder = os.path.join(work, "audio")
        num_files, seconds = (4, 15.0) if args.quick else (8, 20.0)
        audio_seconds = system.make_audio(audio_folder, num_files, seconds)
        one_file_folder = os.path.join(work, "audio-one-file")
        system.make_audio(one_file_folder, 1, audio_seconds)
        log(f"classify throughput: {audio_seconds:.0f} s of audio, --jobs 1/2, --segments and --format reaper against the PyTorch pipeline")
        results["classify"] = system.classify_throughput(cli, audio_folder, audio_seconds, one_file_folder, 1 if args.quick else 5)
        log("headless plugin peak RSS")
        results["plugin"] = system.plugin_rss(args.bench_bin, 3.0 if args.quick else 10.0)
        counts, seconds = ((1, 8), 5.0) if args.quick else ((1, 8, 32, 64), 20.0)
        log(f"many instances: a headless host with {', '.join(map(str, counts))} plugin instances, {seconds:.0f} s each")
        results["instances"] = system.many_instances(args.bench_bin, counts, seconds)

    results["duration_s"] = time.monotonic() - started
    os.makedirs(os.path.dirname(args.report), exist_ok=True)
    raw = os.path.join(work, "results.json")
    with open(raw, "w") as f:
        json.dump(results, f, indent=1, default=lambda o: o.tolist() if isinstance(o, np.ndarray) else str(o))
    report.write(results, args.report, args.plot)
    log(f"wrote {os.path.relpath(args.report, ROOT)}, {os.path.relpath(args.plot, ROOT)} and {raw} "
        f"({results['duration_s'] / 60:.1f} min)")


def user_command() -> str:
    """The benchmark.sh command line as the user typed it (without the --bench-bin the script adds)."""
    words, skip = [], False
    for word in sys.argv[1:]:
        if skip or word == "--bench-bin":
            skip = not skip
            continue
        if not word.startswith("--bench-bin="):
            words.append(word)
    return " ".join(["scripts/benchmark.sh"] + words)


def peer_versions() -> dict:
    import torch
    versions = {"torch": torch.__version__, "python": platform.python_version()}
    try:
        lock = json.load(open(os.path.join(ROOT, "Training", "sonotype", "testing", "ort", "node_modules", "onnxruntime-node",
                                          "package.json")))
        versions["onnxruntime-node"] = lock["version"]
    except OSError:
        versions["onnxruntime-node"] = "not installed"
    try:
        versions["node"] = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        versions["node"] = "not installed"
    return versions


if __name__ == "__main__":
    main()
