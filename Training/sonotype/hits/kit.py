"""A drum kit to teach from and a pattern to try it on: `python3 -m sonotype.hits.kit FOLDER [--kit NAME]`
writes FOLDER/kick/, snare/ and hat/ (one file of 5 hits each, 0.5 s apart) and FOLDER/pattern.wav
(12 s of all three) with its hit times in FOLDER/pattern.txt, rendered by fluidsynth from one of
Debian's soundfonts (FluidR3 by default; see KITS in patterns.py)."""

import argparse
from pathlib import Path

from sonotype.hits.patterns import KITS, render_pattern


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--kit", default="FluidR3", choices=sorted(KITS))
    args = parser.parse_args()
    soundfont, channel = KITS[args.kit]
    for piece in ("kick", "snare", "hat"):
        (args.folder / piece).mkdir(parents=True, exist_ok=True)
        render_pattern(args.folder / piece / f"{piece}.wav", soundfont, channel, seed=11, seconds=3.0, pieces=(piece,), gaps=(0.5,))
    hits = render_pattern(args.folder / "pattern.wav", soundfont, channel, seed=12, seconds=12.0)
    (args.folder / "pattern.txt").write_text("".join(f"{t:.3f}\t{piece}\n" for t, piece in hits))
    for path in args.folder.rglob("*.mid"):
        path.unlink()
    print(f"{args.folder}: kick/, snare/, hat/ (5 hits each) and pattern.wav ({len(hits)} hits, times in pattern.txt), {args.kit}")


if __name__ == "__main__":
    main()
