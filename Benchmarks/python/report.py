"""Writes docs/BENCHMARKS.md and its plot from the driver's results (nothing here is typed in by hand:
every figure comes from the run the results describe)."""

import os
from typing import List, Optional

import numpy as np

from system import fmt, op_kinds, peak_key_for_path
from workers import LOWER_PATH_PREFIX, display_name

MAX_ABS_DIFF = 1e-4  # outputs further from PyTorch eager than this are flagged (the parity suite's bound is 1e-5)

SHORT = {"pytorch": "eager", "torchscript": "TorchScript", "libtorch": "libtorch", "ort": "ORT"}
PEAK_NAMES = {"sse2": "SSE2 (multiply + add)", "avx2_fma": "AVX2 + FMA", "avx512f": "AVX-512F (FMA)"}


def kernel_path(results) -> dict:
    info = results.get("inspect_builtin", {})
    if "kernels" in info:
        path = info["kernels"]
        return {"path": path, "line": info.get("kernels_line", path), "peak_key": peak_key_for_path(path),
                "reported": True}
    # No `kernels:` line: this engine has no runtime dispatch; the shipped flags are x86-64 baseline.
    return {"path": "baseline", "line": "not reported by `sonotype inspect` in this build (no runtime dispatch): "
            "x86-64 baseline, SSE2", "peak_key": "sse2", "reported": False}


def model_flops(entry) -> (float, str):
    mflops = entry.get("inspect", {}).get("mflops")
    if mflops is not None:
        return mflops * 1e6, "our graph (`sonotype inspect`)"
    return entry["flops_python"], "PyTorch module (Linear/Conv/attention MACs x 2)"


def cell(stats: Optional[dict]) -> str:
    if not stats:
        return "-"
    return f"{fmt(stats['median'])} ms ({fmt(stats['p10'])}–{fmt(stats['p90'])})"


def ratio(entry, other: str) -> Optional[float]:
    stats = entry.get("stats", {})
    if other not in stats or "sonotype" not in stats:
        return None
    return stats[other]["median"] / stats["sonotype"]["median"]


def round_ratio_spread(entry, other: str) -> Optional[tuple]:
    rounds = entry.get("round_medians", {})
    if other not in rounds or "sonotype" not in rounds or not rounds["sonotype"]:
        return None
    values = np.asarray(rounds[other]) / np.asarray(rounds["sonotype"])
    return float(np.percentile(values, 10)), float(np.percentile(values, 90))


def ratio_cell(entry, other: str, spread: bool = False) -> str:
    value = ratio(entry, other)
    if value is None:
        return "-"
    text = f"{value:.2f}×"
    if spread:
        bounds = round_ratio_spread(entry, other)
        if bounds:
            text += f" ({bounds[0]:.2f}–{bounds[1]:.2f})"
    return text


def short_name(contender: str) -> str:
    if contender.startswith(LOWER_PATH_PREFIX):
        return contender[len(LOWER_PATH_PREFIX):] + " path"
    return SHORT[contender]


def diff_cell(diff: Optional[float]) -> str:
    if diff is None:
        return "-"
    return f"**{diff:.2g} (> {MAX_ABS_DIFF:g})**" if diff > MAX_ABS_DIFF else f"{diff:.2g}"


