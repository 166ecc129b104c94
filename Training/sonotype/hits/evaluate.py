"""Onset detection on every drum kit Debian's soundfonts hold: `python3 -m sonotype.hits.evaluate
[--patterns N] [CLASSIFY_ARGS...]` renders N random kick/snare/hat patterns per kit at known hit times
(125-500 ms apart, velocities 60-120), runs `sonotype classify --onsets` on each (with any extra
arguments, e.g. --onset-threshold 1.6) and prints, per kit, the F-measure at +-25 ms, precision,
recall and the timing error of the matched onsets. docs/TEACH.md holds its last report."""

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patterns", type=int, default=5)
    args, classify_args = parser.parse_known_args()
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
