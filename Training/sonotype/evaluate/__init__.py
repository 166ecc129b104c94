"""Scores a model on sound sources never used in training, through the product path (`sonotype classify`):
set A, other soundfonts and TTS voices; set B, real recordings. See sets.py for the sources and
`python3 -m sonotype.evaluate --help`."""

import os

from .score import score
from .sets import load_or_build

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEFAULT_CACHE = os.path.join(_REPO, "build", "eval-sets")
DEFAULT_REPORT = os.path.join(_REPO, "docs", "MODEL.md")


def evaluate(model="", clips_per_class=40, seed=99, cache=DEFAULT_CACHE, rebuild=False, verbose=False):
    """{"A": results, "B": results} for `model` (a model file; "" = the CLI's built-in model), building the
    sets into `cache` unless they are there with these settings. Each set's results are score.score's
    (accuracies, per class, per source, confusion, guesses per file) plus "title", "source_clips" (the
    manifest's: class, source, title and clip count per "class/source") and "recordings" (file accuracy per
    recording or pool: "class/path" -> [right, files]). A set none of whose sources is installed is left out."""
    sets = load_or_build(cache, clips_per_class, seed, rebuild, verbose)
    results = {}
    for which, (folder, manifest) in sets.items():
        if not manifest["files"]:
            continue  # none of this set's sources is installed
        results[which] = score(folder, model)
        results[which]["title"] = manifest["title"]
        results[which]["source_clips"] = manifest["sources"]
        recordings = results[which]["recordings"] = {}
        for name, guess in results[which]["guesses"].items():
            entry = manifest["files"][name]
            counts = recordings.setdefault(f"{entry['class']}/{entry['from']}", [0, 0])
            counts[0] += int(guess == entry["class"])
            counts[1] += 1
    return results
