"""k-shot teaching on the unseen-source sets: how often `sonotype learn` names a file (and a window)
right when it is taught k files of each class, against the base model's head restricted to the
classes taught.

    python3 -m sonotype.evaluate.kshot [--shots 1 3 5] [--draws 20] [--seed 0] [--report docs/TEACH.md] [--json PATH]
    python3 -m sonotype.evaluate.kshot --folder DIR ...   # your own files, named <class>_<source>_<n>.wav

For each set (A and B of docs/MODEL.md, rendered by `python3 -m sonotype.evaluate`), each k and each of
--draws random draws (seeded), k files of every class in the set are the taught examples, and every
other file is classified by three rules over the classes taught:

- restricted head: the base model's softmax over the taught classes' logits alone (`classify --classes`);
- prototypes: 20 x the cosine of the window's embedding to each class's prototype (what `learn` writes
  for new classes; here without "unknown", i.e. `--unknown-below -1`);
- combined: 4 x (the restricted head + 5 x that cosine) (what `learn` writes when every class taught is
  one of the base model's own).

A window's answer is the rule's argmax; a file's is the argmax of the mean of its windows' softmaxed
scores, the mean_ columns of `classify --summary --grid --model TAUGHT` (its label is by time held in
segments instead; the study keeps the mean rule, on the windows of the hop's grid it was measured on). An example and a prototype are the Teacher's
(Source/teach/Prototypes.h): a file's window embeddings, each L2-normalised, averaged and normalised; a
class's examples summed and normalised.

The engine runs once per set: `sonotype classify --classes <the set's classes> --embeddings` gives every
window's restricted probabilities and embedding, and plain `classify` the full model's probabilities
(for the Teacher's pooled rule below). The rules are applied here as the taught model's graph applies
them: Training/tests/test_kshot.py checks them against `sonotype learn` + `sonotype classify --model`.

Levers that leave the base model alone, reported beside the shipped rule (never chosen on set B):
- pooled: a file's answer from its pooled example (the Teacher's leave-one-out rule: the normalised
  mean embedding and the mean probabilities) instead of the mean of its windows' answers;
- loud windows: windows more than 10, 20 or 30 dB below their file's loudest left out of examples and
  files (the level chosen per k on set A);
- the combined rule's cosine weight (WEIGHTS) chosen per k on set A, or per draw by learn's own
  leave-one-file-out on the taught examples (k >= 2).
"""

import argparse
import csv
import io
import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.io import wavfile

from ..data import CLASSES
from ..engine_cli import cli_path
from ..hits.evaluate import cpu_name
from .sets import SETS, load_or_build, parse_name

RULES = ("restricted", "prototypes", "combined")
RULE_TITLES = {"restricted": "restricted head", "prototypes": "prototypes", "combined": "combined"}
PROTOTYPE_SCALE, COMBINED_SCALE, COSINE_WEIGHT = 20.0, 4.0, 5.0  # teach::Head's constants
EPSILON = 1e-12  # the taught graph's: e / sqrt(sum(e^2) + 1e-12)
WEIGHTS = (0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 20.0, 50.0)
QUIET_DB = (10.0, 20.0, 30.0)  # the loud-windows lever: windows this far below their file's loudest are left out
# The study outside the project (102 real recordings; file accuracy, %): k -> rule -> (mean, sd or None).
STUDY = {1: {"restricted": (82.9, None), "prototypes": (83.2, 6.1), "combined": (87.0, 2.7)},
         3: {"restricted": (88.9, None), "prototypes": (89.0, 3.4), "combined": (90.0, 1.5)},
         5: {"restricted": (88.6, None), "prototypes": (90.5, 2.6), "combined": (90.2, 2.3)}}
STUDY_CLASSES = ("speech", "drums", "piano", "guitar", "noise")  # the study's: voices, drums, grand piano, guitar, noises
TARGET = ("B", 3, "combined", 0.88)  # >= 88% of set B's files at k = 3
BEGIN, END = "<!-- k-shot: begin -->", "<!-- k-shot: end -->"


# --- the engine, once per set ------------------------------------------------------------------------

