"""What each training source and the augmentation are worth: short training runs on the generated data
with one group of sources left out (or on data generated without augmentation), each scored like the
shipped model on the random split, the held-out split and the unseen-source sets of sonotype.evaluate.

    python3 -m sonotype.ablation --data build/data [--plain-data build/data-plain] [--epochs 8] [--per-class 600]

`--suite design` measures the model's design instead (context length, band normalisation, mixup), on
data made with `--store clips`: each variant is trained without the sources of LEFT_OUT and chosen by
its accuracy on them (leave sources out: how it does on a source it never heard); the unseen sets are
scored and reported, never used to choose. Its table goes between the design markers.

`--suite loso` trains the shipped recipe (1 s windows, mixup 0.4) at the design suite's scale once per
fold of LOSO_FOLDS, each fold's sources left out of training: its accuracy per class on them, and how
honest its confidences are there (calibration error, and a temperature fitted on half of the left-out
windows checked on the other half). Its table goes between the loso markers.

`--plain-data`: data generated with the same seed but every augmentation stage off except the level
(e.g. `python3 -m sonotype.data --out build/data-plain --clips 260 --augment-without performance --augment-without mix
--augment-without rooms --augment-without coloration --augment-without dynamics --augment-without degradation`).
Writes its table into docs/MODEL.md between the ablation markers.
"""

import argparse
import glob
import json
import os
import tempfile
import time

import torch

from .data import CLASSES, FRONTEND
from .digest import files_digest
from .evaluate import evaluate as evaluate_unseen
from .export import export_model
from .frontend import LogMelFrontend
from .train import CNN_CONFIG, PRECISIONS, cpu_has_bf16, engine_inference_ms, export_builtin, model_config, train
from .windows import window_frames

BEGIN, END = "<!-- ablation: begin -->", "<!-- ablation: end -->"
DESIGN_BEGIN, DESIGN_END = "<!-- design: begin -->", "<!-- design: end -->"
LOSO_BEGIN, LOSO_END = "<!-- loso: begin -->", "<!-- loso: end -->"
OTHER_SOUNDFONTS = ("sf-gmbank", "fluidr3-mono", "opl3", "avl-black-pearl", "avl-red-zeppelin")
# (title, which data, sources left out)
VARIANTS = [
    ("everything", "data", ()),
    ("without the code-written voices", "data", ("synths",)),
    ("without the packaged recordings (LMMS, sound-icons)", "data", ("lmms",)),
    ("without the soundfonts other than FluidR3", "data", OTHER_SOUNDFONTS),
    ("FluidR3, espeak-ng and the noise generators only", "data", OTHER_SOUNDFONTS + ("synths", "lmms", "espeak", "sfx")),
    ("without augmentation (level only)", "plain", ()),
]


# The design suite's left-out sources: a whole soundfont and its players (sf_GMbank), the packaged
# recordings (LMMS), one speech engine (espeak): a source of each kind the unseen sets bring.
LEFT_OUT = ("sf-gmbank", "lmms", "espeak")
# (title, window seconds, band normalisation, mixup[, the network's other settings[, windows per class, times --per-class]])
DESIGNS = [
    ("1 s windows (today's)", 1.0, None, 0.0),
    ("1 s, band mean removed", 1.0, "mean", 0.0),
    ("1 s, band mean and spread removed", 1.0, "meanvar", 0.0),
    ("2 s windows", 2.0, None, 0.0),
    ("3 s windows", 3.0, None, 0.0),
    ("1 s, mixup 0.4", 1.0, None, 0.4),
    ("1 s, level and tilt removed (2 components)", 1.0, "tilt2", 0.0),
    ("1 s, broad coloration removed (4 components)", 1.0, "tilt4", 0.0),
    ("1 s, wider (d 128, 4 layers, stem 48)", 1.0, None, 0.0, {"d_model": 128, "n_layers": 4, "stem_channels": 48}),
    ("1 s, 3 times the windows (the 3 s row's audio and compute)", 1.0, None, 0.0, {}, 3),
    ("1 s, 3 times the windows, mixup 0.4", 1.0, None, 0.4, {}, 3),
    ("1 s, 3 times the windows, wider (d 128, 4 layers, stem 48)", 1.0, None, 0.0, {"d_model": 128, "n_layers": 4, "stem_channels": 48}, 3),
    # An all-convolutional network of the family with the record on real recordings (models/audio_cnn.py).
    ("1 s, a CNN (PANNs-style, 24-192 channels)", 1.0, None, 0.0, CNN_CONFIG),
    ("1 s, 3 times the windows, mixup 0.4, a CNN (PANNs-style, 24-192 channels)", 1.0, None, 0.4, CNN_CONFIG, 3),
]


