"""Scoring a folder of labelled clips through the product path: `sonotype classify` (C++ front end and
engine), windows (1 s every 0.25 s, on the hop's grid: --grid) and files (the mean rule: the argmax of
the mean of a file's windows, classify --summary's mean_ columns; its label, by time held in segments,
is not what this scores, so that the figures keep their meaning)."""

import csv
import io
import os
import subprocess

import numpy as np

from ..calibration import calibration_error
from ..confusion import per_class
from ..data import CLASSES
from ..engine_cli import cli_path
from .sets import parse_name


def classify(folder, model="", summary=False):
    """classify's rows on the hop's grid; summary: [file, label by the mean rule, its mean probability]."""
    command = [cli_path(), "classify", "--grid", folder] + (["--model", model] if model else []) + (["--summary"] if summary else [])
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"sonotype classify failed ({result.returncode}): {result.stderr.strip()}")
    header, *rows = list(csv.reader(io.StringIO(result.stdout)))
    if not summary:
        return rows
    means = [(i, name[len("mean_"):]) for i, name in enumerate(header) if name.startswith("mean_")]
    answers = []
    for row in rows:
        i, label = max(means, key=lambda m: float(row[m[0]]))
        answers.append([row[0], label, row[i]])
    return answers


def score(folder, model=""):
    """Results of one set: accuracy, per class, per source, confusion (file level: rows truth, columns guess)."""
    windows = classify(folder, model)
    files = classify(folder, model, summary=True)
    index = {label: i for i, label in enumerate(CLASSES)}
    window_counts = {label: [0, 0] for label in CLASSES}
    for row in windows:
        truth, _ = parse_name(row[0])
        window_counts[truth][0] += int(row[3] == truth)
        window_counts[truth][1] += 1
    confusion = np.zeros((len(CLASSES), len(CLASSES)), dtype=np.int64)
    sources, guesses, confidence, right = {}, {}, [], []
    for row in files:
        truth, source = parse_name(row[0])
        confusion[index[truth], index[row[1]]] += 1
        entry = sources.setdefault(f"{truth}/{source}", [0, 0])
        entry[0] += int(row[1] == truth)
        entry[1] += 1
        guesses[os.path.basename(row[0])] = row[1]
        confidence.append(float(row[2]))
        right.append(row[1] == truth)
    precision, recall = per_class(confusion)
    present = confusion.sum(axis=1) > 0
    n_windows = sum(n for _, n in window_counts.values())
    return {
        "files": int(confusion.sum()),
        "file_accuracy": float(np.trace(confusion) / max(1, confusion.sum())),
        "window_accuracy": float(sum(c for c, _ in window_counts.values()) / max(1, n_windows)),
        # Calibration of the files' labels: expected calibration error, and the mean confidence of the
        # files named right and of those named wrong.
        "file_ece": calibration_error(confidence, right),
        "confidence_right": float(np.mean([c for c, r in zip(confidence, right) if r])) if any(right) else None,
        "confidence_wrong": float(np.mean([c for c, r in zip(confidence, right) if not r])) if not all(right) else None,
        "classes": {label: {"files": int(confusion[i].sum()), "file_correct": int(confusion[i, i]),
                            "file_accuracy": float(recall[i]) if present[i] else None,
                            "precision": float(precision[i]) if confusion[:, i].sum() else None,
                            "recall": float(recall[i]) if present[i] else None,
                            "windows": window_counts[label][1],
                            "window_accuracy": window_counts[label][0] / window_counts[label][1] if window_counts[label][1] else None}
                    for i, label in enumerate(CLASSES)},
        "sources": {key: {"correct": c, "files": n} for key, (c, n) in sorted(sources.items())},
        "confusion": confusion.tolist(),
        "guesses": guesses,
    }