def classify_rows(paths, *args, model=""):
    """classify's CSV header and rows, the windows on the hop's grid (--grid: no window padded to a
    short file's end or aligned to its tail), as the study was measured."""
    command = [cli_path(), "classify", "--grid", *args, *([] if not model else ["--model", model]), *map(str, paths)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"sonotype classify failed ({result.returncode}): {result.stderr.strip()}")
    header, *rows = list(csv.reader(io.StringIO(result.stdout)))
    return header, rows


def window_levels(path, starts, window_s=1.0):
    """RMS level (dBFS) of each window [start, start + window_s) of a file."""
    rate, data = wavfile.read(path)
    x = data.astype(np.float64)
    if data.dtype == np.int16:
        x /= 32768.0
    if x.ndim > 1:
        x = x.mean(axis=1)
    levels = []
    for start in starts:
        piece = x[int(round(start * rate)):int(round((start + window_s) * rate))]
        rms = np.sqrt(np.mean(piece ** 2)) if len(piece) else 0.0
        levels.append(20 * np.log10(rms + 1e-12))
    return np.array(levels)


@dataclass
class Windows:
    """What the engine says about every window of a set's files (classes: those the set has)."""
    files: list            # base names, sorted
    paths: list
    classes: list
    labels: np.ndarray     # per file: index into classes
    origins: list          # per file: the recording or pool it was made from
    file_of: np.ndarray    # per window: index into files
    in_play: np.ndarray    # [windows, classes]: classify --classes (the restricted head)
    full: np.ndarray       # [windows, classes]: plain classify's probabilities of these classes
    embedding: np.ndarray  # [windows, dims]: classify --embeddings
    level_db: np.ndarray   # [windows]: RMS level of the window's samples
    seconds: float = 0.0   # the engine's time for the two passes


def engine_windows(folder, files, model=""):
    """Runs the engine over `files` ({name: {"class", "from"}}) in `folder`: two classify passes."""
    names = sorted(files)
    classes = sorted(dict.fromkeys(files[n]["class"] for n in names), key=lambda c: CLASSES.index(c) if c in CLASSES else len(CLASSES))
    paths = [os.path.join(folder, n) for n in names]
    started = time.perf_counter()
    header, rows = classify_rows(paths, "--classes", ",".join(classes), "--embeddings", model=model)
    full_header, full_rows = classify_rows(paths, model=model)
    seconds = time.perf_counter() - started
    if len(rows) != len(full_rows):
        raise RuntimeError("the two classify passes gave different windows")
    columns = [header.index(c) for c in classes]
    first_embedding = header.index("embedding_0")
    last_embedding = header.index("error") if "error" in header else len(header)
    full_columns = [full_header.index(c) for c in classes]
    index = {p: i for i, p in enumerate(paths)}
    file_of = np.array([index[row[0]] for row in rows])
    for row, full_row in zip(rows, full_rows):
        if row[:3] != full_row[:3]:
            raise RuntimeError(f"the two classify passes disagree on a window: {row[:3]} {full_row[:3]}")
    starts = np.array([float(row[1]) for row in rows])
    level = np.zeros(len(rows))
    for f, path in enumerate(paths):
        at = np.flatnonzero(file_of == f)
        level[at] = window_levels(path, starts[at], float(rows[at[0]][2]) - float(rows[at[0]][1]))
    return Windows(files=names, paths=paths, classes=classes,
                   labels=np.array([classes.index(files[n]["class"]) for n in names]),
                   origins=[files[n].get("from", parse_name(n)[1]) for n in names], file_of=file_of,
                   in_play=np.array([[float(row[c]) for c in columns] for row in rows]),
                   full=np.array([[float(row[c]) for c in full_columns] for row in full_rows]),
                   embedding=np.array([[float(v) for v in row[first_embedding:last_embedding]] for row in rows]),
                   level_db=level, seconds=seconds)


# --- the rules, as the taught model computes them -------------------------------------------------------

def unit(x):
    """Rows L2-normalised (a zero row stays zero, as teach's normalize leaves it)."""
    norm = np.sqrt((x * x).sum(axis=-1, keepdims=True))
    return np.where(norm > 0, x / np.where(norm > 0, norm, 1), 0.0)


