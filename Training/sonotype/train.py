"""Trains the built-in model on data from `python3 -m sonotype.data`, writes the report and exports it.

    python3 -m sonotype.train --data build/data --out Resources/models/default.safetensors [--epochs 22]

Seeded and reproducible on CPU (Debian's python3-torch); progress bars with tqdm; the report
(docs/MODEL.md and PNG plots in docs/model/) holds training curves, accuracy on the random and
held-out splits, per-class precision/recall and confusion matrices.

`--precision auto` (the default) trains in bfloat16 mixed precision where the CPU has bfloat16
instructions (AVX512-BF16 or AMX: an epoch takes about 2 min instead of 3.2 min on the 2-core
development VM) and in float32 elsewhere; the report names the one used. Passing it explicitly selects
the same arithmetic on another machine (oneDNN's kernels differ per instruction set, so results may
still differ in rounding, and bf16 without bfloat16 instructions may be much slower than fp32).
"""

import argparse
import copy
import ctypes
import json
import os
import sys
import time

import numpy as np
import torch
from tqdm import tqdm

from . import confusion as confusions
from .data import CLASSES, FRONTEND
from .data.catalogue import expand
from .export import export_model
from .frontend import LogMelFrontend
from .models.audio_transformer import AudioTransformer

MODEL_CONFIG = dict(n_mels=64, d_model=96, n_head=4, n_layers=3, n_classes=len(CLASSES), max_tokens=64, stem="conv2d",
                    stem_channels=32, stem_activation="relu")


def load(path, without=()):
    """Features and labels of a split; `without`: source names whose windows are left out (an ablation of a
    data set generated once)."""
    data = np.load(path)
    keep = np.ones(len(data["labels"]), dtype=bool)
    if without:
        names = [str(n) for n in data["source_names"]]
        left_out = [names.index(name) for name in expand(without) if name in names]
        keep = ~np.isin(data["sources"], left_out)
    return torch.from_numpy(data["features"][keep].astype(np.float32)), torch.from_numpy(data["labels"][keep])


def spec_augment(x, generator):
    """Random time and frequency masks (SpecAugment), on a batch [B, mels, frames]."""
    x = x.clone()
    batch, mels, frames = x.shape
    for i in range(batch):
        f = int(torch.randint(0, 9, (1,), generator=generator))
        f0 = int(torch.randint(0, mels - f + 1, (1,), generator=generator))
        t = int(torch.randint(0, 16, (1,), generator=generator))
        t0 = int(torch.randint(0, frames - t + 1, (1,), generator=generator))
        fill = x[i].min()
        x[i, f0:f0 + f, :] = fill
        x[i, :, t0:t0 + t] = fill
    return x


def evaluate(model, features, labels, batch=256):
    model.eval()
    predictions = []
    with torch.no_grad():
        for start in range(0, len(features), batch):
            predictions.append(model(features[start:start + batch]).argmax(-1))
    predictions = torch.cat(predictions)
    confusion = np.zeros((len(CLASSES), len(CLASSES)), dtype=np.int64)
    for truth, guess in zip(labels.tolist(), predictions.tolist()):
        confusion[truth, guess] += 1
    return float((predictions == labels).float().mean()), confusion


def keep_freed_memory():
    """Lets glibc's malloc reuse freed memory instead of returning it to the system.

    PyTorch frees and allocates the same activation buffers every step; above malloc's mmap threshold
    each one is fresh pages from the kernel, and the page faults cost more than the arithmetic for a
    model this small (measured on the 2-core development VM with OpenBLAS: 4.8 ms per training sample
    before, 2.5 ms after).
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    libc.mallopt(m_mmap_threshold, 1 << 30)
    libc.mallopt(m_trim_threshold, 1 << 30)
    libc.mallopt(m_top_pad, 256 << 20)


def cpu_has_bf16():
    """Whether this CPU computes bfloat16 natively (AVX512-BF16 or AMX), where oneDNN's bfloat16 kernels are fast."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


PRECISIONS = ("fp32", "bf16")


