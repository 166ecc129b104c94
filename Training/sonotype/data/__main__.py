"""Deterministic data generator for the built-in model.

    python3 -m sonotype.data --out build/data [--seed 0] [--clips 2400] [--heldout-clips 120] [--without NAME ...]

Every class is drawn from several sources (sonotype.data.catalogue: soundfonts through two synthesizers,
code-written voices, packaged recordings, two speech synthesizers, noise and silence by level and
structure), then made to sound recorded (sonotype.data.augment: rooms, microphones and speakers,
dynamics, pitch and tempo, another class in the background, real kinds of noise floor).

Writes train.npz, val.npz (a random split of the same distribution) and heldout.npz (other random
phrases and clips, and speech voices kept out of training), each with log-mel `features`
[N, n_mels, frames] (float16) of 1 s windows cut at random from 3 s clips, and `labels`; sources.json
(how many clips each source gave); and a few 2 s example clips as WAV.

`--store clips` writes the whole clips instead (train_clips.npz, val_clips.npz, heldout_clips.npz):
the log-mel of each 3 s clip [N, n_mels, 301] with each frame's peak and RMS level in dBFS
(`frame_peak_db`, `frame_rms_db` [N, 301]), from which training cuts windows of any length up to 3 s
each epoch (`sonotype.windows`), with the same rules for quiet crops as here.
"""

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import torch
from scipy.io import wavfile

from . import CLASSES, FRONTEND, SAMPLE_RATE
from . import catalogue, noises
from .augment import AUGMENT_DEFAULTS, GROUPS, augment, without as augment_without
from .sources import HELDOUT_SENTENCES, SENTENCES, espeak_voices
from ..frontend import LogMelFrontend

CLIP_SECONDS = 3.0
EXAMPLE_SECONDS = 2.0
CHUNK = 48  # clips per rendering job: small enough to balance the workers
BACKGROUND_PROBABILITY = 0.3  # another class under the loud source, -20…-10 dB (augment)
NOISE_FLOOR_PROBABILITY = 0.5  # a noise floor of a real kind under the source (augment)
ENGINES = ("espeak-ng", "espeak")


def _seed(*parts):
    return np.random.default_rng(np.random.SeedSequence([int(p) for p in parts]))


def render_job(job):
    """Raw clips of one (split, class, source) chunk: (key, clips)."""
    key, label, source, count, voices = job
    return key, catalogue.render(_seed(*key), label, source, count, CLIP_SECONDS, voices)


# A window whose peak stays under -60 dBFS is silence by the classes' own definition (a noise floor of
# -90…-60 dBFS): crops of other classes that quiet (a rest, a release tail) are drawn again, and so are
# crops more than QUIET_BELOW_LOUDEST dB (RMS) under the clip's loudest second: a tail or a gap of a loud
# clip, where what is heard is the floor, not the labelled source.
QUIET_PEAK = 10 ** (-60 / 20)
QUIET_BELOW_LOUDEST = 40.0