# The leave-one-source-out suite's folds, besides the design suite's own (LEFT_OUT): (title, sources).
LOSO_FOLDS = [
    ("FluidR3 and its mono edition", ("fluidr3", "fluidr3-mono")),
    ("the code-written voices", ("synths",)),
    ("OPL3 FM and the AVL drum kits", ("opl3", "avl-black-pearl", "avl-red-zeppelin")),
    ("the noise generators", ("noises",)),
]
# The shipped recipe at the design suite's scale: 1 s windows, mixup 0.4, three times --per-class.
LOSO_RECIPE = {"window_seconds": 1.0, "mixup": 0.4, "more": 3}


def generator_version():
    """The digest of the data generator's code (sonotype/data): a row run on data from another version says so."""
    return files_digest(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "*.py")))


def run_variant(data, without, epochs, per_class, seed, precision):
    started = time.time()
    model, history, results, sizes = train(data, epochs, seed, precision=precision, without=without, per_class=per_class)
    frames = window_frames()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.safetensors")
        export_model(model, torch.zeros(1, FRONTEND["n_mels"], frames), path, labels=CLASSES, frontend=LogMelFrontend(**FRONTEND))
        unseen = evaluate_unseen(path)
    return {"val": results["val"][0], "heldout": results["heldout"][0], "train_windows": sizes["train"],
            "unseen": {k: {"file_accuracy": v["file_accuracy"], "window_accuracy": v["window_accuracy"], "title": v["title"]}
                       for k, v in unseen.items()},
            "minutes": (time.time() - started) / 60, "generator": generator_version()}


def run_design(data, window_seconds, band_norm, mixup, network, epochs, per_class, seed, precision, crops_per_clip=3):
    frames = window_frames(window_seconds)
    started = time.time()
    model, history, results, sizes = train(data, epochs, seed, precision=precision, per_class=per_class,
                                           config=model_config(frames, band_norm=band_norm, **network), window_seconds=window_seconds,
                                           mixup=mixup, validate_on=LEFT_OUT, crops_per_clip=crops_per_clip)
    minutes = (time.time() - started) / 60
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.safetensors")
        export_builtin(model, path, window_seconds)
        unseen = evaluate_unseen(path)
        # Inference against the shipped model, timed in the same run (the engine, one core).
        shipped = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "Resources", "models",
                               "default.safetensors")
        times = engine_inference_ms([path, shipped], rounds=3)
    return {"val": results["val"][0], "heldout": results["heldout"][0], "loso": results["loso"][0], "train_windows": sizes["train"],
            "parameters": sum(p.numel() for p in model.parameters()), "inference_ms": times[path], "shipped_ms": times[shipped],
            "loso_sources": {k: v for k, v in results["per_source"]["loso"].items()}, "calibration": results["calibration"],
            "train_minutes": minutes,
            "unseen": {k: {"file_accuracy": v["file_accuracy"], "window_accuracy": v["window_accuracy"], "title": v["title"]}
                       for k, v in unseen.items()}}


def run_fold(data, left_out, epochs, per_class, seed, precision):
    """The shipped recipe trained without the sources `left_out`, scored on them."""
    frames = window_frames(LOSO_RECIPE["window_seconds"])
    started = time.time()
    model, history, results, sizes = train(data, epochs, seed, precision=precision, per_class=per_class, config=model_config(frames),
                                           window_seconds=LOSO_RECIPE["window_seconds"], mixup=LOSO_RECIPE["mixup"],
                                           validate_on=left_out, crops_per_clip=3 * LOSO_RECIPE["more"])
    accuracy, confusion = results["loso"][0], results["loso"][1].tolist()
    return {"loso": accuracy, "heldout": results["heldout"][0], "train_windows": sizes["train"],
            "classes": {label: [confusion[i][i], sum(confusion[i])] for i, label in enumerate(CLASSES) if sum(confusion[i])},
            "calibration": results["calibration"], "train_minutes": (time.time() - started) / 60}