def train(data, epochs, seed, batch_size=32, lr=2e-3, ema=0.0, precision="fp32", without=(), per_class=None):
    """precision "bf16": the training forward pass runs its convolutions and matrix products in bfloat16
    (torch.autocast; the weights, their gradients, the optimizer state and evaluation stay float32).
    `without`: training windows of these sources are left out (ablation); validation keeps them all.
    `per_class`: train on at most this many windows per class, a seeded random choice (equal-sized, balanced
    ablation runs)."""
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1, not {epochs}")
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    keep_freed_memory()
    torch.manual_seed(seed)
    np.random.seed(seed)
    torch.set_num_threads(os.cpu_count() or 1)
    train_x, train_y = load(os.path.join(data, "train.npz"), without)
    if per_class is not None:
        order = torch.randperm(len(train_x), generator=torch.Generator().manual_seed(seed + 1))
        keep = torch.cat([order[train_y[order] == c][:per_class] for c in range(len(CLASSES))]).sort().values
        train_x, train_y = train_x[keep], train_y[keep]
    val_x, val_y = load(os.path.join(data, "val.npz"))
    held_x, held_y = load(os.path.join(data, "heldout.npz"))
    # channels_last lets oneDNN run the convolutions about twice as fast on CPU (same outputs to float rounding).
    model = AudioTransformer(**MODEL_CONFIG).to(memory_format=torch.channels_last)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05)
    steps = epochs * ((len(train_x) + batch_size - 1) // batch_size)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=steps, pct_start=0.15)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    generator = torch.Generator().manual_seed(seed)
    # An exponential moving average of the weights (when ema > 0) is what gets evaluated and exported.
    averaged = copy.deepcopy(model) if ema > 0 else model
    history = []
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(train_x), generator=generator)
        total, correct, loss_sum, skipped = 0, 0, 0.0, 0
        bar = tqdm(range(0, len(order), batch_size), desc=f"epoch {epoch + 1}/{epochs}", leave=False, disable=not sys.stderr.isatty())
        for start in bar:
            idx = order[start:start + batch_size]
            x = spec_augment(train_x[idx], generator)
            # A little feature noise: digital silence gives exactly constant log-mel windows, whose
            # zero variance makes BatchNorm's training-mode gradients blow up.
            x = x + 0.05 * torch.randn(x.shape, generator=generator)
            y = train_y[idx]
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
                logits = model(x).float()
            loss = loss_fn(logits, y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            # Adam is scale-invariant: clip only against blow-ups, and skip a step whose gradient
            # overflowed rather than let it poison Adam's moments (counted in the log).
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e5)
            if torch.isfinite(norm):
                optimizer.step()
                if ema > 0:
                    with torch.no_grad():
                        for kept, live in zip(averaged.parameters(), model.parameters()):
                            kept.lerp_(live, 1 - ema)
                        for kept, live in zip(averaged.buffers(), model.buffers()):  # BatchNorm statistics
                            kept.copy_(live)
            else:
                skipped += 1
            scheduler.step()
            loss_sum += float(loss) * len(idx)
            correct += int((logits.argmax(-1) == y).sum())
            total += len(idx)
            bar.set_postfix(loss=f"{loss_sum / total:.3f}", acc=f"{correct / total:.3f}")
        val_acc, val_confusion = evaluate(averaged, val_x, val_y)
        held_acc, held_confusion = evaluate(averaged, held_x, held_y)
        history.append({"epoch": epoch + 1, "loss": loss_sum / total, "train_acc": correct / total, "val_acc": val_acc,
                        "heldout_acc": held_acc})
        print(f"epoch {epoch + 1:2d}: loss {loss_sum / total:.3f}  train {correct / total:.3f}  val {val_acc:.3f}  held-out {held_acc:.3f}"
              + (f"  ({skipped} steps skipped: gradient overflow)" if skipped else ""), flush=True)
    model = averaged.to(memory_format=torch.contiguous_format).eval()
    return model, history, {"val": (val_acc, val_confusion), "heldout": (held_acc, held_confusion)}, \
        {"train": len(train_x), "val": len(val_x), "heldout": len(held_x)}