def softmax(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def window_mask(w, quiet_db=None):
    """Windows kept: all, or those within quiet_db of their file's loudest (at least the loudest)."""
    if quiet_db is None:
        return np.ones(len(w.file_of), bool)
    loudest = np.full(len(w.files), -np.inf)
    np.maximum.at(loudest, w.file_of, w.level_db)
    return w.level_db >= loudest[w.file_of] - quiet_db


def examples(w, keep):
    """Per file, the Teacher's example: normalised mean of its normalised window embeddings, and the
    mean of the full model's probabilities (of the set's classes) over the same windows."""
    n = len(w.files)
    sums = np.zeros((n, w.embedding.shape[1]))
    np.add.at(sums, w.file_of[keep], unit(w.embedding[keep]))
    probabilities = np.zeros((n, len(w.classes)))
    np.add.at(probabilities, w.file_of[keep], w.full[keep])
    counts = np.bincount(w.file_of[keep], minlength=n)
    return unit(sums), probabilities / np.maximum(counts, 1)[:, None]


def prototypes(example, labels, taught, n_classes):
    """Per class, the normalised sum of its taught examples (zero for a class with none)."""
    sums = np.zeros((n_classes, example.shape[1]))
    np.add.at(sums, labels[taught], example[taught])
    return unit(sums)


def window_probabilities(rule, in_play, cosines, weight=COSINE_WEIGHT):
    """The taught model's (or classify --classes') answer for windows: [windows, classes]."""
    if rule == "restricted":
        return in_play
    if rule == "prototypes":
        return softmax(PROTOTYPE_SCALE * cosines)
    return softmax(COMBINED_SCALE * (in_play + weight * cosines))


def pooled_scores(rule, probabilities, cosines, weight=COSINE_WEIGHT):
    """teach::scores on a pooled example: the head over the taught classes is the mean probabilities
    renormalised over them."""
    total = probabilities.sum(axis=-1, keepdims=True)
    head = np.where(total > 0, probabilities / np.where(total > 0, total, 1), 0.0)
    if rule == "restricted":
        return head
    if rule == "prototypes":
        return cosines
    return head + weight * cosines


def leave_one_out_right(example, probabilities, labels, taught, n_classes, weight):
    """Taught files named right by the pooled combined rule learned without them (learn's table)."""
    right = 0
    for f in taught:
        others = taught[taught != f]
        p = prototypes(example, labels, others, n_classes)
        right += int(np.argmax(pooled_scores("combined", probabilities[f], example[f] @ p.T, weight)) == labels[f])
    return right


def draw(seed, which, k, r, labels, n_classes):
    """The taught files of draw r: k of each class, at random (seeded by set, k and r)."""
    rng = np.random.default_rng([seed, sum(map(ord, which)), k, r])  # which: the set's name
    return np.sort(np.concatenate([rng.choice(np.flatnonzero(labels == c), size=k, replace=False) for c in range(n_classes)]))


def answers(w, taught, weight=COSINE_WEIGHT, quiet_db=None, rules=RULES):
    """What each rule says about the files not taught, taught by `taught` (file indices):
    {"test": file indices, "windows": window indices (of the test files, in order),
    rule: {"windows": [windows, classes] probabilities, "files": [test files, classes] the mean of
    the windows' (as classify --summary --grid's mean_ columns), "pooled": [test files, classes] scores of the pooled example}}."""
    keep = window_mask(w, quiet_db)
    example, mean_full = examples(w, keep)
    n_classes = len(w.classes)
    proto = prototypes(example, w.labels, taught, n_classes)
    test = np.setdiff1d(np.arange(len(w.files)), taught)
    windows = np.flatnonzero(np.isin(w.file_of, test))
    e = w.embedding[windows]
    cosines = (e / np.sqrt((e * e).sum(axis=1, keepdims=True) + EPSILON)) @ proto.T
    position = {f: i for i, f in enumerate(test)}
    rows = np.array([position[f] for f in w.file_of[windows]])
    kept = keep[windows]
    counts = np.maximum(np.bincount(rows[kept], minlength=len(test)), 1)[:, None]
    out = {"test": test, "windows": windows}
    for rule in rules:
        p = window_probabilities(rule, w.in_play[windows], cosines, weight)
        sums = np.zeros((len(test), n_classes))
        np.add.at(sums, rows[kept], p[kept])
        out[rule] = {"windows": p, "files": sums / counts,
                     "pooled": pooled_scores(rule, mean_full[test], example[test] @ proto.T, weight)}
    return out


def score_draw(w, taught, weight=COSINE_WEIGHT, quiet_db=None, rules=RULES):
    """Right or wrong for every file not taught and every window of those files, per rule:
    {"files": {rule: bool[test files]}, "pooled": {...}, "windows": {...}, "test": file indices}."""
    said = answers(w, taught, weight, quiet_db, rules)
    test, truth = said["test"], w.labels[w.file_of[said["windows"]]]
    out = {"files": {}, "pooled": {}, "windows": {}, "test": test}
    for rule in rules:
        out["windows"][rule] = np.argmax(said[rule]["windows"], axis=1) == truth
        out["files"][rule] = np.argmax(said[rule]["files"], axis=1) == w.labels[test]
        out["pooled"][rule] = np.argmax(said[rule]["pooled"], axis=1) == w.labels[test]
    return out


# --- the study ----------------------------------------------------------------------------------------

@dataclass
class SetResult:
    title: str
    classes: list
    files_per_class: dict
    engine_seconds: float
    accuracy: dict = field(default_factory=dict)  # (k, variant, level, rule) -> [per draw]
    per_class: dict = field(default_factory=dict)  # (k, rule) -> {class: [recall per draw]}
    other_recordings: dict = field(default_factory=dict)  # k -> {rule: [accuracy per draw]}, files from recordings not taught
    loo_weights: dict = field(default_factory=dict)  # k -> [weight chosen per draw]
    weight_grid: dict = field(default_factory=dict)  # (k, weight) -> [combined file accuracy per draw]
    quiet_grid: dict = field(default_factory=dict)   # (k, quiet dB) -> [combined file accuracy per draw]
    quiet_windows: dict = field(default_factory=dict)  # quiet dB -> share of the windows left out


def study(windows, which, title, shots, draws, seed, weights=WEIGHTS, quiet=QUIET_DB):
    w = windows
    n_classes = len(w.classes)
    result = SetResult(title, w.classes, {c: int((w.labels == i).sum()) for i, c in enumerate(w.classes)}, w.seconds)
    example, mean_full = examples(w, window_mask(w))
    result.quiet_windows = {q: float(1 - window_mask(w, q).mean()) for q in quiet}
    for k in shots:
        if k >= min(result.files_per_class.values()):
            raise ValueError(f"k = {k}: a class of set {which} has only {min(result.files_per_class.values())} files")
        for r in range(draws):
            taught = draw(seed, which, k, r, w.labels, n_classes)
            shipped = score_draw(w, taught)
            test = shipped["test"]
            for level in ("files", "windows"):
                for rule in RULES:
                    result.accuracy.setdefault((k, "shipped", level, rule), []).append(float(shipped[level][rule].mean()))
            for rule in RULES:
                result.accuracy.setdefault((k, "pooled", "files", rule), []).append(float(shipped["pooled"][rule].mean()))
                recalls = result.per_class.setdefault((k, rule), {})
                for c, label in enumerate(w.classes):
                    recalls.setdefault(label, []).append(float(shipped["files"][rule][w.labels[test] == c].mean()))
            # Test files whose recording (or pool) gave none of their class's taught files.
            taught_origins = {(w.labels[f], w.origins[f]) for f in taught}
            other = np.array([(w.labels[f], w.origins[f]) not in taught_origins for f in test])
            entry = result.other_recordings.setdefault(k, {"files": [], **{rule: [] for rule in RULES}})
            entry["files"].append(int(other.sum()))
            for rule in RULES:
                entry[rule].append(float(shipped["files"][rule][other].mean()) if other.any() else float("nan"))
            for q in quiet:
                loud = score_draw(w, taught, quiet_db=q, rules=("combined",))
                result.quiet_grid.setdefault((k, q), []).append(float(loud["files"]["combined"].mean()))
            for weight in weights:
                scored = score_draw(w, taught, weight=weight, rules=("combined",))
                result.weight_grid.setdefault((k, weight), []).append(float(scored["files"]["combined"].mean()))
            if k >= 2:
                # learn's own leave-one-file-out table picks the weight: the most taught files right,
                # ties to the shipped 5, then to the smaller weight.
                right = [leave_one_out_right(example, mean_full, w.labels, taught, n_classes, weight) for weight in weights]
                best = max(range(len(weights)), key=lambda i: (right[i], -abs(weights[i] - COSINE_WEIGHT), -weights[i]))
                result.loo_weights.setdefault(k, []).append(weights[best])
                chosen = score_draw(w, taught, weight=weights[best], rules=("combined",))
                result.accuracy.setdefault((k, "loo weight", "files", "combined"), []).append(float(chosen["files"]["combined"].mean()))
    return result


def chosen_on(result, shots):
    """Per k, the cosine weight and the quiet-window level with the best mean combined file accuracy
    over the draws (ties: the weight nearest the shipped 5; the level that leaves out fewer windows)."""
    weights = sorted({wt for _, wt in result.weight_grid}, key=lambda wt: abs(wt - COSINE_WEIGHT))
    levels = sorted({q for _, q in result.quiet_grid}, reverse=True)
    return {k: (max(weights, key=lambda wt: round(float(np.mean(result.weight_grid[(k, wt)])), 12)),
                max(levels, key=lambda q: round(float(np.mean(result.quiet_grid[(k, q)])), 12))) for k in shots}


def run(sets, shots=(1, 3, 5), draws=20, seed=0, model="", verbose=True):
    """{set name: SetResult} for sets = {name: (folder, manifest)}; manifest["files"]: {name: {"class", "from"}}."""
    results = {}
    for which, (folder, manifest) in sets.items():
        if not manifest["files"]:
            continue
        windows = engine_windows(folder, manifest["files"], model)
        if verbose:
            print(f"set {which}: {len(windows.files)} files, {len(windows.file_of)} windows through the engine in "
                  f"{windows.seconds:.1f} s", flush=True)
        results[which] = study(windows, which, manifest.get("title", which), shots, draws, seed)
    return results


# --- the report ---------------------------------------------------------------------------------------

def mean_sd(values):
    v = np.array(values, dtype=float) * 100
    v = v[np.isfinite(v)]
    if not len(v):
        return "–"
    return f"{v.mean():.1f} ± {v.std(ddof=1):.1f}" if len(v) > 1 else f"{v.mean():.1f}"


def section(results, command, shots, draws, seed, elapsed):
    lines = [BEGIN, "", f"Written by `{command}` ({elapsed:.0f} s on an {cpu_name()}, {os.cpu_count()} cores; the figures do not "
             "depend on the CPU). Windows of 1 s every 0.25 s. Each cell: the mean ± sd over "
             f"{draws} random draws (seed {seed}) of the k files per class that are taught; every other file of "
             "the set is classified over the set's classes.", ""]
    lines += ["The engine's passes (`classify --classes ... --embeddings` and `classify`, every window of the set's files, "
              f"{os.cpu_count()} jobs): " + "; ".join(f"set {which}: {sum(r.files_per_class.values())} files in {r.engine_seconds:.1f} s"
                                                      for which, r in results.items()) + ".", ""]
    all_classes = list(dict.fromkeys(c for r in results.values() for c in r.classes))
    lines += ["Files per class:", "", "| set | " + " | ".join(all_classes) + " |", "|---" * (len(all_classes) + 1) + "|"]
    for which, r in results.items():
        lines.append(f"| {which}: {r.title} | " + " | ".join(str(r.files_per_class.get(c, "–")) for c in all_classes) + " |")
    lines += ["", "File and window accuracy, % (file: the mean of its windows' answers, as the mean_ columns of "
              "`classify --summary --grid --model TAUGHT` give it):", "",
              "| set | k | files tested | file: restricted head | file: prototypes | file: combined | "
              "window: restricted head | window: prototypes | window: combined |", "|---|---|---|---|---|---|---|---|---|"]
    for which, r in results.items():
        for k in shots:
            tested = sum(r.files_per_class.values()) - k * len(r.classes)
            cells = [mean_sd(r.accuracy[(k, "shipped", level, rule)]) for level in ("files", "windows") for rule in RULES]
            cells[2] = f"**{cells[2]}**"
            lines.append(f"| {which} | {k} | {tested} | " + " | ".join(cells) + " |")
    lines += ["", "The study outside the project (102 real recordings of 5 classes; file accuracy, %): "
              + "; ".join(f"k = {k}: " + " / ".join(f"{m:.1f}" + (f" ± {s:.1f}" if s else "") for m, s in (STUDY[k][rule] for rule in RULES))
                          for k in STUDY) + " (restricted head / prototypes / combined)."]
    which, k, rule, target = TARGET
    if which in results and k in shots:
        got = np.mean(results[which].accuracy[(k, "shipped", "files", rule)])
        gap = (got - target) * 100
        lines += ["", f"Target: >= {target * 100:.0f}% of set {which}'s files at k = {k} (combined): "
                  + ("met" if gap >= 0 else f"missed by {-gap:.1f} points") + f" ({got * 100:.1f}%)."]
    for which, r in results.items():
        lines += ["", f"Set {which}, file accuracy per class, % (mean over draws):", "",
                  "| class | files | " + " | ".join(f"k = {k}: {RULE_TITLES[rule]}" for k in shots for rule in RULES) + " |",
                  "|---|---" + "|---" * (len(shots) * len(RULES)) + "|"]
        for label in r.classes:
            cells = [f"{np.mean(r.per_class[(k, rule)][label]) * 100:.0f}" for k in shots for rule in RULES]
            lines.append(f"| {label} | {r.files_per_class[label]} | " + " | ".join(cells) + " |")
    lines += ["", "Only the files from recordings (or pools: a voice, a kit, a soundfont) that gave none of their "
              "class's taught files, file accuracy, % (files per draw, mean):", "",
              "| set | k | files | restricted head | prototypes | combined |", "|---|---|---|---|---|---|"]
    for which, r in results.items():
        for k in shots:
            entry = r.other_recordings[k]
            lines.append(f"| {which} | {k} | {np.mean(entry['files']):.0f} | " + " | ".join(mean_sd(entry[rule]) for rule in RULES) + " |")
    levers_on = "A" if "A" in results else next(iter(results))
    chosen = chosen_on(results[levers_on], shots)
    lines += ["", f"Levers that leave the base model alone, file accuracy, % (the combined rule unless named; the cosine "
              f"weight and the quiet level chosen per k on set {levers_on}, "
              + ", ".join(f"k = {k}: weight {chosen[k][0]:g}, {chosen[k][1]:g} dB" for k in shots)
              + f"; shipped: weight {COSINE_WEIGHT:g}, every window):", "",
              f"| set | k | shipped | pooled example | loud windows (set {levers_on}'s level) | weight from set {levers_on} | "
              "weight by leave-one-out | prototypes, pooled | restricted head, pooled |", "|---|---|---|---|---|---|---|---|---|"]
    for which, r in results.items():
        for k in shots:
            cells = [mean_sd(r.accuracy[(k, "shipped", "files", "combined")]),
                     mean_sd(r.accuracy[(k, "pooled", "files", "combined")]),
                     mean_sd(r.quiet_grid[(k, chosen[k][1])]),
                     mean_sd(r.weight_grid[(k, chosen[k][0])]),
                     mean_sd(r.accuracy[(k, "loo weight", "files", "combined")]) if k >= 2 else "– (k = 1)",
                     mean_sd(r.accuracy[(k, "pooled", "files", "prototypes")]),
                     mean_sd(r.accuracy[(k, "pooled", "files", "restricted")])]
            lines.append(f"| {which} | {k} | " + " | ".join(cells) + " |")
    levels = sorted({q for r in results.values() for _, q in r.quiet_grid})
    lines += ["", "Pooled example: a file's answer from its example as `learn` pools one (the normalised mean of its "
              "windows' normalised embeddings, the mean of their probabilities), instead of the mean of its windows' "
              "answers. Loud windows: a window more than the level (RMS) below its file's loudest is left out of the "
              "examples and of the file's answer; windows left out: "
              + "; ".join(f"set {which}: " + ", ".join(f"{r.quiet_windows[q] * 100:.1f}% at {q:g} dB" for q in levels)
                          for which, r in results.items()) + ". Combined rule, file accuracy per quiet level and per cosine "
              "weight, % (mean over draws):", "",
              "| set | k | " + " | ".join(f"{q:g} dB" for q in levels) + " | " + " | ".join(f"weight {wt:g}" for wt in WEIGHTS) + " |",
              "|---|---" + "|---" * (len(levels) + len(WEIGHTS)) + "|"]
    for which, r in results.items():
        for k in shots:
            lines.append(f"| {which} | {k} | " + " | ".join(f"{np.mean(r.quiet_grid[(k, q)]) * 100:.1f}" for q in levels) + " | "
                         + " | ".join(f"{np.mean(r.weight_grid[(k, wt)]) * 100:.1f}" for wt in WEIGHTS) + " |")
    lines.append("")
    for which, r in results.items():
        for k, chosen in r.loo_weights.items():
            values, counts = np.unique(chosen, return_counts=True)
            lines.append(f"- set {which}, k = {k}: leave-one-out chose the weight " + ", ".join(f"{v:g} ({c} draw{'' if c == 1 else 's'})" for v, c in zip(values, counts)))
    lines += ["", END]
    return "\n".join(line for i, line in enumerate(lines) if not (line == "" and i and lines[i - 1] == ""))


def write_report(path, text):
    old = Path(path).read_text() if os.path.isfile(path) else ""
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN)] + text + old[old.index(END) + len(END):]
    else:
        new = old.rstrip("\n") + "\n\n" + text + "\n"
    Path(path).write_text(new)


