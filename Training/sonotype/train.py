"""Trains the built-in model on data from `python3 -m sonotype.data`, writes the report and exports it.

    python3 -m sonotype.data --out build/data --store clips --clips 4800     # about 28 min on 2 cores
    python3 -m sonotype.train --data build/data --out Resources/models/default.safetensors

The defaults are the shipped recipe: 1 s windows cut anew each epoch from the data's 3 s clips (two per
clip), mixup 0.4 between the windows of a batch, label smoothing 0.05, SpecAugment masks, 16 epochs of
AdamW under a one-cycle schedule (docs/MODEL.md says why each). Data made without `--store clips` trains
on its ready-cut 1 s windows.

Seeded and reproducible on CPU (Debian's python3-torch); progress bars with tqdm; the report
(docs/MODEL.md and PNG plots in docs/model/) holds training curves, accuracy on the random and
held-out splits, per-class precision/recall and confusion matrices.

`--precision auto` (the default) trains in bfloat16 mixed precision where the CPU has bfloat16
instructions (AVX512-BF16 or AMX: an epoch of 77,748 windows took about 2 min instead of 3.2 min on a
2-core Intel Xeon VM; the shipped recipe's 103,674 take 3.2 min in bf16 on a 2-core AMD EPYC VM) and in
float32 elsewhere; the report names the one used. Passing it explicitly selects
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
from .calibration import calibration_error
from .data import CLASSES, FRONTEND
from .data.catalogue import expand
from .export import export_model
from .frontend import LogMelFrontend
from .models.audio_cnn import AudioCNN
from .models.audio_transformer import AudioTransformer
from .windows import WindowFile, open_split, window_frames

MODEL_CONFIG = dict(n_mels=64, d_model=96, n_head=4, n_layers=3, n_classes=len(CLASSES), max_tokens=64, stem="conv2d",
                    stem_channels=32, stem_activation="relu")

# The convolutional alternative (models/audio_cnn.py): PANNs-style blocks, 258k parameters.
CNN_CONFIG = {"family": "cnn", "channels": [24, 48, 96, 192]}


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


def logits_of(model, features, batch=256):
    model.eval()
    with torch.no_grad():
        return torch.cat([model(features[start:start + batch]).float() for start in range(0, len(features), batch)])


def evaluate(model, features, labels, batch=256):
    predictions = logits_of(model, features, batch).argmax(-1)
    confusion = np.zeros((len(CLASSES), len(CLASSES)), dtype=np.int64)
    for truth, guess in zip(labels.tolist(), predictions.tolist()):
        confusion[truth, guess] += 1
    return float((predictions == labels).float().mean()), confusion


def expected_calibration_error(logits, labels, temperature=1.0, bins=15):
    """ECE of softmax(logits / temperature) against the labels (calibration.calibration_error)."""
    confidence, predicted = torch.softmax(logits / temperature, dim=-1).max(dim=-1)
    return calibration_error(confidence.numpy(), (predicted == labels).numpy(), bins)


def fit_temperature(logits, labels):
    """The temperature T minimising the negative log-likelihood of softmax(logits / T) (a search over
    log T, fine enough for two decimals)."""
    best, best_loss = 1.0, float("inf")
    for t in np.exp(np.linspace(np.log(0.25), np.log(8.0), 301)):
        loss = float(torch.nn.functional.cross_entropy(logits / float(t), labels))
        if loss < best_loss:
            best, best_loss = float(t), loss
    return best


def per_source_accuracy(logits, labels, sources, names):
    """{source name: (right, windows)} over the windows of each source."""
    right = (logits.argmax(-1) == labels)
    out = {}
    for index in sorted(set(sources.tolist())):
        inside = sources == index
        out[names[index]] = (int(right[inside].sum()), int(inside.sum()))
    return out


def build_model(config):
    """The network a model configuration describes: AudioCNN for family "cnn", else AudioTransformer."""
    if config.get("family") == "cnn":
        if config.get("band_norm"):
            raise ValueError("band normalisation is a setting of the transformer (models/audio_transformer.py), not of the CNN")
        return AudioCNN(**{k: v for k, v in config.items() if k in AudioCNN.SETTINGS})
    return AudioTransformer(**{k: v for k, v in config.items() if k != "family"})


def model_config(window_frames, **overrides):
    """MODEL_CONFIG for windows of `window_frames`, with `overrides` (band_norm, widths, ...)."""
    config = dict(MODEL_CONFIG, **overrides)
    config["max_tokens"] = max(config["max_tokens"], (window_frames + 1) // 2)
    return config


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


def train(data, epochs, seed, batch_size=32, lr=2e-3, ema=0.0, precision="fp32", without=(), per_class=None, config=None,
          window_seconds=None, mixup=0.0, validate_on=(), crops_per_clip=3):
    """precision "bf16": the training forward pass runs its convolutions and matrix products in bfloat16
    (torch.autocast; the weights, their gradients, the optimizer state and evaluation stay float32).
    `without`: training windows of these sources are left out (ablation); validation keeps them all.
    `per_class`: train on at most this many windows per class, a seeded random choice (equal-sized, balanced
    ablation runs).
    `window_seconds`: windows of this length, cut anew each epoch (`crops_per_clip` per clip) from data made
    with --store clips (None: the data's ready-cut 1 s windows). `config`: the model's (default
    MODEL_CONFIG, sized for the windows). `mixup`: the Beta(a, a) parameter of mixup between the windows of
    a batch (0: none). `validate_on`: sources left out of training and scored apart ("loso": leave one
    source out), from the windows of the train and random splits."""
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1, not {epochs}")
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    keep_freed_memory()
    torch.manual_seed(seed)
    np.random.seed(seed)
    torch.set_num_threads(os.cpu_count() or 1)
    frames = None if window_seconds is None else window_frames(window_seconds)
    train_set = open_split(data, "train", frames, tuple(without) + tuple(validate_on))
    crops = np.random.default_rng(seed + 2)

    def fixed(split, per_clip, draw_seed, **kw):
        windows = open_split(data, split, frames, **kw)
        x, y, src = windows.gather(windows.draw(np.random.default_rng(draw_seed), per_clip))
        return x, y, src, windows.source_names

    val = fixed("val", 2, seed + 1000)
    held = fixed("heldout", 1, seed + 1001)
    loso = None
    if validate_on:
        parts = [fixed(split, 1, seed + 1002 + k, only=tuple(validate_on)) for k, split in enumerate(("train", "val"))]
        loso = tuple(torch.cat([p[i] for p in parts]) for i in range(3)) + (parts[0][3],)

    def epoch_pairs():
        pairs = train_set.draw(crops, crops_per_clip)
        if per_class is not None:
            labels = train_set.labels[torch.as_tensor(pairs[:, 0])]
            order = torch.randperm(len(pairs), generator=torch.Generator().manual_seed(seed + 1))
            keep = torch.cat([order[labels[order] == c][:per_class] for c in range(len(CLASSES))]).sort().values
            pairs = pairs[keep.numpy()]
        return pairs

    # The ready-cut windows are one fixed set (drawn once: the subset per_class keeps stays the same).
    fixed_pairs = epoch_pairs() if isinstance(train_set, WindowFile) else None
    config = config or model_config(train_set.window)
    # channels_last lets oneDNN run the convolutions about twice as fast on CPU (same outputs to float rounding).
    model = build_model(config).to(memory_format=torch.channels_last)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05)
    per_epoch = len(fixed_pairs) if fixed_pairs is not None else len(epoch_pairs())
    crops = np.random.default_rng(seed + 2)  # (the draw above only measured an epoch)
    steps = epochs * ((per_epoch + batch_size - 1) // batch_size)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=steps, pct_start=0.15)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    generator = torch.Generator().manual_seed(seed)
    mixing = torch.distributions.Beta(mixup, mixup) if mixup > 0 else None
    # An exponential moving average of the weights (when ema > 0) is what gets evaluated and exported.
    averaged = copy.deepcopy(model) if ema > 0 else model
    history = []
    for epoch in range(epochs):
        model.train()
        pairs = fixed_pairs if fixed_pairs is not None else epoch_pairs()
        order = torch.randperm(len(pairs), generator=generator)
        total, correct, loss_sum, skipped = 0, 0, 0.0, 0
        bar = tqdm(range(0, len(order), batch_size), desc=f"epoch {epoch + 1}/{epochs}", leave=False, disable=not sys.stderr.isatty())
        for start in bar:
            idx = order[start:start + batch_size]
            x, y, _ = train_set.gather(pairs[idx.numpy()])
            x = spec_augment(x, generator)
            # A little feature noise: digital silence gives exactly constant log-mel windows, whose
            # zero variance makes BatchNorm's training-mode gradients blow up.
            x = x + 0.05 * torch.randn(x.shape, generator=generator)
            if mixing is not None:
                share = float(mixing.sample())
                partner = torch.randperm(len(idx), generator=generator)
                x = share * x + (1 - share) * x[partner]
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
                logits = model(x).float()
            loss = loss_fn(logits, y) if mixing is None else share * loss_fn(logits, y) + (1 - share) * loss_fn(logits, y[partner])
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
        val_acc, val_confusion = evaluate(averaged, val[0], val[1])
        held_acc, held_confusion = evaluate(averaged, held[0], held[1])
        entry = {"epoch": epoch + 1, "loss": loss_sum / total, "train_acc": correct / total, "val_acc": val_acc, "heldout_acc": held_acc}
        if loso is not None:
            entry["loso_acc"] = evaluate(averaged, loso[0], loso[1])[0]
        history.append(entry)
        print(f"epoch {epoch + 1:2d}: loss {loss_sum / total:.3f}  train {correct / total:.3f}  val {val_acc:.3f}  held-out {held_acc:.3f}"
              + (f"  left-out sources {entry['loso_acc']:.3f}" if loso is not None else "")
              + (f"  ({skipped} steps skipped: gradient overflow)" if skipped else ""), flush=True)
    model = averaged.to(memory_format=torch.contiguous_format).eval()
    results = {"val": (val_acc, val_confusion), "heldout": (held_acc, held_confusion)}
    # Calibration: the temperature that makes the random split's confidences honest, and what it does on
    # the held-out split (and the left-out sources).
    val_logits, held_logits = logits_of(model, val[0]), logits_of(model, held[0])
    temperature = fit_temperature(val_logits, val[1])
    calibration = {"temperature": temperature,
                   "heldout_ece": expected_calibration_error(held_logits, held[1]),
                   "heldout_ece_calibrated": expected_calibration_error(held_logits, held[1], temperature)}
    results["per_source"] = {"val": per_source_accuracy(val_logits, val[1], val[2], val[3]),
                             "heldout": per_source_accuracy(held_logits, held[1], held[2], held[3])}
    if loso is not None:
        loso_logits = logits_of(model, loso[0])
        results["loso"] = (history[-1]["loso_acc"], evaluate(model, loso[0], loso[1])[1])
        results["per_source"]["loso"] = per_source_accuracy(loso_logits, loso[1], loso[2], loso[3])
        calibration["loso_ece"] = expected_calibration_error(loso_logits, loso[1])
        calibration["loso_ece_calibrated"] = expected_calibration_error(loso_logits, loso[1], temperature)
        # A temperature fitted on sources the model never heard (half of the left-out windows), scored on
        # the other half: what confidences on a new source need (the random split's makes them worse).
        fit, check = slice(0, None, 2), slice(1, None, 2)
        calibration["temperature_left_out"] = fit_temperature(loso_logits[fit], loso[1][fit])
        calibration["left_out_half_ece"] = expected_calibration_error(loso_logits[check], loso[1][check])
        calibration["left_out_half_ece_calibrated"] = expected_calibration_error(loso_logits[check], loso[1][check],
                                                                                 calibration["temperature_left_out"])
    results["calibration"] = calibration
    return model, history, results, {"train": per_epoch, "val": len(val[1]), "heldout": len(held[1])}


def calibration_rows(calibration):
    """The report's rows on calibration (when the run measured it)."""
    if not calibration:
        return []
    return [f"| expected calibration error, held-out split | {calibration['heldout_ece']:.3f} (with the temperature "
            f"{calibration['temperature']:.2f} fitted on the random split: {calibration['heldout_ece_calibrated']:.3f}) |"]


def write_report(path, figures, history, results, sizes, seconds, inference_ms, weights_bytes, seed, precision, data=None,
                 extra=(), config=None, window_seconds=None):
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
    for split in ("val", "heldout", "loso"):  # the results' (accuracy, confusion) pairs
        if split not in results:
            continue
        confusion = results[split][1]
        confusions.draw(confusion, f"confusion matrix: {split}", os.path.join(figures, f"confusion_{split}.png"))

    relative = os.path.relpath(figures, os.path.dirname(path))
    lines = ["# The built-in model", "",
             "Written by `python3 -m sonotype.train` (do not edit by hand). The model is "
             + ("a PANNs-style CNN (models/audio_cnn.py" if (config or MODEL_CONFIG).get("family") == "cnn" else "the seed-000 audio "
                "transformer (models/audio_transformer.py")
             + f", `{json.dumps(config or MODEL_CONFIG)}`) over {window_seconds or 1:g} s windows of 64 log-mel bands at 16 kHz.", "",
             "| | |", "|---|---|",
             f"| windows: train / random split / held-out | {sizes['train']} / {sizes['val']} / {sizes['heldout']} |",
             f"| window accuracy, random split | {results['val'][0] * 100:.1f}% |",
             f"| window accuracy, held-out split (other phrases and clips, speech voices kept out of training) | {results['heldout'][0] * 100:.1f}% |",
             *[f"| window accuracy, {title} | {accuracy * 100:.1f}% |" for title, accuracy in extra],
             f"| training time (2 cores) | {seconds / 60:.1f} min ({len(history)} epochs, seed {seed}, {precision}) |",
             f"| weights | {weights_bytes / 1e6:.2f} MB |",
             *calibration_rows(results.get("calibration")),
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


# Sections of the report that other runs write (between "<!-- NAME: begin -->" and "<!-- NAME: end -->")
# and that a new report keeps, in this order: the ablation suites' tables (their own runs, not this model's)
# and the hand-written "tried" section (the targets missed, by how much, and the recipes tried and not
# shipped). The unseen-source section belongs to the model it scored: `python3 -m sonotype.evaluate`
# writes it anew for the new one.
KEPT_SECTIONS = ("ablation", "design", "loso", "tried")


def kept_section(path):
    """The sections of KEPT_SECTIONS the report at `path` has, complete (both markers), in that order."""
    content = open(path).read() if os.path.exists(path) else ""
    kept = ""
    for name in KEPT_SECTIONS:
        begin, end = f"<!-- {name}: begin -->", f"<!-- {name}: end -->"
        if begin in content and end in content[content.index(begin):]:
            start = content.index(begin)
            kept += "\n" + content[start:content.index(end, start) + len(end)] + "\n"
    return kept


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
    settling) does not stand as the result and every model meets the same machine. Each model gets a
    window of its own front end's length."""
    import subprocess
    import tempfile

    from .engine_cli import cli_path
    from .export.safetensors_io import read_safetensors
    best = {path: float("inf") for path in model_paths}
    with tempfile.TemporaryDirectory() as tmp:
        inputs = {}
        for k, path in enumerate(model_paths):
            frontend = json.loads(read_safetensors(path)[1].get("frontend", "{}"))
            frames = 1 + frontend.get("window_samples", FRONTEND["window_samples"]) // frontend.get("hop_length", FRONTEND["hop_length"])
            inputs[path] = os.path.join(tmp, f"x{k}.npy")
            np.save(inputs[path], np.zeros((1, FRONTEND["n_mels"], frames), dtype=np.float32))
        for _ in range(rounds):
            for path in model_paths:
                result = subprocess.run([cli_path(), "run-model", path, "--input", inputs[path], "--output",
                                         os.path.join(tmp, "y.npy"), "--benchmark", "200"], capture_output=True, text=True, check=True)
                best[path] = min(best[path], float(result.stderr.split("mean")[1].split("ms")[0]))
    return best


def fold_temperature(model, temperature):
    """Divides the model's logits by `temperature`, in its last Linear layer's weights and bias."""
    with torch.no_grad():
        model.class_mlp[-1].weight /= temperature
        model.class_mlp[-1].bias /= temperature


def frontend_for(window_seconds=None):
    """FRONTEND, with windows of `window_seconds` (None: its 1 s)."""
    settings = dict(FRONTEND)
    if window_seconds is not None:
        settings["window_samples"] = int(round(window_seconds * FRONTEND["sample_rate"]))
    return settings


def export_builtin(model, path, window_seconds=None):
    """Exports a model of the built-in family with its front end (windows of `window_seconds`) and its
    embedding: the CLS token after the last LayerNorm, as the classifier head reads it (flattened)."""
    frontend = frontend_for(window_seconds)
    frames = 1 + frontend["window_samples"] // frontend["hop_length"]
    return export_model(model, torch.zeros(1, FRONTEND["n_mels"], frames), path, labels=CLASSES, frontend=LogMelFrontend(**frontend),
                        embedding=model.class_mlp[0])


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
    parser.add_argument("--epochs", type=int, default=16)
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
    parser.add_argument("--window-seconds", type=float, default=1.0,
                        help="windows of this length (up to 3 s), cut each epoch from data made with --store clips "
                             "(data made without it: its ready-cut 1 s windows)")
    parser.add_argument("--band-norm", default=None, metavar="MODE",
                        help="mean, meanvar or tilt<N>: the window's coloration taken out before the network (models/audio_transformer.py)")
    parser.add_argument("--network", choices=("transformer", "cnn"), default="transformer",
                        help="the built-in transformer (MODEL_CONFIG) or the convolutional network of models/audio_cnn.py "
                             "(CNN_CONFIG)")
    parser.add_argument("--mixup", type=float, default=0.4, help="mixup's Beta(a, a) parameter (0: off)")
    parser.add_argument("--crops-per-clip", type=int, default=2, metavar="N",
                        help="with --window-seconds: windows cut anew from each training clip every epoch")
    parser.add_argument("--validate-on", action="append", default=[], metavar="NAME",
                        help="leave a source out of training and score it apart (leave-one-source-out validation)")
    parser.add_argument("--calibrate", action="store_true",
                        help="divide the exported logits by the temperature fitted on the --validate-on sources (else the random split)")
    args = parser.parse_args()
    precision = args.precision if args.precision != "auto" else ("bf16" if cpu_has_bf16() else "fp32")
    if args.report_only:
        state = torch.load(args.state)
        model = build_model(state.get("config", MODEL_CONFIG))
        model.load_state_dict(state["weights"])
        model.eval()
    else:
        print(f"training in {precision}", flush=True)
        started = time.time()
        config = model_config(window_frames(args.window_seconds), band_norm=args.band_norm,
                              **(CNN_CONFIG if args.network == "cnn" else {}))
        model, history, results, sizes = train(args.data, args.epochs, args.seed, ema=args.ema, precision=precision,
                                              without=tuple(args.without), config=config, window_seconds=args.window_seconds,
                                              mixup=args.mixup, validate_on=tuple(args.validate_on),
                                              crops_per_clip=args.crops_per_clip)
        os.makedirs(os.path.dirname(args.state) or ".", exist_ok=True)
        state = {"weights": model.state_dict(), "history": history, "results": results, "sizes": sizes,
                 "seconds": time.time() - started, "seed": args.seed, "precision": precision, "config": config,
                 "window_seconds": args.window_seconds}
        torch.save(state, args.state)
    if args.calibrate:
        calibration = state["results"]["calibration"]
        fold_temperature(model, calibration.get("temperature_left_out", calibration["temperature"]))
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
        summary = export_builtin(model, args.out, state.get("window_seconds"))
        times = engine_inference_ms([args.out] + ([previous] if previous else []))
    weights_bytes = summary["num_parameters"] * 4
    inference_ms = (times[args.out], times.get(previous))
    write_report(args.report, os.path.join(os.path.dirname(args.report), "model"), history, results, sizes, seconds, inference_ms,
                 weights_bytes, state["seed"], state["precision"], args.data, extra, state.get("config"), state.get("window_seconds"))
    print(f"random split {results['val'][0]:.3f}, held-out {results['heldout'][0]:.3f}, {seconds / 60:.1f} min, "
          f"{inference_ms[0]:.2f} ms per inference; wrote {args.out} and {args.report}")


if __name__ == "__main__":
    main()
