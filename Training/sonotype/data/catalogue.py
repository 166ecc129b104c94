"""Which sources make each class's training clips, and in what share.

Every class draws from several sources of different kinds (sample sets, synthesis engines, recordings,
code), so that the model learns the instrument rather than one sample set's timbre. A source is named so
an ablation can leave it out (`python3 -m sonotype.data --without NAME`)."""

from dataclasses import dataclass

from . import CLASSES
from . import noises, samplers, synths
from .sources import SOUNDFONTS, render_instrument_clips, speech_clips

INSTRUMENTS = ["drums", "piano", "organ", "guitar", "bass", "strings", "brass", "woodwind", "synth"]


@dataclass(frozen=True)
class Source:
    name: str
    weight: float
    kind: str  # "soundfont", "sampler", "synth", "noise", "silence", "speech", "sfx"


# Weights before normalising per class: for a melodic class the soundfonts (FluidR3, its mono edition,
# sf_GMbank, and OPL3 for organ and synth) come to about 55-60%, the code-written voices about 30%, the
# packaged recordings the rest; drums take the AVL kits in place of the voices.
SOUNDFONT_WEIGHTS = {"fluidr3": 0.18, "sf-gmbank": 0.22, "fluidr3-mono": 0.06, "opl3": 0.08, "avl-black-pearl": 0.10,
                     "avl-red-zeppelin": 0.10}
SYNTH_WEIGHT = 0.25
SAMPLER_WEIGHT = 0.12
SAMPLER_FULL_WEIGHT_FILES = 8  # a class with fewer packaged recordings gets a share in proportion


def sources_for(label, without=()):
    """The sources of class `label` with their weights (summing to 1), leaving out the names in `without`."""
    if label == "silence":
        found = [Source("silence", 1.0, "silence")]
    elif label == "noise":
        found = [Source("noises", 0.75, "noise"), Source("sfx", 0.15, "sfx"), Source("lmms", 0.10, "sampler")]
    elif label == "speech":
        found = [Source("espeak-ng", 0.7, "speech"), Source("espeak", 0.3, "speech")]
    else:
        found = [Source(name, weight, "soundfont") for name, weight in SOUNDFONT_WEIGHTS.items()
                 if label in SOUNDFONTS[name].families()]
        if label in synths.FAMILIES:
            found.append(Source("synths", SYNTH_WEIGHT, "synth"))
        if label in samplers.FILES:
            files = len(samplers.recordings(label))
            found.append(Source("lmms", SAMPLER_WEIGHT * min(1.0, files / SAMPLER_FULL_WEIGHT_FILES), "sampler"))
    found = [s for s in found if s.name not in without and s.kind not in without]
    if not found:
        raise ValueError(f"every source of {label} is left out")
    total = sum(s.weight for s in found)
    return [Source(s.name, s.weight / total, s.kind) for s in found]


def allocate(count, sources):
    """Clip counts per source: `count` split by weight, rounding so the counts add up to `count`."""
    exact = [count * s.weight for s in sources]
    counts = [int(e) for e in exact]
    for i in sorted(range(len(sources)), key=lambda i: counts[i] - exact[i])[: count - sum(counts)]:
        counts[i] += 1
    return counts


def render(rng, label, source, count, seconds, voices):
    """`count` raw clips of class `label` from `source`. `voices`: {engine: (voices, variants, sentences)}
    for speech."""
    if source.kind == "silence":
        return [noises.silence_clip(rng, seconds) for _ in range(count)]
    if source.kind == "noise":
        return [noises.noise_clip(rng, seconds) for _ in range(count)]
    if source.kind == "sfx":
        return render_instrument_clips(rng, "noise", count, seconds, soundfont=SOUNDFONTS["sf-gmbank"])
    if source.kind == "speech":
        names, variants, sentences = voices[source.name]
        return speech_clips(rng, count, seconds, names, variants, engine=source.name, sentences=sentences)
    if source.kind == "synth":
        return [synths.synth_clip(rng, label, seconds) for _ in range(count)]
    if source.kind == "sampler":
        return samplers.sampler_clips(rng, label, count, seconds)
    return render_instrument_clips(rng, label, count, seconds, soundfont=SOUNDFONTS[source.name])


def names():
    """Every source and kind name an ablation can leave out."""
    found = set()
    for label in CLASSES:
        for s in sources_for(label):
            found |= {s.name, s.kind}
    return sorted(found)


def expand(without):
    """Source names meant by `without` (source names, or kinds standing for all their sources)."""
    unknown = [w for w in without if w not in names()]
    if unknown:
        raise ValueError(f"unknown source {', '.join(unknown)} (known: {', '.join(names())})")
    found = set()
    for label in CLASSES:
        found |= {s.name for s in sources_for(label) if s.name in without or s.kind in without}
    return sorted(found)
