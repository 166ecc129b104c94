"""Deterministic data generator for the built-in model.

    python3 -m sonotype.data --out build/data [--seed 0] [--clips 2000] [--heldout-clips 120]

Writes train.npz, val.npz (a random split of the same distribution) and heldout.npz (held-out MIDI
phrases — another random stream — and held-out espeak-ng voices), each with log-mel `features`
[N, n_mels, frames] (float16) of 1 s windows cut at random from 3 s clips, and `labels`; and a few
2 s example clips as WAV.
"""

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import torch
from scipy.io import wavfile

from . import CLASSES, SAMPLE_RATE
from .augment import augment
from .sources import espeak_voices, noise_clip, render_instrument_clips, silence_clip, speech_clips
from ..frontend import LogMelFrontend

# The built-in model's front end: 1 s windows of 64 log-mel bands at 16 kHz, 10 ms hop.
FRONTEND = dict(sample_rate=SAMPLE_RATE, n_fft=400, hop_length=160, n_mels=64, log={"type": "db", "top_db": 80.0},
                mean=-45.0, std=20.0, window_samples=SAMPLE_RATE)
CLIP_SECONDS = 3.0
EXAMPLE_SECONDS = 2.0


def make_clips(job):
    """Raw clips of one class: (label, count, seed, voices)."""
    label, count, seed, voices, variants = job
    rng = np.random.default_rng(seed)
    if label == "silence":
        clips = [silence_clip(rng, CLIP_SECONDS) for _ in range(count)]
    elif label == "noise":
        clips = [noise_clip(rng, CLIP_SECONDS) for _ in range(count)]
    elif label == "speech":
        clips = speech_clips(rng, count, CLIP_SECONDS, voices, variants)
    else:
        clips = render_instrument_clips(rng, label, count, CLIP_SECONDS)
    return label, [augment(rng, clip, label) for clip in clips]


# A window whose peak stays under -60 dBFS is silence by the classes' own definition (a noise floor
# below about -65 dBFS): crops of other classes that quiet (a rest, a release tail) are drawn again.
QUIET_PEAK = 10 ** (-60 / 20)


def random_crop(rng, clip, window, quiet_allowed, attempts=10):
    """A random `window`-sample crop of `clip`; unless `quiet_allowed`, one that is not silence (None if
    `attempts` draws find none)."""
    for _ in range(attempts):
        start = int(rng.integers(0, len(clip) - window + 1))
        crop = clip[start:start + window]
        if quiet_allowed or np.abs(crop).max() >= QUIET_PEAK:
            return crop
    return None


def featurise(clips, labels, rng, crops_per_clip):
    frontend = LogMelFrontend(**FRONTEND)
    silence = CLASSES.index("silence")
    features, targets = [], []
    with torch.no_grad():
        for clip, label in zip(clips, labels):
            for _ in range(crops_per_clip):
                crop = random_crop(rng, clip, FRONTEND["window_samples"], quiet_allowed=label == silence)
                if crop is not None:
                    features.append(frontend(torch.from_numpy(crop)).numpy().astype(np.float16))
                    targets.append(label)
    return np.stack(features), np.array(targets, dtype=np.int64)


def generate(out, seed, clips_per_class, heldout_per_class, jobs, crops_per_clip=3, verbose=True):
    os.makedirs(out, exist_ok=True)
    voices, variants = espeak_voices()
    order = np.random.default_rng(seed).permutation(len(voices))
    heldout_voices = [voices[i] for i in order[: max(1, len(voices) // 4)]]
    train_voices = [voices[i] for i in order[max(1, len(voices) // 4):]]
    variant_order = np.random.default_rng(seed + 1).permutation(len(variants))
    heldout_variants = [variants[i] for i in variant_order[: max(1, len(variants) // 4)]]
    train_variants = [variants[i] for i in variant_order[max(1, len(variants) // 4):]]

    splits = {}
    for split, count, split_seed, split_voices, split_variants in (
            ("train", clips_per_class, seed, train_voices, train_variants),
            ("heldout", heldout_per_class, seed + 1_000_003, heldout_voices, heldout_variants)):
        started = time.time()
        work = [(label, count, split_seed * 100 + i, split_voices, split_variants) for i, label in enumerate(CLASSES)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = dict(pool.map(make_clips, work))
        clips = [clip for label in CLASSES for clip in results[label]]
        labels = [CLASSES.index(label) for label in CLASSES for _ in results[label]]
        splits[split] = (clips, labels)
        if verbose:
            print(f"{split}: {len(clips)} clips in {time.time() - started:.0f} s")

    rng = np.random.default_rng(seed + 7)
    clips, labels = splits["train"]
    order = rng.permutation(len(clips))
    val_count = len(clips) // 10
    val_idx, train_idx = order[:val_count], order[val_count:]
    for name, idx, crops in (("train", train_idx, crops_per_clip), ("val", val_idx, 2)):
        features, targets = featurise([clips[i] for i in idx], [labels[i] for i in idx], rng, crops)
        np.savez(os.path.join(out, f"{name}.npz"), features=features, labels=targets)
    features, targets = featurise(*splits["heldout"], rng, 1)
    np.savez(os.path.join(out, "heldout.npz"), features=features, labels=targets)

    examples = os.path.join(out, "examples")
    os.makedirs(examples, exist_ok=True)
    clips, labels = splits["heldout"]
    for label in ("speech", "drums", "piano", "guitar", "noise"):
        index = labels.index(CLASSES.index(label))
        clip = clips[index][: int(EXAMPLE_SECONDS * SAMPLE_RATE)]
        wavfile.write(os.path.join(examples, f"{label}.wav"), SAMPLE_RATE, (clip * 32767).astype(np.int16))
    with open(os.path.join(out, "voices.txt"), "w") as f:
        f.write("train voices: " + " ".join(train_voices) + "\nheld-out voices: " + " ".join(heldout_voices) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="build/data")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--clips", type=int, default=2000, help="clips per class (train + val)")
    parser.add_argument("--heldout-clips", type=int, default=120, help="held-out clips per class")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    generate(args.out, args.seed, args.clips, args.heldout_clips, args.jobs)


if __name__ == "__main__":
    main()