def write_report(path, figures, history, results, sizes, seconds, inference_ms, weights_bytes, seed, precision, data=None,
                 extra=()):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(figures, exist_ok=True)
    epochs = [h["epoch"] for h in history]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
    left.plot(epochs, [h["loss"] for h in history])
    left.set_xlabel("epoch"), left.set_ylabel("training loss")
    for key, name in (("train_acc", "train"), ("val_acc", "random split"), ("heldout_acc", "held-out phrases/voices")):
        right.plot(epochs, [h[key] for h in history], label=name)
    right.set_xlabel("epoch"), right.set_ylabel("window accuracy"), right.legend(), right.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(figures, "training.png"), dpi=110)
    plt.close(fig)
    for split, (_, confusion) in results.items():
        confusions.draw(confusion, f"confusion matrix: {split}", os.path.join(figures, f"confusion_{split}.png"))

    relative = os.path.relpath(figures, os.path.dirname(path))
    lines = ["# The built-in model", "",
             "Written by `python3 -m sonotype.train` (do not edit by hand). The model is the seed-000 audio "
             f"transformer (`{json.dumps(MODEL_CONFIG)}`) over 1 s windows of 64 log-mel bands at 16 kHz.", "",
             "| | |", "|---|---|",
             f"| windows: train / random split / held-out | {sizes['train']} / {sizes['val']} / {sizes['heldout']} |",
             f"| window accuracy, random split | {results['val'][0] * 100:.1f}% |",
             f"| window accuracy, held-out split (other phrases and clips, speech voices kept out of training) | {results['heldout'][0] * 100:.1f}% |",
             *[f"| window accuracy, {title} | {accuracy * 100:.1f}% |" for title, accuracy in extra],
             f"| training time (2 cores) | {seconds / 60:.1f} min ({len(history)} epochs, seed {seed}, {precision}) |",
             f"| weights | {weights_bytes / 1e6:.2f} MB |",
             f"| one inference with Sonotype's engine (one core of an {cpu_name()}) | {inference_ms[0]:.2f} ms"
             + (f" (the model it replaced: {inference_ms[1]:.2f} ms, timed in the same run)" if inference_ms[1] else "") + " |", "",
             f"![training curves]({relative}/training.png)", "", "## Per class", "",
             "| class | precision (random) | recall (random) | precision (held-out) | recall (held-out) |", "|---|---|---|---|---|"]
    p_val, r_val = confusions.per_class(results["val"][1])
    p_held, r_held = confusions.per_class(results["heldout"][1])
    for i, name in enumerate(CLASSES):
        lines.append(f"| {name} | {p_val[i]:.3f} | {r_val[i]:.3f} | {p_held[i]:.3f} | {r_held[i]:.3f} |")
    lines += ["", f"![confusion, random split]({relative}/confusion_val.png)", f"![confusion, held-out]({relative}/confusion_heldout.png)", ""]
    lines += sources_section(data) + augmentation_section()
    text = "\n".join(lines) + kept_section(path)
    with open(path, "w") as f:
        f.write(text)


TRIED_BEGIN, TRIED_END = "<!-- tried: begin -->", "<!-- tried: end -->"


def kept_section(path):
    """The report's hand-written section (between the "tried" markers: the targets missed, by how much, and
    the recipes tried and not shipped), which a new report keeps; the other sections are written by the runs
    that measure them."""
    content = open(path).read() if os.path.exists(path) else ""
    if TRIED_BEGIN not in content or TRIED_END not in content:
        return ""
    return "\n" + content[content.index(TRIED_BEGIN):content.index(TRIED_END) + len(TRIED_END)] + "\n"