def plot(results, path: str):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    models = list(results["models"].values())
    contenders = [c for c in results["contenders"] if any(c in m.get("stats", {}) for m in models)]
    colours = {"pytorch": "#e07b39", "torchscript": "#c9a227", "libtorch": "#9467bd", "ort": "#4b8bbe", "sonotype": "#2e8b57",
               "sonotype@avx2": "#7fbf8f", "sonotype@baseline": "#b8dcc0"}
    height = 0.8 / max(1, len(contenders))
    figure, axis = plt.subplots(figsize=(10, 1.8 + 0.11 * len(models) * max(2, len(contenders))))
    for i, contender in enumerate(contenders):
        medians, lows, highs, positions = [], [], [], []
        for j, entry in enumerate(models):
            stats = entry.get("stats", {}).get(contender)
            if not stats:
                continue
            positions.append(j + (i - (len(contenders) - 1) / 2) * height)
            medians.append(stats["median"])
            lows.append(stats["median"] - stats["p10"])
            highs.append(stats["p90"] - stats["median"])
        axis.barh(positions, medians, height=height, xerr=[lows, highs], color=colours.get(contender, "#98c9a3"), label=display_name(contender),
                  error_kw={"elinewidth": 0.8, "capsize": 1.5})
    axis.set_yticks(range(len(models)))
    axis.set_yticklabels([m["title"] for m in models], fontsize=8)
    axis.invert_yaxis()
    axis.set_xscale("log")
    axis.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axis.set_xlabel("latency per inference, ms (median, whiskers p10–p90; log scale; shorter is faster)")
    axis.set_title(f"One thread, batch 1 — {results['cpu']['model']}", fontsize=10, pad=36)
    axis.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4, fontsize=8, frameon=False)
    axis.grid(axis="x", which="both", alpha=0.3)
    figure.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


MATRIX_PRODUCT_OPS = ("gemm", "matmul")


def profile_kinds(entry) -> dict:
    profile = entry.get("profile", {})
    if not profile.get("available"):
        return {}
    return profile.get("by_kind") or op_kinds(profile.get("text", ""))


def matrix_product_gflops(entry) -> Optional[float]:
    """GFLOP/s of the model's matrix products (gemm + matmul) in Sonotype's per-op profile, if any."""
    kinds = profile_kinds(entry)
    rows = [kinds[op] for op in MATRIX_PRODUCT_OPS if op in kinds and kinds[op]["mflop"]]
    milliseconds = sum(r["ms"] for r in rows)
    return sum(r["mflop"] for r in rows) / milliseconds if milliseconds > 0 else None


def vector_paths(results, path_info) -> List[tuple]:
    """(name, contender) of the vector kernel paths this run timed: the dispatched one and the lower
    ones forced with SONOTYPE_KERNELS (avx2 where the dispatch picked avx512), not the SSE2 baseline."""
    paths = [(path_info["path"], "sonotype")]
    for contender in results.get("contenders", []):
        if contender.startswith(LOWER_PATH_PREFIX) and contender != LOWER_PATH_PREFIX + "baseline":
            paths.append((contender[len(LOWER_PATH_PREFIX):], contender))
    return paths


def ort_ratio(entry, contender: str) -> Optional[float]:
    """ONNX Runtime's median over Sonotype's on one kernel path (above 1: Sonotype faster)."""
    stats = entry.get("stats", {})
    if "ort" not in stats or contender not in stats:
        return None
    return stats["ort"]["median"] / stats[contender]["median"]