def loso_section(rows, epochs, per_class, seed, precision):
    lines = [LOSO_BEGIN, "## Leave one source out", "",
             f"Written by `python3 -m sonotype.ablation --suite loso`: the shipped recipe (1 s windows, mixup "
             f"{LOSO_RECIPE['mixup']}) trained for {epochs} epochs on {per_class * LOSO_RECIPE['more']} windows per class cut from the "
             f"clips of the training data (seed {seed}, {precision}), once per fold, without the fold's sources, and scored on "
             "their windows (train and random split): accuracy, per class (right / windows), and calibration there: the "
             "expected calibration error as the model comes, and on half of the windows with the temperature fitted on the "
             "other half.", "",
             "| left out | windows | accuracy | per class | calibration error | with a left-out temperature | held-out |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        r = row["result"]
        c = r["calibration"]
        per = ", ".join(f"{label} {right}/{n}" for label, (right, n) in r["classes"].items())
        windows = sum(n for _, n in r["classes"].values())
        lines.append(f"| {row['title']} | {windows} | {r['loso'] * 100:.1f}% | {per} | {c['loso_ece']:.3f} | "
                     f"{c['left_out_half_ece']:.3f} → {c['left_out_half_ece_calibrated']:.3f} (T {c['temperature_left_out']:.2f}) | "
                     f"{r['heldout'] * 100:.1f}% |")
    lines += ["", LOSO_END]
    return "\n".join(lines)


def design_section(rows, epochs, per_class, seed, precision):
    sets = sorted({k for row in rows for k in row["result"]["unseen"]})
    lines = [DESIGN_BEGIN, "## Design: context, band normalisation, mixup, network", "",
             f"Written by `python3 -m sonotype.ablation --suite design`: each row trains the model for {epochs} epochs on "
             f"{per_class} windows per class (unless it says otherwise) cut from the clips of the training data (seed {seed}, "
             f"{precision}), without the "
             f"sources {', '.join(LEFT_OUT)}, and is chosen by its window accuracy on those sources (\"left out\"). The "
             "unseen columns (file accuracy on the sets above) are reported, not used to choose. ECE: expected calibration "
             "error on the left-out sources, before and after the temperature fitted on the random split.", "",
             "| design | windows | left out | held-out | " + " | ".join(f"unseen {k}" for k in sets) + " | ECE (T) | training | inference |",
             "|---" * (7 + len(sets)) + "|"]
    for row in rows:
        r = row["result"]
        c = r["calibration"]
        lines.append(f"| {row['title']} | {r['train_windows']} | {r['loso'] * 100:.1f}% | {r['heldout'] * 100:.1f}% | "
                     + " | ".join(f"{r['unseen'][k]['file_accuracy'] * 100:.1f}%" if k in r["unseen"] else "–" for k in sets)
                     + f" | {c['loso_ece']:.3f} → {c['loso_ece_calibrated']:.3f} (T {c['temperature']:.2f}) | {r['train_minutes']:.1f} min | "
                     + (f"{r['inference_ms'] / r['shipped_ms']:.2f}x |" if "inference_ms" in r else "– |"))
    lines += ["", DESIGN_END]
    return "\n".join(lines)


def section(rows, epochs, per_class, seed, precision):
    sets = sorted({k for row in rows for k in row["result"]["unseen"]})
    titles = {k: next(r["result"]["unseen"][k]["title"] for r in rows if k in r["result"]["unseen"]) for k in sets}
    lines = [BEGIN, "## Ablation", "",
             f"Written by `python3 -m sonotype.ablation`: each row trains the same model for {epochs} epochs on "
             f"{per_class} windows per class drawn from the training data (seed {seed}, {precision}) with one group of sources "
             "left out, or from data generated without augmentation, and scores it like the shipped model. Every row has "
             "the same amount and balance of data: what changes is where it comes from. The unseen columns are reported, "
             "not used to choose: the shipped sources, weights and augmentation were set before these sets were scored, "
             "and none was changed to raise them (a change that tried to, and lost, is under \"Tried, not shipped\"). "
             "The unseen columns are file "
             "accuracy on the sets of the section above (" + "; ".join(f"{k}: {titles[k]}" for k in sets) + ").", "",
             "| training data | windows | random split | held-out | " + " | ".join(f"unseen {k}" for k in sets) + " |",
             "|---" * (4 + len(sets)) + "|"]
    current = generator_version()
    for row in rows:
        r = row["result"]
        mark = "" if r.get("generator") == current else " †"
        lines.append(f"| {row['title']}{mark} | {r['train_windows']} | {r['val'] * 100:.1f}% | {r['heldout'] * 100:.1f}% | "
                     + " | ".join(f"{r['unseen'][k]['file_accuracy'] * 100:.1f}%" if k in r["unseen"] else "–" for k in sets) + " |")
    lines += ["", "The random split and held-out columns of the no-augmentation row are measured on its own (clean) data."]
    if any(row["result"].get("generator") != current for row in rows):
        lines += ["", "† Run on training data made by an earlier version of the data generator (`sonotype/data`) than the "
                  "one that made this model's data."]
    lines += ["", END]
    return "\n".join(lines)


def write_section(report, text, begin=BEGIN, end=END):
    content = open(report).read() if os.path.exists(report) else ""
    if begin in content:
        content = content[:content.index(begin)] + text + content[content.index(end) + len(end):]
    else:
        content = content.rstrip("\n") + "\n\n" + text + "\n"
    with open(report, "w") as f:
        f.write(content)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="build/data")
    parser.add_argument("--plain-data", default="", help="data generated without augmentation (the last row; skipped if absent)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--per-class", type=int, default=600, help="training windows per class in every run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--precision", choices=("auto",) + PRECISIONS, default="auto")
    parser.add_argument("--only", action="append", default=[], help="run only the variants whose title contains this")
    parser.add_argument("--results", default="build/ablation.json", help="results so far (a rerun skips the variants in it)")
    parser.add_argument("--report", default="docs/MODEL.md")
    parser.add_argument("--suite", choices=("sources", "design", "loso"), default="sources")
    args = parser.parse_args()
    precision = args.precision if args.precision != "auto" else ("bf16" if cpu_has_bf16() else "fp32")
    if args.suite == "design":
        return run_designs(args, precision)
    if args.suite == "loso":
        return run_folds(args, precision)
    done = json.load(open(args.results)) if os.path.exists(args.results) else {}
    rows = []
    for title, which, without in VARIANTS:
        data = args.data if which == "data" else args.plain_data
        if not data or not os.path.exists(os.path.join(data, "train.npz")) or (args.only and not any(o in title for o in args.only)):
            continue
        settings = {"data": os.path.abspath(data), "epochs": args.epochs, "per_class": args.per_class, "seed": args.seed,
                    "precision": precision, "without": list(without)}
        rows.append(cached_run(done, args.results, title, settings,
                               lambda: run_variant(data, without, args.epochs, args.per_class, args.seed, precision)))
    text = section(rows, args.epochs, args.per_class, args.seed, precision)
    write_section(args.report, text)
    print(text)


