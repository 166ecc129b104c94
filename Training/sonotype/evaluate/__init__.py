"""Scores a model on sound sources never used in training, through the product path (`sonotype classify`):
set A, other soundfonts and TTS voices; set B, real recordings. See sets.py for the sources and
`python3 -m sonotype.evaluate --help`."""

import os

from .score import score
from .sets import load_or_build

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEFAULT_CACHE = os.path.join(_REPO, "build", "eval-sets")


def evaluate(model="", clips_per_class=40, seed=99, cache=DEFAULT_CACHE, rebuild=False, verbose=False):
    """{"A": results, "B": results} (see score.score) for `model` (a model file; "" = the CLI's built-in
    model), building the sets into `cache` unless they are there with these settings. Also returns the
    manifests: (results, manifests)."""
    sets = load_or_build(cache, clips_per_class, seed, rebuild, verbose)
    results = {which: score(folder, model) for which, (folder, _) in sets.items()}
    return results, {which: manifest for which, (_, manifest) in sets.items()}
