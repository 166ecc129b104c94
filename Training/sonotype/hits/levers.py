"""What a taught drum piece is told by, across kits: the levers measured for `sonotype learn --hits`.

`python3 -m sonotype.hits.levers` renders the material of `evaluate --teach` (kick, snare and hat, 5
hits each of every kit to teach; the same 12 s pattern per kit, and two more patterns), finds the
hits with `sonotype classify --onsets`, and takes each hit's clip as the engine does: the samples
from 10 ms before the onset, resampled and zero-padded to the model's window by the engine itself
(`sonotype features`), so that the built-in model in PyTorch (sonotype.models.builtin) sees the
engine's input. It then classifies every kit's hits by what 5 hits of another kit teach, for each
representation (the class token after each transformer layer, the mean of the token sequence after
the stem or a layer over a span of tokens, the log-mel) and rule, and prints, per lever, the mean
share of hits named right over the 30 pairs of different kits: on evaluate --teach's pattern, and on
the two other patterns. The last table chooses the lever with each kit left out in turn (on the other
five kits' pairs, the two other patterns) and scores it on the pairs with the kit left out
(evaluate's pattern). Last, where each piece's energy lies in each kit (its spectral centroid).
docs/TEACH.md holds the last report.
"""

import argparse
import itertools
import json
import math
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import torch
from scipy.io import wavfile

from sonotype.engine_cli import cli_path
from sonotype.hits.evaluate import cpu_name
from sonotype.hits.patterns import KITS, render_pattern
from sonotype.models.builtin import BUILTIN_MODEL, builtin_model

PIECES = ("kick", "snare", "hat")
PATTERNS = ("evaluate", "second", "third")  # seeds 20 + k (evaluate --teach's), 120 + k, 220 + k


def onsets(path):
    out = subprocess.run([cli_path(), "classify", "--onsets", str(path)], capture_output=True, text=True, check=True)
    return [float(line.split(",")[1]) for line in out.stdout.splitlines()[1:]]


def matched(truth, found, tolerance=0.025):
    """The found onsets matched to a true hit (as evaluate's per_hit_accuracy): [(time, piece)]."""
    used, out = set(), []
    for t, piece in truth:
        candidates = [(abs(f - t), i) for i, f in enumerate(found) if i not in used and abs(f - t) <= tolerance]
        if candidates:
            _, best = min(candidates)
            used.add(best)
            out.append((found[best], piece))
    return out


def material(folder):
    """{kit: [(path, role, [(onset, piece)])]}, role "teach" or a pattern's name."""
    out = {}
    for k, (name, (soundfont, channel)) in enumerate(KITS.items()):
        files = []
        for piece in PIECES:
            path = folder / f"{k}-{piece}.wav"
            render_pattern(path, soundfont, channel, seed=10 + k, seconds=3.0, pieces=(piece,), gaps=(0.5,))
            files.append((path, "teach", [(t, piece) for t in onsets(path)]))
        for pattern, seed in zip(PATTERNS, (20 + k, 120 + k, 220 + k)):
            path = folder / f"{k}-{pattern}.wav"
            truth = render_pattern(path, soundfont, channel, seed=seed, seconds=12.0)
            files.append((path, pattern, matched(truth, onsets(path))))
        out[name] = files
    return out


