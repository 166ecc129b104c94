"""Onset detection and taught drum pieces on every drum kit Debian's soundfonts hold.

`python3 -m sonotype.hits.evaluate [--patterns N] [CLASSIFY_ARGS...]` renders N random kick/snare/hat
patterns per kit at known hit times (125-500 ms apart, velocities 60-120), runs `sonotype classify
--onsets` on each (with any extra arguments, e.g. --onset-threshold 1.6) and prints, per kit, the
F-measure at +-25 ms, precision, recall and the timing error of the matched onsets.

`python3 -m sonotype.hits.evaluate --teach [--onset-window S ...]` teaches kick, snare and hat from
5 hits of each of one kit (`sonotype learn --hits`), then classifies a pattern of every kit with it
(`classify --onsets --model`): the per-hit accuracy for each pair of kits, taught on the rows, tested
on the columns (the diagonal: another pattern of the kit taught). docs/TEACH.md holds the last
reports."""

import argparse
import platform
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from sonotype.engine_cli import cli_path
from sonotype.hits.patterns import KITS, f_measure, render_pattern


def cpu_name():
    """The model name, with the family and model numbers (a VM may give only "AMD EPYC")."""
    fields = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    if "model name" not in fields:
        return platform.processor()
    return f"{fields['model name']} (family {fields.get('cpu family', '?')}, model {fields.get('model', '?')})"


def per_hit_accuracy(truth, found, tolerance=0.025):
    """Of the true hits an onset was found for (within tolerance), the share labelled with their piece."""
    used, right, total = set(), 0, 0
    for t, piece in truth:
        candidates = [(abs(f - t), i) for i, (f, _) in enumerate(found) if i not in used and abs(f - t) <= tolerance]
        if candidates:
            _, best = min(candidates)
            used.add(best)
            total += 1
            right += found[best][1] == piece
    return right / max(total, 1)


def teach(windows, base=""):
    print(f"CPU: {cpu_name()}; kick, snare and hat taught from 5 hits each of the kit on the row (sonotype learn --hits), "
          "per-hit accuracy on a pattern of the kit in the column")
    names = list(KITS)
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        truths = {}
        for k, (name, (soundfont, channel)) in enumerate(KITS.items()):
            for piece in ("kick", "snare", "hat"):
                render_pattern(folder / f"{k}-{piece}.wav", soundfont, channel, seed=10 + k, seconds=3.0, pieces=(piece,), gaps=(0.5,))
            truths[k] = render_pattern(folder / f"{k}-mix.wav", soundfont, channel, seed=20 + k, seconds=12.0)
        for window in windows:
            print(f"\n--onset-window {window}:\n")
            print("| taught from \\ tested on | " + " | ".join(names) + " |")
            print("|---" * (len(names) + 1) + "|")
            across = []
            for t in range(len(names)):
                model = folder / f"taught-{t}.safetensors"
                subprocess.run([cli_path(), "learn", "--hits", "--onset-window", str(window), *(["--model", base] if base else []), *sum(
                    (["--class", piece, str(folder / f"{t}-{piece}.wav")] for piece in ("kick", "snare", "hat")), []), "-o", str(model)],
                    check=True, capture_output=True)
                row = []
                for s in range(len(names)):
                    out = subprocess.run([cli_path(), "classify", "--onsets", "--onset-window", str(window), "--model", str(model),
                                          str(folder / f"{s}-mix.wav")], capture_output=True, text=True, check=True)
                    found = [(float(line.split(",")[1]), line.split(",")[2]) for line in out.stdout.splitlines()[1:]]
                    accuracy = per_hit_accuracy(truths[s], found)
                    row.append(f"{accuracy:.2f}" if s != t else f"({accuracy:.2f})")
                    if s != t:
                        across.append((names[t], names[s], accuracy))
                print(f"| {names[t]} | " + " | ".join(row) + " |")
            # (OPL3 FM, FM synthesis, is the kit least like the others: its snare is brighter than its hat)
            print(f"\nmean over pairs of different kits: {np.mean([a for _, _, a in across]):.3f}; "
                  f"over those without OPL3 FM: {np.mean([a for t, s, a in across if 'OPL3 FM' not in (t, s)]):.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patterns", type=int, default=5)
    parser.add_argument("--teach", action="store_true", help="taught drum pieces across kits instead of onsets")
    parser.add_argument("--onset-window", type=float, nargs="*", default=[0.12], help="--teach: the clip lengths to compare")
    parser.add_argument("--base", default="", help="--teach: the model to teach (default: the built-in model)")
    args, classify_args = parser.parse_known_args()
    if args.teach:
        teach(args.onset_window, args.base)
        return
    print(f"CPU: {cpu_name()}; sonotype classify --onsets {' '.join(classify_args)}".rstrip())
    print("| kit | hits | F-measure | precision | recall | timing error, mean ± sd |")
    print("|---|---|---|---|---|---|")
    scores = []
    with tempfile.TemporaryDirectory() as folder:
        for name, (soundfont, channel) in KITS.items():
            truth_all, results = 0, []
            for seed in range(args.patterns):
                path = Path(folder) / f"pattern-{seed}.wav"
                truth = [t for t, _ in render_pattern(path, soundfont, channel, seed=100 + seed)]
                out = subprocess.run([cli_path(), "classify", "--onsets", *classify_args, str(path)], capture_output=True, text=True, check=True)
                found = [float(line.split(",")[1]) for line in out.stdout.splitlines()[1:]]
                results.append(f_measure(truth, found))
                truth_all += len(truth)
            f = np.mean([r[0] for r in results])
            errors = np.concatenate([r[3] for r in results]) * 1000.0
            scores.append(f)
            print(f"| {name} | {truth_all} | {f:.3f} | {np.mean([r[1] for r in results]):.3f} | {np.mean([r[2] for r in results]):.3f} | "
                  f"{errors.mean():+.1f} ± {errors.std():.1f} ms |")
    print(f"| all kits | | {np.mean(scores):.3f} | | | |")


if __name__ == "__main__":
    main()