def targets(results, path_info) -> List[tuple]:
    """The speed targets against this run's figures: (target, measured, met)."""
    rows = []
    models = results["models"]
    paths = vector_paths(results, path_info)
    with_ort = [m for m in models.values() if ratio(m, "ort") is not None]
    for name, contender in paths:
        timed = [m for m in with_ort if ort_ratio(m, contender) is not None]
        if not timed:
            continue
        slower = [m for m in timed if ort_ratio(m, contender) < 1.0]
        worst = min(timed, key=lambda m: ort_ratio(m, contender))
        rows.append((f"every model: Sonotype at least as fast as ONNX Runtime, {name} path",
                     f"{len(timed) - len(slower)}/{len(timed)} models; lowest {ort_ratio(worst, contender):.2f}× ({worst['title']})",
                     not slower))
    for key in ("builtin", "cnn_d128"):
        if key not in models:
            continue
        entry = models[key]
        for name, contender in paths:
            vs_ort = ort_ratio(entry, contender)
            if vs_ort is not None:
                rows.append((f"{entry['title']}: ≥ 1.5× faster than ONNX Runtime, {name} path", f"{vs_ort:.2f}×", vs_ort >= 1.5))
        vs_eager = ratio(entry, "pytorch")
        if vs_eager is not None:
            rows.append((f"{entry['title']}: ≥ 3× faster than PyTorch eager", f"{vs_eager:.2f}×", vs_eager >= 3.0))
    peak = results["peak"].get(path_info["peak_key"])
    large = [m for m in models.values() if m["group"] == "encoder" and m["input_shape"][-1] >= 256
             and m["input_shape"][1] >= 128 and "sonotype" in m.get("stats", {})]
    if large and peak:
        products = [(matrix_product_gflops(m) / peak, m["title"]) for m in large if matrix_product_gflops(m)]
        whole = min((model_flops(m)[0] / (m["stats"]["sonotype"]["median"] * 1e-3) / 1e9 / peak, m["title"]) for m in large)
        where = f"of {peak:.0f} GFLOP/s, the {PEAK_NAMES[path_info['peak_key']]} peak of the {path_info['path']} path"
        if products:
            low = min(products)
            rows.append(("large encoders (d_model ≥ 256, ≥ 128 tokens): matrix products (gemm + matmul, from "
                         "`run-model --profile`) at ≥ 70% of one core's peak for the dispatched ISA",
                         f"lowest {100 * low[0]:.0f}% ({low[1]}) {where}; whole model: lowest {100 * whole[0]:.0f}%",
                         low[0] >= 0.7))
        else:
            rows.append(("large encoders (d_model ≥ 256, ≥ 128 tokens): ≥ 70% of one core's peak for the dispatched ISA "
                         "(no per-op profile in this build: the whole model's rate, its matrix products alone run faster)",
                         f"lowest {100 * whole[0]:.0f}% ({whole[1]}) {where}", whole[0] >= 0.7))
    runtime = results.get("runtime", {}).get("figures", {})
    push = {name: f["ns_per_frame"] for name, f in runtime.items() if name.startswith("BM_Push/") and "ns_per_frame" in f}
    if push:
        worst = max(push.values())
        rows.append(("push() ≤ 20 ns per sample, FIFO included (stereo frames)",
                     f"worst {worst:.1f} ns/frame ({worst / 2:.1f} ns per channel sample)", worst <= 20.0))
    instances = [row for row in results.get("instances", {}).values() if "error" not in row]
    if instances:
        light = [row for row in instances if row["total_load"] < 0.7]
        skipped = sum(row["windows_skipped"] + row["samples_dropped"] for row in light)
        rows.append(("many instances: no window skipped and no sample dropped while the load is under 70% of the cores",
                     ", ".join(f"{row['instances']}: {row['windows_skipped']} skipped, {row['samples_dropped']} dropped "
                               f"(load {100 * row['total_load']:.0f}%)" for row in instances), skipped == 0))
        worst = max(instances, key=lambda row: row["callback_us"]["max"])
        rows.append(("many instances: every audio callback within its 2.67 ms",
                     f"worst max {worst['callback_us']['max'] / 1000:.2f} ms ({worst['instances']} instances)",
                     all(row["callbacks_over_deadline"] == 0 for row in instances)))
    classify = results.get("classify")
    if classify:
        rt = classify["median"]["jobs1"]
        rows.append(("`sonotype classify`, built-in model, one core: ≥ 400× real time", f"{rt:.0f}×", rt >= 400))
        if "segments" in classify["median"]:
            segments, reaper = classify["median"]["segments"], classify["median"]["reaper"]
            rows.append(("the same with `--segments` and with an export (`--format reaper`): ≥ 400× real time",
                         f"{segments:.0f}× and {reaper:.0f}×", min(segments, reaper) >= 400))
        builtin = models.get("builtin")
        engine_margin = ratio(builtin, "pytorch") if builtin else None
        pipeline_margin = rt / classify["median"]["pytorch"]
        measured = f"{pipeline_margin:.2f}× the PyTorch pipeline"
        if engine_margin is not None:
            measured += f" (engine vs PyTorch eager: {engine_margin:.2f}×)"
        met = engine_margin is not None and pipeline_margin > 1.0 and pipeline_margin >= engine_margin
        rows.append(("`sonotype classify` faster than the PyTorch pipeline, by the engine's margin over PyTorch eager",
                     measured, met))
    return rows