def cached_run(done, results, title, settings, run):
    """A suite's row: `done[title]` when it was run with these settings, else `run()`'s result, kept in
    `done` and saved to the file `results` at once (a suite stopped half-way keeps its finished rows)."""
    if done.get(title, {}).get("settings") != settings:
        done[title] = run()
        done[title]["settings"] = settings
        os.makedirs(os.path.dirname(results) or ".", exist_ok=True)
        with open(results, "w") as f:
            json.dump(done, f, indent=1)
    print(title, json.dumps(done[title]), flush=True)
    return {"title": title, "result": done[title]}


def run_designs(args, precision):
    results = args.results if args.results != "build/ablation.json" else "build/design.json"
    done = json.load(open(results)) if os.path.exists(results) else {}
    rows = []
    for title, window_seconds, band_norm, mixup, *rest in DESIGNS:
        network = rest[0] if rest else {}
        more = rest[1] if len(rest) > 1 else 1
        per_class = args.per_class * more
        if args.only and not any(o in title for o in args.only):
            continue
        settings = {"data": os.path.abspath(args.data), "epochs": args.epochs, "per_class": per_class, "seed": args.seed,
                    "precision": precision, "window_seconds": window_seconds, "band_norm": band_norm, "mixup": mixup,
                    "left_out": list(LEFT_OUT), "generator": generator_version(), **({"network": network} if network else {})}
        rows.append(cached_run(done, results, title, settings,
                               lambda: run_design(args.data, window_seconds, band_norm, mixup, network, args.epochs, per_class,
                                                  args.seed, precision, crops_per_clip=3 * more)))
    text = design_section(rows, args.epochs, args.per_class, args.seed, precision)
    write_section(args.report, text, DESIGN_BEGIN, DESIGN_END)
    print(text)


def run_folds(args, precision):
    results = args.results if args.results != "build/ablation.json" else "build/loso.json"
    done = json.load(open(results)) if os.path.exists(results) else {}
    rows = []
    for title, left_out in LOSO_FOLDS + [(f"{', '.join(LEFT_OUT)} (the design suite's)", LEFT_OUT)]:
        if args.only and not any(o in title for o in args.only):
            continue
        settings = {"data": os.path.abspath(args.data), "epochs": args.epochs, "per_class": args.per_class, "seed": args.seed,
                    "precision": precision, "left_out": list(left_out), "recipe": LOSO_RECIPE, "generator": generator_version()}
        rows.append(cached_run(done, results, title, settings,
                               lambda: run_fold(args.data, left_out, args.epochs, args.per_class * LOSO_RECIPE["more"], args.seed,
                                                precision)))
    text = loso_section(rows, args.epochs, args.per_class, args.seed, precision)
    write_section(args.report, text, LOSO_BEGIN, LOSO_END)
    print(text)


if __name__ == "__main__":
    main()
