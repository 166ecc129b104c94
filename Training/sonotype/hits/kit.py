"""A drum kit to teach from and a pattern to try it on: `python3 -m sonotype.hits.kit FOLDER [--kit NAME]`
writes FOLDER/kick/, snare/ and hat/ (one file of 5 hits each, 0.5 s apart) and FOLDER/pattern.wav
(12 s of all three) with its hit times in FOLDER/pattern.txt, rendered by fluidsynth from one of
Debian's soundfonts (FluidR3 by default; see KITS in patterns.py)."""

import argparse
from pathlib import Path

from sonotype.hits.patterns import KITS, render_pattern


def render_kit(folder, kit="FluidR3"):
    """Writes the kit's pieces and pattern into `folder` (as the command does); returns the pattern's
    [(time in seconds, piece)]. Also the plugin tests' drum material (sonotype.testing.fixtures)."""
    folder = Path(folder)
    soundfont, channel = KITS[kit]
    for piece in ("kick", "snare", "hat"):
        (folder / piece).mkdir(parents=True, exist_ok=True)
        render_pattern(folder / piece / f"{piece}.wav", soundfont, channel, seed=11, seconds=3.0, pieces=(piece,), gaps=(0.5,))
    hits = render_pattern(folder / "pattern.wav", soundfont, channel, seed=12, seconds=12.0)
    (folder / "pattern.txt").write_text("".join(f"{t:.3f}\t{piece}\n" for t, piece in hits))
    for path in folder.rglob("*.mid"):
        path.unlink()
    return hits


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--kit", default="FluidR3", choices=sorted(KITS))
    args = parser.parse_args()
    hits = render_kit(args.folder, args.kit)
    print(f"{args.folder}: kick/, snare/, hat/ (5 hits each) and pattern.wav ({len(hits)} hits, times in pattern.txt), {args.kit}")


if __name__ == "__main__":
    main()