def write(results, report_path: str, plot_path: str):
    path_info = kernel_path(results)
    plot(results, plot_path)
    models = results["models"]
    cpu = results["cpu"]
    peak = results["peak"]
    versions = results.get("versions", {})
    lines = []
    add = lines.append
    add("# Benchmarks")
    add("")
    add("Written by `scripts/benchmark.sh` (Benchmarks/python/driver.py) from one run; do not edit by hand — run it again.")
    add("")
    if results["quick"]:
        kind = "**quick run** (subset, few rounds: indicative only)"
    elif results.get("subset"):
        kind = "**partial run** (the models named on the command line)"
    else:
        kind = "full run"
    add(f"- Run: {results['date']}, commit `{results['commit']}`, {kind}, `{results['command']}`, "
        f"{results['duration_s'] / 60:.1f} min.")
    ids = f" (family/model/stepping {cpu['family_model_stepping']})" if cpu.get("family_model_stepping") else ""
    add(f"- CPU: **{cpu['model']}**{ids}, {cpu['cores']} logical cores; SIMD flags: {', '.join(cpu['simd'])}.")
    add(f"- Engine kernel path: **{path_info['path']}** — {path_info['line']}. Binaries as shipped: Release, no `-march=native`.")
    add("- One core's measured peak (float32, independent multiply-add chains, `sonotype_bench_peak`): "
        + ", ".join(f"{PEAK_NAMES.get(k, k)} {v:.0f} GFLOP/s" for k, v in peak.items()) + ".")
    add(f"- Peers: PyTorch {versions.get('torch')} (eager under `torch.inference_mode()`; TorchScript: trace, freeze, "
        f"`optimize_for_inference`; libtorch C++: the same traced module, frozen and optimised in C++, where Debian's "
        f"`libtorch-dev` is installed), ONNX Runtime {versions.get('onnxruntime-node')} via npm `onnxruntime-node` "
        f"(node {versions.get('node')}, graph optimisation level all). **One thread for every contender, batch 1.**")
    add("")
    add("## Latency per inference")
    add("")
    add(f"Median over {results['rounds']} rounds (p10–p90 of the individual runs in brackets). In each round every "
        "contender, a persistent process holding the model, runs a batch of about "
        f"{results['batch_seconds']:.2f} s of inferences; the contender that starts the round changes every round. "
        "Ratios are the other contender's median over Sonotype's: above 1× Sonotype is faster. The ONNX Runtime "
        "ratio's bracket is the p10–p90 of the per-round ratios. \"Sonotype, PATH path\" is the same binary forced "
        "onto a lower kernel path (`SONOTYPE_KERNELS=PATH`): its ratio is what the dispatch gains.")
    add("")
    peers = [c for c in results["contenders"] if c != "sonotype" and any(c in m.get("stats", {}) for m in models.values())]
    add("| model | params | MFLOP | " + " | ".join(display_name(c) for c in peers) + " | Sonotype | "
        + " | ".join(f"vs {short_name(c)}" for c in peers) + " |")
    add("|---|---:|---:|" + "---|" * (len(peers) + 1) + "---:|" * len(peers))
    for entry in models.values():
        flops, _ = model_flops(entry)
        stats = entry.get("stats", {})
        add(f"| {entry['title']} | {entry['parameters'] / 1e3:.0f}k | {flops / 1e6:.1f} | "
            + " | ".join(cell(stats.get(c)) for c in peers) + f" | **{cell(stats.get('sonotype'))}** | "
            + " | ".join(ratio_cell(entry, c, c == "ort") for c in peers) + " |")
    add("")
    add(f"![latency per model and contender]({os.path.relpath(plot_path, os.path.dirname(report_path))})")
    add("")
    errors = [(entry["title"], c, e) for entry in models.values() for c, e in entry.get("errors", {}).items()]
    if errors:
        add("Contenders that failed (no timing):")
        add("")
        for title, contender, error in errors:
            add(f"- {title}, {display_name(contender)}: `{error[:300]}`")
        add("")

    add("## Outputs against PyTorch eager")
    add("")
    add("Max abs difference of each contender's output from PyTorch eager's (`torch.inference_mode()`) on the same input.")
    add("")
    compared = ["sonotype"] + [c for c in peers if c != "pytorch"]
    add("| model | input | " + " | ".join(display_name(c) for c in compared) + " |")
    add("|---|---|" + "---:|" * len(compared))
    for entry in models.values():
        diffs = entry.get("max_abs_diff", {})
        add(f"| {entry['title']} | {entry['input_shape']} | "
            + " | ".join(diff_cell(diffs.get(c)) for c in compared) + " |")
    add("")

    peak_value = peak.get(path_info["peak_key"])
    best_key = max(peak, key=peak.get)
    add("## Arithmetic throughput")
    add("")
    add(f"FLOPs per inference = 2 × multiply-adds; achieved GFLOP/s = FLOPs / median latency. Sonotype's fraction is of the "
        f"peak of its kernel path ({PEAK_NAMES[path_info['peak_key']]}, {peak_value:.0f} GFLOP/s); ONNX Runtime's of the "
        f"best ISA here ({PEAK_NAMES.get(best_key, best_key)}, {peak[best_key]:.0f} GFLOP/s), which it dispatches to.")
    add("")
    add("| model | FLOPs counted from | Sonotype GFLOP/s | % of peak | ONNX Runtime GFLOP/s | % of peak |")
    add("|---|---|---:|---:|---:|---:|")
    for entry in models.values():
        flops, source = model_flops(entry)
        stats = entry.get("stats", {})
        cells = []
        for contender, reference in (("sonotype", peak_value), ("ort", peak[best_key])):
            if contender in stats:
                gflops = flops / (stats[contender]["median"] * 1e-3) / 1e9
                cells += [f"{gflops:.1f}", f"{100 * gflops / reference:.0f}%"]
            else:
                cells += ["-", "-"]
        add(f"| {entry['title']} | {source} | " + " | ".join(cells) + " |")
    add("")

    add("## Model load time (Sonotype)")
    add("")
    add("`Model::load` of the file plus one `Session` (what a host does before the first inference); median of 5 loads "
        "in the warm worker process (file in the page cache).")
    add("")
    add("| model | file size | load |")
    add("|---|---:|---|")
    for entry in models.values():
        size = os.path.getsize(os.path.join(entry["folder"], "model.safetensors"))
        add(f"| {entry['title']} | {size / 1024:.0f} KiB | {cell(entry.get('load_ms'))} |")
    add("")

    runtime = results.get("runtime")
    if runtime:
        figures = runtime["figures"]
        add("## Audio thread and front end")
        add("")
        add("Google Benchmark (`sonotype_bench_runtime`), median of repetitions, built-in model, host rate 48 kHz.")
        add("")
        add("`StreamingRuntime::push()` of stereo blocks, FIFO write included (the worker's reads run between timed "
            "pushes, untimed, so the FIFO never overruns):")
        add("")
        add("| block (frames) | ns per stereo frame | ns per channel sample |")
        add("|---:|---:|---:|")
        for name, f in sorted(((n, f) for n, f in figures.items() if n.startswith("BM_Push/")), key=lambda x: int(x[0].split("/")[1])):
            add(f"| {name.split('/')[1]} | {f['ns_per_frame']:.2f} | {f['ns_per_frame'] / 2:.2f} |")
        add("")
        add("Front end and analysis path, per second of audio:")
        add("")
        add("| path | µs per second of audio | × real time (one core) |")
        add("|---|---:|---:|")
        titles = {"BM_LogMelStream": "log-mel, streaming at the default hop 0.25 s (frames shared between windows)",
                  "BM_LogMelWindow": "log-mel, 1 s windows from scratch with no overlap (hop = window)",
                  "BM_AnalyzerPath": "WindowAnalyzer: resample 48→16 kHz + log-mel + model, one window per 0.25 s hop"}
        for name, title in titles.items():
            if name in figures:
                us = figures[name]["us_per_audio_second"]
                add(f"| {title} | {us:.0f} | {1e6 / us:.0f}× |")
        add("")
        if runtime.get("errors"):
            add("Benchmarks that reported an error: " + "; ".join(f"`{e}`" for e in runtime["errors"]))
            add("")

    classify = results.get("classify")
    if classify:
        add("## `sonotype classify` throughput")
        add("")
        repeats = len(classify["jobs1"])
        add(f"{classify['audio_seconds']:.0f} s of generated audio (44.1 kHz mono WAV files, deterministic), built-in model, "
            f"default hop 0.25 s ({classify.get('pytorch_windows', '?')} windows), `--summary`. Seconds of audio per "
            f"wall-clock second, median of {repeats} repeats (runs alternate; the slowest and fastest repeat in brackets). "
            "Sonotype: the whole process (start, model load, "
            "decoding, resampling, features, model). PyTorch pipeline (`Benchmarks/python/torch_pipeline.py`): WAV read, "
            "torchaudio resample, torchaudio log-mel (Training/sonotype/frontend.py) and the model per window, batch 1, "
            "one thread; its interpreter start and imports are not counted.")
        add("")

        def classify_cell(key):
            values = classify[key]
            return f"{classify['median'][key]:.0f}× ({min(values):.0f}–{max(values):.0f})"

        add("| pipeline | × real time |")
        add("|---|---:|")
        add(f"| `sonotype classify --jobs 1` | {classify_cell('jobs1')} |")
        add(f"| `sonotype classify --jobs 2` | {classify_cell('jobs2')} |")
        if "segments" in classify["median"]:
            add(f"| `sonotype classify --segments --jobs 1` (segment rows instead of the summary) | {classify_cell('segments')} |")
            add(f"| `sonotype classify --format reaper --jobs 1` (one file of the same length, a region list) | {classify_cell('reaper')} |")
        add(f"| PyTorch pipeline, one thread | {classify_cell('pytorch')} |")
        add("")
        windows = classify.get("pytorch_windows")
        builtin = results.get("models", {}).get("builtin", {}).get("stats", {}).get("sonotype")
        if windows and builtin:
            # Per window, from this run's figures: 400x leaves a window (hop seconds of audio) hop / 400 seconds in all.
            hop = 0.25
            whole = classify["audio_seconds"] / classify["median"]["jobs1"] / windows * 1e3
            model = builtin["median"]
            add(f"Per window ({hop} s of audio, {windows} windows): `--jobs 1` took {whole:.3f} ms all in (400× leaves "
                f"{hop / 400 * 1e3:.3f} ms); the built-in model's own latency above is {model:.3f} ms of it "
                f"({100 * model / whole:.0f}%), the rest ({whole - model:.3f} ms) the process's start and model load, reading, "
                "resampling (libsoxr, very high quality) and the log-mel front end.")
            add("")

    plugin = results.get("plugin")
    if classify or plugin:
        add("## Peak memory")
        add("")
        add("| process | peak RSS |")
        add("|---|---:|")
    if classify:
        add(f"| `sonotype classify --jobs 1` (the run above) | {classify['cli_maxrss_kib'] / 1024:.1f} MiB |")
    if plugin and "maxrss_kib" in plugin:
        add(f"| headless plugin (`sonotype_bench_plugin`: SonotypeProcessor, built-in model, {plugin['seconds']:.0f} s of "
            f"stereo audio at 48 kHz in real time, {plugin['windows_run']} windows analyzed; JUCE initialised: "
            f"{plugin['maxrss_before_kib'] / 1024:.1f} MiB before the processor) | {plugin['maxrss_kib'] / 1024:.1f} MiB |")
    elif plugin:
        add(f"| headless plugin | failed: `{plugin.get('error', '')[:200]}` |")
    if classify or plugin:
        add("")

    instances = results.get("instances")
    if instances:
        add("## Many instances in one host")
        add("")
        add("`sonotype_bench_instances N`: one headless host process with N plugin instances (built-in model, default hop "
            "0.25 s, no editor), each fed its own stereo track at 48 kHz in 128-sample blocks at the pace of real time; "
            "one audio thread (SCHED_FIFO where the system grants it) calls every instance's processBlock() in turn, as a "
            "host's does, and has 2.67 ms a block. Audio callback: all N instances' processBlock() in one block; CPU: the "
            "whole process over the run (after 2 s of warm-up), per instance in shares of one core; load: of all "
            f"{results['cpu']['cores']} cores. Skipped: windows a worker jumped over because it fell behind.")
        add("")
        add("| instances | audio callback p50 / p99 / p99.9 / max | over 2.67 ms | one processBlock() p99.9 / max | "
            "CPU per instance | audio thread | load | windows run | skipped | samples dropped | threads | peak RSS |")
        add("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for count, row in sorted(instances.items(), key=lambda item: int(item[0])):
            if "error" in row:
                add(f"| {count} | failed: `{row['error'][:200]}` |" + " |" * 10)
                continue
            cb, pb = row["callback_us"], row["process_block_us"]
            add(f"| {count} | {cb['p50']:.0f} / {cb['p99']:.0f} / {cb['p99_9']:.0f} / {cb['max']:.0f} µs | "
                f"{row['callbacks_over_deadline']} of {row['callbacks']} | {pb['p99_9']:.1f} / {pb['max']:.0f} µs | "
                f"{100 * row['cpu_per_instance']:.2f}% | {100 * row['audio_thread_cpu']:.1f}% | {100 * row['total_load']:.1f}% | "
                f"{row['windows_run']} | {row['windows_skipped']} | {row['samples_dropped']} | {row['threads']} | "
                f"{row['maxrss_kib'] / 1024:.0f} MiB |")
        granted = {row.get("realtime_priority") for row in instances.values() if "error" not in row}
        if False in granted:
            add("")
            add("The audio thread ran without real-time priority (SCHED_FIFO refused here).")
        add("")

    rows = targets(results, path_info)
    if rows:
        add("## Speed targets in this run")
        add("")
        add("| target | measured | met |")
        add("|---|---|:-:|")
        for target, measured, met in rows:
            add(f"| {target} | {measured} | {'yes' if met else '**no**'} |")
        add("")

    add("## Per-op profile")
    add("")
    builtin = models.get("builtin") or next(iter(models.values()))
    prof = builtin.get("profile", {})
    profiled = [m for m in models.values() if profile_kinds(m)]
    if profiled:
        kinds = []
        for entry in profiled:
            for op, row in sorted(profile_kinds(entry).items(), key=lambda item: -item[1]["ms"]):
                if op not in kinds and row["share"] >= 0.02:
                    kinds.append(op)
        add("Where Sonotype's time goes (`sonotype run-model --profile`, share of the run per op kind; GFLOP/s of the "
            "matrix products, gemm + matmul):")
        add("")
        add("| model | ms/run (profiled) | " + " | ".join(kinds) + " | other | matrix products GFLOP/s |")
        add("|---|---:|" + "---:|" * (len(kinds) + 2))
        for entry in profiled:
            by_kind = profile_kinds(entry)
            total = sum(r["ms"] for r in by_kind.values())
            other = sum(r["share"] for op, r in by_kind.items() if op not in kinds)
            gflops = matrix_product_gflops(entry)
            add(f"| {entry['title']} | {total:.3g} | "
                + " | ".join(f"{100 * by_kind[op]['share']:.0f}%" if op in by_kind else "-" for op in kinds)
                + f" | {100 * other:.0f}% | " + (f"{gflops:.0f}" if gflops else "-") + " |")
        add("")
    if prof.get("available"):
        add(f"`{prof['command']}` ({builtin['title']}):")
        add("")
        add("```")
        add(prof["text"])
        add("```")
        add("")
        for entry in models.values():
            if entry is builtin or not entry.get("profile", {}).get("available"):
                continue
            add(f"<details><summary>{entry['title']}</summary>")
            add("")
            add("```")
            add(entry["profile"]["text"])
            add("```")
            add("</details>")
            add("")
    else:
        add("Not available in this build: `sonotype run-model --profile` (per node and per op kind) is not implemented "
            "yet (it answered: `" + prof.get("text", "").splitlines()[0][:200] + "`). The driver runs it for every model "
            "and puts its output here as soon as the CLI has it (Benchmarks/python/system.py `profile`).")
        add("")

    missing = []
    if "libtorch" not in peers:
        missing.append("libtorch C++ running the TorchScript file: not built here (Debian's `libtorch-dev` is not "
                       "installed; scripts/benchmark.sh installs it). TorchScript from Python above runs the same graph "
                       "executor, plus the Python call overhead (a few µs per run).")
    if not results.get("runtime"):
        missing.append("push(), front end, classify throughput and memory: skipped in this run (`--skip-system`).")
    if missing:
        add("## Not measured")
        add("")
        for item in missing:
            add(f"- {item}")
        add("")
    add("## How to run")
    add("")
    add("- `scripts/benchmark.sh` — the full run (every model, every contender, all system benchmarks); writes this file.")
    add("- `scripts/benchmark.sh --quick` — a few minutes: 4 models, 4 rounds, short system benchmarks (indicative only).")
    add("- `--models KEY,...` (keys: `--list`), `--rounds N`, `--contenders pytorch,ort,sonotype`, `--skip-system`, "
        "`--report FILE --plot FILE.png` to write elsewhere; `--help` for the rest.")
    add("- It builds into `build-bench/` (`SONOTYPE_BENCHMARKS=ON`, Release, no `-march=native`) and installs what it "
        "needs (Debian packages `libbenchmark-dev`, `libtorch-dev`, `nodejs`, `npm`; npm `onnxruntime-node` from "
        "`Training/sonotype/testing/ort/package-lock.json`). Close other work first: every contender is timed on one core, but the "
        "machine's other load still shows in the spread.")
    add("")
    add("## Method")
    add("")
    add("- Models: the built-in model (Sonotype runs the committed `Resources/models/default.safetensors`; the peers an "
        "`AudioTransformer` with its configuration and the file's weights), the seed-000 model, a CNN stem + 4-layer d128 "
        "`nn.TransformerEncoder`, and a grid of 4-layer `nn.TransformerEncoder`s (feed-forward 4 × d_model, batch first); "
        "weights from fixed seeds, one random input per model shared by all contenders (`Benchmarks/python/zoo.py`).")
    add("- Exports: our exporter (`export_model`) and `torch.onnx.export` (opset 17, with autograd on: PyTorch 1.13's "
        "fused encoder op has no ONNX form).")
    add("- Timing: inside each worker around the inference call only (C++ `steady_clock`, Python `perf_counter`, node "
        "`process.hrtime`); the machine's other load is shared by all contenders through the alternating rounds. "
        "ONNX Runtime's times include what the node binding adds per call (the output tensor handed to JavaScript, a "
        "promise): some microseconds a C++ host would not pay, a visible share only for the smallest models. PyTorch "
        "eager and TorchScript include Python's call overhead, as their users pay it. Timings are never asserted in tests.")
    add("- The CNN-stem model (`CnnStemEncoder` in zoo.py: the built-in model's 32-channel 2-d stem, 4 encoder layers "
        "d128, 4 heads, feed-forward 384) is a little larger than the issue's example (685k parameters, 98 MFLOP).")
    add("- Raw figures: `results.json` in the work folder (`build-bench/bench-work/` by default).")
    add("")
    with open(report_path, "w") as f:
        f.write("\n".join(lines))