def loudest_second_rms(clip, window):
    hop = max(1, window // 4)
    starts = range(0, max(1, len(clip) - window + 1), hop)
    return max(float(np.sqrt(np.mean(np.square(clip[i:i + window], dtype=np.float64)))) for i in starts)


def random_crop(rng, clip, window, quiet_allowed, attempts=10):
    """A random `window`-sample crop of `clip`; unless `quiet_allowed`, one that is not silence nor a quiet
    gap of a loud clip (None if `attempts` draws find none)."""
    floor = 0.0 if quiet_allowed else loudest_second_rms(clip, window) * 10 ** (-QUIET_BELOW_LOUDEST / 20)
    for _ in range(attempts):
        start = int(rng.integers(0, len(clip) - window + 1))
        crop = clip[start:start + window]
        if quiet_allowed or (np.abs(crop).max() >= QUIET_PEAK and np.sqrt(np.mean(np.square(crop, dtype=np.float64))) >= floor):
            return crop
    return None


def frame_levels(clip, frames, hop):
    """Each log-mel frame's peak and RMS level (dBFS) over the samples it centres on (hop samples around
    frame * hop), floored at -120 dB: what the quiet-crop rules read without the samples."""
    padded = np.pad(clip.astype(np.float64), (hop // 2, frames * hop))
    blocks = padded[: frames * hop].reshape(frames, hop)
    peak = np.maximum(np.abs(blocks).max(axis=1), 1e-6)
    rms = np.maximum(np.sqrt(np.mean(np.square(blocks), axis=1)), 1e-6)
    return 20 * np.log10(peak), 20 * np.log10(rms)


def featurise_clips(clips, labels, tags):
    """Log-mel features of the whole clips, their frames' levels, labels and tags (sources)."""
    frontend = LogMelFrontend(**FRONTEND)
    hop = FRONTEND["hop_length"]
    features, peaks, rmss = [], [], []
    with torch.no_grad():
        for clip in clips:
            f = frontend(torch.from_numpy(np.ascontiguousarray(clip, dtype=np.float32))).numpy()
            peak, rms = frame_levels(clip, f.shape[-1], hop)
            features.append(f.astype(np.float16))
            peaks.append(peak.astype(np.float16))
            rmss.append(rms.astype(np.float16))
    return np.stack(features), np.stack(peaks), np.stack(rmss), np.array(labels, dtype=np.int64), np.array(tags, dtype=np.int16)


def featurise(clips, labels, rng, crops_per_clip, tags=None):
    """Log-mel features of `crops_per_clip` random 1 s crops per clip, and their labels (and, with `tags`,
    each crop's tag: the source of its clip)."""
    frontend = LogMelFrontend(**FRONTEND)
    silence = CLASSES.index("silence")
    features, targets, crop_tags = [], [], []
    with torch.no_grad():
        for i, (clip, label) in enumerate(zip(clips, labels)):
            for _ in range(crops_per_clip):
                crop = random_crop(rng, clip, FRONTEND["window_samples"], quiet_allowed=label == silence)
                if crop is not None:
                    features.append(frontend(torch.from_numpy(crop)).numpy().astype(np.float16))
                    targets.append(label)
                    crop_tags.append(tags[i] if tags is not None else 0)
    frames = 1 + FRONTEND["window_samples"] // FRONTEND["hop_length"]
    features = np.stack(features) if features else np.zeros((0, FRONTEND["n_mels"], frames), np.float16)
    result = features, np.array(targets, dtype=np.int64)
    return result + (np.array(crop_tags, dtype=np.int16),) if tags is not None else result


# Raw clips of the split being augmented, inherited by the forked workers (not pickled per job).
_RAW = {"clips": [], "labels": [], "sources": [], "settings": AUGMENT_DEFAULTS}
NO_BACKGROUND = ("silence", "noise")  # classes that are never the quiet one under another


def recorded(seed, split, index):
    """Clip `index` of the split made to sound recorded: background, noise floor, augmentation."""
    clips, labels = _RAW["clips"], _RAW["labels"]
    rng = _seed(seed, 7, split, index)
    label = CLASSES[labels[index]]
    background = floor = None
    if label not in NO_BACKGROUND:
        if rng.random() < BACKGROUND_PROBABILITY:
            for _ in range(10):
                j = int(rng.integers(0, len(clips)))
                if labels[j] != labels[index] and CLASSES[labels[j]] not in NO_BACKGROUND:
                    background = clips[j]
                    break
        if rng.random() < NOISE_FLOOR_PROBABILITY:
            floor = noises.noise_floor(rng, len(clips[index]))
    return augment(rng, clips[index], label, background=background, noise_floor=floor, settings=_RAW["settings"])


def augment_job(job):
    seed, split, indices, crops, keep, store = job
    torch.set_num_threads(1)
    rng = _seed(seed, 8, split, indices[0] if len(indices) else 0)
    clips = [recorded(seed, split, i) for i in indices]
    labels = [_RAW["labels"][i] for i in indices]
    tags = [_RAW["sources"][i] for i in indices]
    if store == "clips":
        return featurise_clips(clips, labels, tags), (clips if keep else []), labels
    features, targets, tags = featurise(clips, labels, rng, crops, tags=tags)
    return (features, targets, tags), (clips if keep else []), labels


def split_voices():
    """{engine: (train (voices, variants, sentences), held-out (voices, variants, sentences))}: the held-out
    split speaks other languages, with other variants and other sentences (sources.HELDOUT_*)."""
    return {engine: (espeak_voices(engine=engine) + (SENTENCES,), espeak_voices(engine=engine, heldout=True) + (HELDOUT_SENTENCES,))
            for engine in ENGINES}


def generate(out, seed, clips_per_class, heldout_per_class, jobs, crops_per_clip=3, without=(), augment_settings=None,
             verbose=True, store="windows"):
    if store not in ("windows", "clips"):
        raise ValueError(f"store must be windows or clips, not {store!r}")
    if clips_per_class < 1 or heldout_per_class < 1:
        raise ValueError(f"clips per class must be at least 1 (train {clips_per_class}, held-out {heldout_per_class})")
    os.makedirs(out, exist_ok=True)
    voices = split_voices()
    _RAW["settings"] = augment_settings or AUGMENT_DEFAULTS
    counts = {}
    source_names = catalogue.names()
    examples = {}
    for split_index, (split, count) in enumerate((("train", clips_per_class), ("heldout", heldout_per_class))):
        started = time.time()
        work = []
        for c, label in enumerate(CLASSES):
            sources = catalogue.sources_for(label, without)
            for s, (source, n) in enumerate(zip(sources, catalogue.allocate(count, sources))):
                counts.setdefault(split, {}).setdefault(label, {})[source.name] = n
                split_voice = {engine: v[split_index] for engine, v in voices.items()}
                for k, start in enumerate(range(0, n, CHUNK)):
                    work.append(((seed, split_index, c, s, k), label, source, min(CHUNK, n - start), split_voice))
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            rendered = dict(pool.map(render_job, work))
        clips, labels, tags = [], [], []
        for key, label, source, *_ in work:
            clips.extend(rendered[key])
            labels.extend([CLASSES.index(label)] * len(rendered[key]))
            tags.extend([source_names.index(source.name)] * len(rendered[key]))
        del rendered
        if verbose:
            print(f"{split}: {len(clips)} clips rendered in {time.time() - started:.0f} s", flush=True)
        started = time.time()
        _RAW["clips"], _RAW["labels"], _RAW["sources"] = clips, labels, tags
        order = np.random.default_rng(seed + 7 + split_index).permutation(len(clips))
        if split == "train":
            val_count = len(clips) // 10
            parts = (("val", order[:val_count], 2), ("train", order[val_count:], crops_per_clip))
        else:
            parts = (("heldout", order, 1),)
        for name, indices, crops in parts:
            chunks = [(seed, split_index, indices[i:i + CHUNK], crops, name == "heldout", store) for i in range(0, len(indices), CHUNK)]
            arrays = []
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                for result, augmented, clip_labels in pool.map(augment_job, chunks):
                    arrays.append(result)
                    if name == "heldout":
                        for clip, label in zip(augmented, clip_labels):
                            examples.setdefault(CLASSES[label], clip)
            joined = [np.concatenate(column) for column in zip(*arrays)]
            if store == "clips":
                np.savez(os.path.join(out, f"{name}_clips.npz"), features=joined[0], frame_peak_db=joined[1], frame_rms_db=joined[2],
                         labels=joined[3], sources=joined[4], source_names=np.array(source_names))
            else:
                np.savez(os.path.join(out, f"{name}.npz"), features=joined[0], labels=joined[1], sources=joined[2],
                         source_names=np.array(source_names))
        if verbose:
            print(f"{split}: augmented and featurised in {time.time() - started:.0f} s", flush=True)
    _RAW["clips"], _RAW["labels"], _RAW["sources"] = [], [], []

    folder = os.path.join(out, "examples")
    os.makedirs(folder, exist_ok=True)
    for label in ("speech", "drums", "piano", "guitar", "noise"):
        if label in examples:
            clip = examples[label][: int(EXAMPLE_SECONDS * SAMPLE_RATE)]
            wavfile.write(os.path.join(folder, f"{label}.wav"), SAMPLE_RATE, (clip * 32767).astype(np.int16))
    with open(os.path.join(out, "sources.json"), "w") as f:
        json.dump({"clips": counts, "without": sorted(without),
                   "voices": {e: {"train": v[0][:2], "heldout": v[1][:2]} for e, v in voices.items()}}, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="build/data")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--clips", type=int, default=2400, help="clips per class (train + val)")
    parser.add_argument("--heldout-clips", type=int, default=120, help="held-out clips per class")
    parser.add_argument("--crops", type=int, default=3, help="1 s windows cut from each 3 s training clip")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--store", choices=("windows", "clips"), default="windows",
                        help="windows: 1 s log-mel windows cut now; clips: the whole 3 s clips' log-mel and frame levels")
    parser.add_argument("--without", action="append", default=[], metavar="NAME",
                        help=f"leave out a source or kind of source (ablation): {', '.join(catalogue.names())}")
    parser.add_argument("--augment-without", action="append", default=[], metavar="STAGE",
                        help="switch an augmentation stage or group off (ablation): " + ", ".join(list(GROUPS) + list(AUGMENT_DEFAULTS)))
    args = parser.parse_args()
    settings = augment_without(*args.augment_without) if args.augment_without else None
    generate(args.out, args.seed, args.clips, args.heldout_clips, args.jobs, args.crops, tuple(args.without), settings,
             store=args.store)


if __name__ == "__main__":
    main()