def to_json(results):
    def key(k):
        return "|".join(map(str, k)) if isinstance(k, tuple) else str(k)
    return {which: {"title": r.title, "classes": r.classes, "files_per_class": r.files_per_class,
                    "engine_seconds": r.engine_seconds,
                    "accuracy": {key(k): v for k, v in r.accuracy.items()},
                    "per_class": {key(k): v for k, v in r.per_class.items()},
                    "other_recordings": {key(k): v for k, v in r.other_recordings.items()},
                    "loo_weights": {key(k): v for k, v in r.loo_weights.items()},
                    "weight_grid": {key(k): v for k, v in r.weight_grid.items()}} for which, r in results.items()}


def folder_set(folder):
    """A folder of <class>_<source>_<n>.wav files as a set (its manifest.json when it has one)."""
    manifest_path = os.path.join(folder, "manifest.json")
    if os.path.isfile(manifest_path):
        with open(manifest_path) as f:
            return json.load(f)
    files = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".wav"):
            label, source = parse_name(name)
            files[name] = {"class": label, "source": source, "from": source}
    return {"title": os.path.basename(os.path.normpath(folder)), "files": files}


def main(argv=None):
    from . import DEFAULT_CACHE
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shots", type=int, nargs="+", default=[1, 3, 5], help="k: files taught per class")
    parser.add_argument("--draws", type=int, default=20, help="random draws of the taught files per set and k")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default="", help="base model file (default: the CLI's built-in model)")
    parser.add_argument("--folder", action="append", default=[], help="a folder of <class>_<source>_<n>.wav files instead of sets A and B")
    parser.add_argument("--clips", type=int, default=40, help="sets A and B: as python3 -m sonotype.evaluate (the cache's)")
    parser.add_argument("--sets-seed", type=int, default=99, help="sets A and B: as python3 -m sonotype.evaluate")
    parser.add_argument("--cache", default=DEFAULT_CACHE, help="folder of the rendered sets A and B")
    parser.add_argument("--subset", default=",".join(STUDY_CLASSES),
                        help="sets A and B: also each set with only these classes (default: the study's five; '' for none)")
    parser.add_argument("--report", default="", help="write the tables into this file, between the k-shot markers")
    parser.add_argument("--json", default="", help="also write every draw's numbers here")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.folder:
        sets = {}
        for folder in args.folder:
            manifest = folder_set(folder)
            sets[manifest.get("title") or folder] = (folder, manifest)
    else:
        sets = {which: entry for which, entry in load_or_build(args.cache, args.clips, args.sets_seed).items() if which in SETS}
        subset = [c for c in args.subset.split(",") if c]
        for which, (folder, manifest) in list(sets.items()):
            if subset:
                files = {n: e for n, e in manifest["files"].items() if e["class"] in subset}
                sets[f"{which}, {len(subset)} classes"] = (folder, {**manifest, "files": files,
                                                                   "title": f"{manifest['title']}: {', '.join(subset)} only"})
    results = run(sets, args.shots, args.draws, args.seed, args.model)
    command = f"python3 -m sonotype.evaluate.kshot --shots {' '.join(map(str, args.shots))} --draws {args.draws} --seed {args.seed}"
    if args.folder:
        command += "".join(f" --folder {folder}" for folder in args.folder)
    text = section(results, command, args.shots, args.draws, args.seed, time.perf_counter() - started)
    print(text)
    if args.report:
        write_report(args.report, text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(to_json(results), f, indent=1)
    return results


if __name__ == "__main__":
    main()
