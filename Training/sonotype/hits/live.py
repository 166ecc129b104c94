"""The live per-hit mode measured as the issue's drummer would: a kit taught from sox-made one-shots
(`sonotype learn --hits`), then loops of the same kind of pieces at mixed levels and gaps, classified
hit by hit by `sonotype classify --onsets --response live` (the notes the plugin's Live mode plays)
and, beside it, by the exact mode (`--response exact`, the 1 s model on each hit's clip).

`python3 -m sonotype.hits.live [--seeds 101 102 ...] [--teach-seed 7] [--loops 808 low]` prints, per
loop kind and mode, the F-measure at +-25 ms, the median and 90th percentile timing error of the
matched hits, and how many matched hits were named as the piece they are. The kit: for each piece
(kick, snare, hat, and with --loops low also tom and bass) a file of 5 one-shots made by
sonotype.hits.onsets.sox_piece from --teach-seed (never a loop's seed), -15...-3 dBFS, 0.5 s apart.
The loops: sonotype.hits.onsets.render_loop (room noise at -60 dBFS under them)."""

import argparse
import random
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from scipy.io import wavfile

from sonotype.engine_cli import cli_path
from sonotype.hits.evaluate import cpu_name
from sonotype.hits.onsets import RATE, render_loop, sox_piece
from sonotype.hits.patterns import f_measure

PIECES = {"808": ("kick", "snare", "hat"), "low": ("kick", "tom", "bass", "snare", "hat")}


def teach_kit(cli, folder, pieces, seed, hits=5):
    """Writes one file of `hits` one-shots per piece and teaches them; returns the taught file and learn's output."""
    rng = random.Random(seed)
    classes = []
    for piece in pieces:
        total = np.zeros(int(RATE * 0.5 * (hits + 1)), dtype=np.float64)
        for k in range(hits):
            shot = sox_piece(folder, piece, rng, rng.uniform(-15.0, -3.0))
            at = int(RATE * (0.1 + 0.5 * k))
            end = min(len(total), at + len(shot))
            total[at:end] += shot[:end - at]
        path = Path(folder) / f"teach-{piece}.wav"
        wavfile.write(path, RATE, total.astype(np.float32))
        classes += ["--class", piece, str(path)]
    model = Path(folder) / "kit.safetensors"
    out = subprocess.run([cli, "learn", "--hits", *classes, "-o", str(model)], capture_output=True, text=True, check=True)
    return model, out.stdout


def hits_of(cli, model, path, response):
    out = subprocess.run([cli, "classify", "--onsets", "--response", response, "--model", str(model), str(path)], capture_output=True, text=True,
                         check=True)
    rows = [line.split(",") for line in out.stdout.splitlines()[1:]]
    return [(float(r[1]), r[2]) for r in rows]


def score(truth, pieces, found):
    """F, timing errors of the matches, and how many matches carry the true piece's name."""
    f, _, _, errors = f_measure(truth, [t for t, _ in found])
    named, matched, used = 0, 0, set()
    for t, piece in zip(truth, pieces):
        candidates = [(abs(x - t), i) for i, (x, _) in enumerate(found) if i not in used and abs(x - t) <= 0.025]
        if candidates:
            _, best = min(candidates)
            used.add(best)
            matched += 1
            named += found[best][1] == piece
    return f, errors, named, matched


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[101, 102, 103, 104, 105])
    parser.add_argument("--teach-seed", type=int, default=7)
    parser.add_argument("--loops", nargs="+", default=["808"], choices=sorted(PIECES))
    parser.add_argument("--cli", default="")
    parser.add_argument("--keep", default="")
    args = parser.parse_args()
    cli = args.cli or cli_path()
    print(f"CPU: {cpu_name()}; loop seeds {' '.join(map(str, args.seeds))}, kit seed {args.teach_seed}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        print("| loop | mode | hits | F-measure | median \\|error\\| | 90th pct \\|error\\| | named right |")
        print("|---|---|---|---|---|---|---|")
        for kind in args.loops:
            model, learned = teach_kit(cli, folder, PIECES[kind], args.teach_seed)
            print("".join(f"    {line}\n" for line in learned.splitlines() if line.startswith(("right", "Live"))), end="")
            rows = {"live": [], "exact": []}
            for seed in args.seeds:
                path, truth, pieces = render_loop(kind, seed, folder, [])
                for mode in rows:
                    rows[mode].append((len(truth), *score(truth, pieces, hits_of(cli, model, path, mode))))
            for mode, results in rows.items():
                errors = np.abs(np.concatenate([r[2] for r in results])) * 1000.0
                named, matched = sum(r[3] for r in results), sum(r[4] for r in results)
                print(f"| {kind} | {mode} | {sum(r[0] for r in results)} | {np.mean([r[1] for r in results]):.3f} | {np.median(errors):.1f} ms | "
                      f"{np.percentile(errors, 90):.1f} ms | {named}/{matched} ({named / max(matched, 1):.1%}) |")


if __name__ == "__main__":
    main()
