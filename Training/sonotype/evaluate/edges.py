"""How close `sonotype classify --segments` puts its segment edges to where the sound changes.

Files of real recordings (set B, which training never saw) joined end to end: each file is `--parts`
recordings of different classes, each cut to 1.7-3 s at a random point, so the true change points are
known. The CLI classifies them with its defaults; the score is, per true change, the distance to the
nearest segment edge (median, 90th percentile), and the share of 10 ms frames whose segment names the
right class (frames no segment covers count as wrong).

    python3 -m sonotype.evaluate.edges [--set build/eval-sets/B] [--files 24] [--seed 7] [--cli PATH]
        [-- extra classify options]

The set is built by `python3 -m sonotype.evaluate` (or sets.build_set); silence is left out (a change
into digital silence is not a change between recordings)."""

import argparse
import csv
import glob
import io
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.io import wavfile

from ..engine_cli import cli_path

FRAME = 0.01


def recordings_by_class(folder):
    manifest_path = os.path.join(folder, "manifest.json")
    with open(manifest_path) as f:
        manifest = json.load(f)
    by_class = {}
    for name, entry in sorted(manifest["files"].items()):
        if entry["class"] != "silence" and os.path.isfile(os.path.join(folder, name)):
            by_class.setdefault(entry["class"], []).append(os.path.join(folder, name))
    return by_class


def join_files(by_class, count, parts, seed, out_folder):
    """Writes `count` joined files into out_folder; returns {path: [(start, end, class), ...]}."""
    rng = np.random.default_rng(seed)
    classes = sorted(by_class)
    truth = {}
    for index in range(count):
        chosen = rng.choice(classes, size=parts, replace=False)
        pieces, rows, at, rate = [], [], 0.0, None
        for label in chosen:
            path = by_class[label][rng.integers(len(by_class[label]))]
            rate_here, data = wavfile.read(path)
            rate = rate or rate_here
            assert rate_here == rate, "the set's files share one rate"
            data = data.astype(np.float32) / 32768.0 if data.dtype == np.int16 else data.astype(np.float32)
            length = int(min(rng.uniform(1.7, 3.0), len(data) / rate) * rate)
            start = int(rng.integers(0, len(data) - length + 1))
            pieces.append(data[start:start + length])
            rows.append((at, at + length / rate, str(label)))
            at += length / rate
        path = os.path.join(out_folder, f"joined_{index:03d}.wav")
        wavfile.write(path, rate, np.round(np.clip(np.concatenate(pieces), -1, 1) * 32767).astype(np.int16))
        truth[path] = rows
    return truth


def classify_segments(cli, folder, extra):
    result = subprocess.run([cli, "classify", "--segments", "--jobs", "2", *extra, folder], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"classify failed ({result.returncode}): {result.stderr.strip()}")
    segments = {}
    for row in csv.DictReader(io.StringIO(result.stdout)):
        if row.get("error"):
            continue
        segments.setdefault(row["file"], []).append((float(row["start_s"]), float(row["end_s"]), row["label"]))
    return segments


def score(truth, segments):
    distances, right, frames = [], 0, 0
    for path, rows in truth.items():
        found = segments.get(path, [])
        edges = sorted({t for start, end, _ in found for t in (start, end)})
        for _, change, _ in rows[:-1]:
            distances.append(min((abs(change - e) for e in edges), default=float("inf")))
        for start, end, label in rows:
            t = start + FRAME / 2
            while t < end:
                frames += 1
                right += any(s <= t < e and lab == label for s, e, lab in found)
                t += FRAME
    distances = np.array(distances)
    return {"changes": len(distances), "median_s": float(np.median(distances)), "p90_s": float(np.percentile(distances, 90)),
            "frames_right": right / max(frames, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default=os.path.join(os.path.dirname(cli_path()), "eval-sets", "B"))
    parser.add_argument("--files", type=int, default=24)
    parser.add_argument("--parts", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cli", default="")
    parser.add_argument("--keep", default="", help="write the joined files here (kept) instead of a temporary folder")
    parser.add_argument("extra", nargs="*", help="more classify options (after --)")
    args = parser.parse_args()
    cli = args.cli or cli_path()
    by_class = recordings_by_class(args.set)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or tmp
        os.makedirs(folder, exist_ok=True)
        for old in glob.glob(os.path.join(folder, "joined_*.wav")):
            os.remove(old)
        truth = join_files(by_class, args.files, args.parts, args.seed, folder)
        result = score(truth, classify_segments(cli, folder, args.extra))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