def onset_sample(seconds, rate):
    """The detector's onsets lie on its 5 ms hops less half its frame (dsp::OnsetDetector); CSV times
    are rounded to 1 ms."""
    hop = max(1, int(math.floor(0.005 * rate + 0.5)))
    frame = 64
    while frame < 0.02 * rate:
        frame *= 2
    return hop * round((seconds * rate + frame // 2) / hop) - frame // 2


def engine_input(clip, rate):
    """The model's input for a hit's clip as WindowAnalyzer::analyzeClip makes it."""
    with tempfile.TemporaryDirectory() as tmp:
        padded = np.zeros(int(rate), np.float32)
        padded[: len(clip)] = clip[: len(padded)]
        np.save(f"{tmp}/clip.npy", padded)
        subprocess.run([cli_path(), "features", "--model", BUILTIN_MODEL, "--input", f"{tmp}/clip.npy", "--output", f"{tmp}/features.npy",
                        "--rate", str(rate)], check=True, capture_output=True)
        return np.load(f"{tmp}/features.npy")[:, :101]


@torch.no_grad()
def representations(model, features):
    """name -> [hits, numbers]: the class token after each layer ("cls3" is the embedding output), the
    token sequence after the stem ("stem", what learn --hits takes), inside it before its projection
    ("stem-maps") and after the first layer ("layer1"), each as [hits, 16 tokens, numbers]."""
    x = torch.from_numpy(np.stack(features))
    maps = model.expand.convs(x.unsqueeze(1))
    maps = maps.reshape(maps.shape[0], -1, maps.shape[-1])
    tokens = model.expand.project(maps)
    out = {"stem-maps": maps.permute(0, 2, 1)[:, :16], "stem": tokens.permute(0, 2, 1)[:, :16], "log-mel": x[:, :, :32].reshape(len(x), 64, 16, 2).mean(3).permute(0, 2, 1)}
    h = model.positional_encoder(model.concat_cls_token(tokens).permute(0, 2, 1))
    for i, block in enumerate(model.attention_block):
        h = block(h)
        out[f"cls{i + 1}"] = h[:, 0]
        if i == 0:
            out["layer1"] = h[:, 1:17]
    return {k: v.numpy() for k, v in out.items()}


def dataset(kits, clip_seconds, pre_roll):
    model = builtin_model().eval()
    rows = {"kit": [], "role": [], "piece": []}
    reps = {}
    for kit, files in kits.items():
        for path, role, hits in files:
            rate, samples = wavfile.read(path)
            samples = samples.astype(np.float32) / (32768.0 if samples.dtype == np.int16 else 1.0)
            if samples.ndim == 2:
                samples = samples.mean(axis=1)
            features = []
            for t, piece in hits:
                start = max(0, onset_sample(t, rate) - round(pre_roll * rate))
                features.append(engine_input(samples[start:start + math.ceil(clip_seconds * rate)], rate))
                rows["kit"].append(kit)
                rows["role"].append(role)
                rows["piece"].append(PIECES.index(piece))
            for k, v in representations(model, features).items():
                reps.setdefault(k, []).append(v)
    data = {k: np.concatenate(v) for k, v in reps.items()}
    data.update({k: np.array(v) for k, v in rows.items()})
    return data


def unit(x):
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def prototypes(taught, labels, queries):
    """learn's rule: the nearest normalised mean of a class's normalised examples (by cosine)."""
    p = unit(np.stack([unit(taught[labels == c]).mean(0) for c in range(len(PIECES))]))
    return (unit(queries) @ p.T).argmax(1)


def nearest(taught, labels, queries):
    return labels[(unit(queries) @ unit(taught).T).argmax(1)]


def logistic(taught, labels, queries, weight_decay=1e-3):
    """A linear head trained on the taught examples (L-BFGS, cross-entropy, L2)."""
    x, q, y = torch.tensor(unit(taught)), torch.tensor(unit(queries)), torch.tensor(labels)
    w = torch.zeros(x.shape[1], len(PIECES), requires_grad=True)
    b = torch.zeros(len(PIECES), requires_grad=True)
    optimizer = torch.optim.LBFGS([w, b], max_iter=300)

    def loss():
        optimizer.zero_grad()
        value = torch.nn.functional.cross_entropy(x @ w + b, y) + weight_decay * (w ** 2).sum()
        value.backward()
        return value

    optimizer.step(loss)
    return (q @ w + b).argmax(1).detach().numpy()


def centred_on_taught(rule):
    def classify(taught, labels, queries):
        centre = unit(taught).mean(0)
        return rule(unit(taught) - centre, labels, unit(queries) - centre)
    return classify


def pair_table(data, x, rule, patterns, teach_sets=None, test_centring=None):
    """Share of hits named right for each (taught kits, tested kit) pair of different kits."""
    names = list(KITS)
    out = {}
    for taught_kits in teach_sets or [(k,) for k in names]:
        taught = np.isin(data["kit"], taught_kits) & (data["role"] == "teach")
        for kit in names:
            if kit in taught_kits:
                continue
            right = total = 0
            for pattern in patterns:
                tested = (data["kit"] == kit) & (data["role"] == pattern)
                q = x[tested]
                if test_centring is not None:
                    q = test_centring(unit(x[taught]), q)
                    a = unit(x[taught]) - unit(x[taught]).mean(0)
                    predicted = prototypes(a, data["piece"][taught], q)
                else:
                    predicted = rule(x[taught], data["piece"][taught], q)
                right += (predicted == data["piece"][tested]).sum()
                total += tested.sum()
            out[(taught_kits, kit)] = right / total
    return out


def running_centre(taught, queries):
    """Each hit less the mean of the hits so far (this one included; in time order): what a live
    user's stream could give, which a model file of engine ops (no state between hits) cannot."""
    q = unit(queries)
    return q - np.cumsum(q, axis=0) / np.arange(1, len(q) + 1)[:, None]


def whole_centre(taught, queries):
    q = unit(queries)
    return q - q.mean(0)


def tokens(data, name, first, end):
    return data[name][:, first:end].mean(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    print(f"CPU: {cpu_name()}; every figure: the mean share of hits named right over the 30 pairs of different kits")
    with tempfile.TemporaryDirectory() as folder:
        kits = material(Path(folder))
        data = {(0.12, 0.01): dataset(kits, 0.12, 0.01)}
        for clip, pre in [(0.08, 0.01), (0.25, 0.01), (0.12, 0.0), (0.12, 0.02)]:
            data[(clip, pre)] = dataset(kits, clip, pre)
    d = data[(0.12, 0.01)]
    pairs = list(itertools.combinations(KITS, 2))

    def row(title, table_of):
        evaluate = np.mean(list(table_of(("evaluate",)).values()))
        others = np.mean(list(table_of(("second", "third")).values()))
        print(f"| {title} | {evaluate:.3f} | {others:.3f} |")

    print("\nClips of 0.12 s from 10 ms before the onset unless said; 5 hits per piece of one kit, unless said.\n")
    print("| lever | evaluate's pattern | two other patterns |")
    print("|---|---|---|")
    stem = tokens(d, "stem", 2, 8)
    row("class token after the last layer (the embedding output), prototypes: learn --hits before", lambda p: pair_table(d, d["cls3"], prototypes, p))
    row("the same, 1-nearest example", lambda p: pair_table(d, d["cls3"], nearest, p))
    row("the same, centred on the taught examples' mean", lambda p: pair_table(d, d["cls3"], centred_on_taught(prototypes), p))
    row("the same, a logistic head trained on the 15 examples", lambda p: pair_table(d, d["cls3"], logistic, p))
    row("the same, taught from two kits (10 hits per piece; 15 pairs x 4 kits)", lambda p: pair_table(d, d["cls3"], prototypes, p, pairs))
    row("class token after layer 2", lambda p: pair_table(d, d["cls2"], prototypes, p))
    row("class token after layer 1", lambda p: pair_table(d, d["cls1"], prototypes, p))
    row("tokens after layer 1, mean of tokens 0-16", lambda p: pair_table(d, tokens(d, "layer1", 0, 16), prototypes, p))
    row("mean log-mel of the first 160 ms", lambda p: pair_table(d, tokens(d, "log-mel", 0, 8), prototypes, p))
    row("stem's maps before its projection, tokens 2-8", lambda p: pair_table(d, tokens(d, "stem-maps", 2, 8), prototypes, p))
    for first, end in [(0, 4), (0, 8), (1, 6), (0, 12)]:
        row(f"stem tokens {first}-{end}", lambda p: pair_table(d, tokens(d, "stem", first, end), prototypes, p))
    row("**stem tokens 2-8 (40-160 ms of the clip), prototypes: learn --hits now**", lambda p: pair_table(d, stem, prototypes, p))
    row("stem tokens 2-8, 1-nearest example", lambda p: pair_table(d, stem, nearest, p))
    row("stem tokens 2-8, centred on the taught examples' mean", lambda p: pair_table(d, stem, centred_on_taught(prototypes), p))
    row("stem tokens 2-8, a logistic head trained on the 15 examples", lambda p: pair_table(d, stem, logistic, p))
    row("stem tokens 2-8, taught from two kits", lambda p: pair_table(d, stem, prototypes, p, pairs))
    row("stem tokens 2-8 + class token (each normalised, concatenated)", lambda p: pair_table(d, np.hstack([unit(stem), unit(d["cls3"])]), prototypes, p))
    for (clip, pre), other in data.items():
        if (clip, pre) != (0.12, 0.01):
            row(f"stem tokens 2-8, clip {clip} s from {pre * 1000:.0f} ms before the onset",
                lambda p, other=other: pair_table(other, tokens(other, "stem", 2, 8), prototypes, p))
    print("| *not in a model file:* the tested kit's hits each less the mean of its hits so far, class token | "
          + " | ".join(f"{np.mean(list(pair_table(d, d['cls3'], None, p, test_centring=running_centre).values())):.3f}" for p in (("evaluate",), ("second", "third"))) + " |")
    print("| *not in a model file:* the same, stem tokens 2-8 | "
          + " | ".join(f"{np.mean(list(pair_table(d, stem, None, p, test_centring=running_centre).values())):.3f}" for p in (("evaluate",), ("second", "third"))) + " |")
    print("| *not in a model file:* less the mean of all the tested kit's hits, stem tokens 2-8 | "
          + " | ".join(f"{np.mean(list(pair_table(d, stem, None, p, test_centring=whole_centre).values())):.3f}" for p in (("evaluate",), ("second", "third"))) + " |")

    # The choice with each kit left out: among the class tokens and the token means over six spans
    # of three sequences, by prototypes or the nearest example, on the pairs of the other five kits
    # (the two other patterns); scored on the pairs with the kit left out (evaluate's pattern).
    candidates = {(f"class token {i}", rule.__name__): (d[f"cls{i}"], rule) for i in (1, 2, 3) for rule in (prototypes, nearest)}
    for name in ("stem", "stem-maps", "layer1"):
        for first, end in [(0, 4), (0, 6), (0, 8), (1, 6), (2, 8), (0, 12)]:
            for rule in (prototypes, nearest):
                candidates[(f"{name} tokens {first}-{end}", rule.__name__)] = (tokens(d, name, first, end), rule)
    tables = {c: (pair_table(d, x, rule, ("second", "third")), pair_table(d, x, rule, ("evaluate",))) for c, (x, rule) in candidates.items()}
    print("\n| kit left out | chosen on the other five | its pairs, evaluate's pattern | stem tokens 2-8 on them |")
    print("|---|---|---|---|")
    scores, fixed = [], []
    for left_out in KITS:
        def without(table):
            return np.mean([v for (t, s), v in table.items() if left_out not in t and s != left_out])

        def with_it(table):
            return np.mean([v for (t, s), v in table.items() if left_out in t or s == left_out])
        chosen = max(tables, key=lambda c: without(tables[c][0]))
        scores.append(with_it(tables[chosen][1]))
        fixed.append(with_it(tables[("stem tokens 2-8", "prototypes")][1]))
        print(f"| {left_out} | {chosen[0]}, {chosen[1]} | {scores[-1]:.3f} | {fixed[-1]:.3f} |")
    print(f"| mean | | {np.mean(scores):.3f} | {np.mean(fixed):.3f} |")

    # Where each piece's energy lies in each kit: the power-weighted mean of the mel bands' centre
    # frequencies over the first 160 ms (the features are (dB + 45) / 20 of 64 HTK mel bands to 8 kHz).
    mel = np.linspace(0.0, 2595.0 * np.log10(1.0 + 8000.0 / 700.0), 66)[1:-1]
    centres = 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    power = 10.0 ** ((tokens(d, "log-mel", 0, 8) * 20.0 - 45.0) / 10.0)
    centroid = (power * centres).sum(1) / power.sum(1)
    print("\n| kit | " + " | ".join(f"{piece}: spectral centroid, mean ± sd" for piece in PIECES) + " |")
    print("|---" * (len(PIECES) + 1) + "|")
    for kit in KITS:
        cells = [centroid[(d["kit"] == kit) & (d["piece"] == c)] for c in range(len(PIECES))]
        print(f"| {kit} | " + " | ".join(f"{c.mean():.0f} ± {c.std():.0f} Hz" for c in cells) + " |")


if __name__ == "__main__":
    main()