def sources_section(data):
    """The report's table of training sources: clips per source and class, from the generator's sources.json."""
    path = os.path.join(data, "sources.json") if data else None
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        counts = json.load(f)["clips"]["train"]
    names = sorted({name for per_class in counts.values() for name in per_class})
    lines = ["## Training sources", "", "Clips of 3 s per class and source (train and random split; the held-out split is drawn "
             "the same way with other seeds and voices). Sources: see `sonotype/data/catalogue.py`.", "",
             "| class | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for label in CLASSES:
        lines.append(f"| {label} | " + " | ".join(str(counts.get(label, {}).get(n, "")) for n in names) + " |")
    return lines + [""]


def augmentation_section():
    """The report's list of what makes the clips sound recorded, with each stage's probability per clip."""
    from .data import __main__ as generator
    from .data.augment import AUGMENT_DEFAULTS, GROUPS
    shown = {"background": generator.BACKGROUND_PROBABILITY, "noise_floor": generator.NOISE_FLOOR_PROBABILITY}
    lines = ["## Augmentation", "", "What makes every training and held-out clip sound recorded (`sonotype/data/augment.py`, whose "
             "docstring says what each stage models and in which order they run), with the share of the clips each stage is "
             "applied to (vibrato: sustained instruments only; doppler: noise only; background and noise floor: not under "
             "silence or noise):", ""]
    grouped = {stage for stages in GROUPS.values() for stage in stages}
    order = ["performance", "mix", "rooms", "coloration", "dynamics", "degradation"]
    for group in order:
        stages = GROUPS.get(group, (group,))
        parts = [f"{stage} {shown.get(stage, AUGMENT_DEFAULTS[stage]) * 100:.0f}%" for stage in stages]
        lines.append(f"- {group}: " + ", ".join(parts))
    lines.append("- level: every clip, peak -45…0 dBFS (silence: -90…-60 dBFS)")
    assert grouped | {"rooms"} >= set(AUGMENT_DEFAULTS), "a stage missing from the report"
    return lines + [""]


def engine_inference_ms(model_paths, rounds=5):
    """The engine's mean time per inference (one core) of each model: the best of `rounds` benchmarks of 200
    runs, the models taking turns, so that a busy moment (right after training, the machine is still
    settling) does not stand as the result and every model meets the same machine."""
    import subprocess
    import tempfile

    from .engine_cli import cli_path
    best = {path: float("inf") for path in model_paths}
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "x.npy"), np.zeros((1, 64, 101), dtype=np.float32))
        for _ in range(rounds):
            for path in model_paths:
                result = subprocess.run([cli_path(), "run-model", path, "--input", os.path.join(tmp, "x.npy"), "--output",
                                         os.path.join(tmp, "y.npy"), "--benchmark", "200"], capture_output=True, text=True, check=True)
                best[path] = min(best[path], float(result.stderr.split("mean")[1].split("ms")[0]))
    return best


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "unknown CPU")
    except OSError:
        return "unknown CPU"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="build/data")
    parser.add_argument("--out", default="Resources/models/default.safetensors")
    parser.add_argument("--report", default="docs/MODEL.md")
    parser.add_argument("--epochs", type=int, default=22)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ema", type=float, default=0.0, help="decay of an average of the weights to export (0: off)")
    parser.add_argument("--without", action="append", default=[], metavar="NAME",
                        help="leave a source's training windows out (ablation; names as in `python3 -m sonotype.data --help`)")
    parser.add_argument("--precision", choices=("auto",) + PRECISIONS, default="auto",
                        help="training arithmetic; auto: bf16 where the CPU has bfloat16 instructions, else fp32")
    parser.add_argument("--state", default="build/training-state.pt",
                        help="where the trained weights, curves and scores are kept (for --report-only)")
    parser.add_argument("--also-score", action="append", default=[], metavar="TITLE=NPZ",
                        help="also report the window accuracy on another split of generated data (e.g. one made without augmentation)")
    parser.add_argument("--report-only", action="store_true",
                        help="do not train: export, time and report the model kept in --state")
    args = parser.parse_args()
    precision = args.precision if args.precision != "auto" else ("bf16" if cpu_has_bf16() else "fp32")
    model = AudioTransformer(**MODEL_CONFIG)
    if args.report_only:
        state = torch.load(args.state)
        model.load_state_dict(state["weights"])
        model.eval()
    else:
        print(f"training in {precision}", flush=True)
        started = time.time()
        model, history, results, sizes = train(args.data, args.epochs, args.seed, ema=args.ema, precision=precision,
                                              without=tuple(args.without))
        os.makedirs(os.path.dirname(args.state) or ".", exist_ok=True)
        state = {"weights": model.state_dict(), "history": history, "results": results, "sizes": sizes,
                 "seconds": time.time() - started, "seed": args.seed, "precision": precision}
        torch.save(state, args.state)
    history, results, sizes, seconds = state["history"], state["results"], state["sizes"], state["seconds"]
    extra = []
    for item in args.also_score:
        title, _, path = item.partition("=")
        accuracy, _ = evaluate(model, *load(path))
        extra.append((title, accuracy))
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        # The model this one replaces, timed in the same run: the new one must be no slower.
        previous = os.path.join(tmp, "previous.safetensors") if os.path.exists(args.out) else None
        if previous:
            shutil.copyfile(args.out, previous)
        # The embedding: the CLS token after the last LayerNorm, as the classifier head reads it (flattened).
        summary = export_model(model, torch.zeros(1, 64, 101), args.out, labels=CLASSES, frontend=LogMelFrontend(**FRONTEND),
                               embedding=model.class_mlp[0])
        times = engine_inference_ms([args.out] + ([previous] if previous else []))
    weights_bytes = summary["num_parameters"] * 4
    inference_ms = (times[args.out], times.get(previous))
    write_report(args.report, os.path.join(os.path.dirname(args.report), "model"), history, results, sizes, seconds, inference_ms,
                 weights_bytes, state["seed"], state["precision"], args.data, extra)
    print(f"random split {results['val'][0]:.3f}, held-out {results['heldout'][0]:.3f}, {seconds / 60:.1f} min, "
          f"{inference_ms[0]:.2f} ms per inference; wrote {args.out} and {args.report}")


if __name__ == "__main__":
    main()
