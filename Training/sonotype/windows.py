"""Training windows: cut from the generator's data, of any length the model asks for.

Data made with `python3 -m sonotype.data --store clips` keeps whole 3 s clips (log-mel and each frame's
peak and RMS level); `ClipWindows` cuts windows of `window_frames` from them, new ones every epoch, by
the generator's rules for quiet crops: a crop of a class other than silence must peak at -60 dBFS or
more (quieter is silence by the classes' own definition) and lie within 40 dB (RMS) of the clip's
loudest crop of that length (else what is heard is the floor of a gap or a tail, not the labelled
source). `WindowFile` serves the generator's ready-cut 1 s windows (train.npz) through the same calls.
"""

import os

import numpy as np
import torch

from .data import CLASSES, FRONTEND
from .data.catalogue import expand

QUIET_PEAK_DB = -60.0
QUIET_BELOW_LOUDEST_DB = 40.0


def _kept(data, without, only):
    """Which rows to keep: not of the sources `without`, and (when `only` is given) of the sources `only`."""
    names = [str(n) for n in data["source_names"]]
    keep = np.ones(len(data["labels"]), dtype=bool)
    if without:
        keep &= ~np.isin(data["sources"], [names.index(n) for n in expand(without) if n in names])
    if only:
        keep &= np.isin(data["sources"], [names.index(n) for n in expand(only) if n in names])
    return keep, names


def valid_starts(peak_db, rms_db, window, quiet_allowed):
    """[N, F - window + 1] booleans: the starts of crops the rules above keep (every start for silence)."""
    n, frames = rms_db.shape
    count = frames - window + 1
    if count < 1:
        raise ValueError(f"windows of {window} frames do not fit clips of {frames}")
    power = np.power(10.0, rms_db.astype(np.float64) / 10.0)
    cumulative = np.concatenate([np.zeros((n, 1)), np.cumsum(power, axis=1)], axis=1)
    mean_power = (cumulative[:, window:] - cumulative[:, :count]) / window
    loudest = mean_power[:, :: max(1, window // 4)].max(axis=1, keepdims=True)
    loud_enough = mean_power >= loudest * 10 ** (-QUIET_BELOW_LOUDEST_DB / 10)
    # The crop's peak: a running maximum, in chunks of clips to bound the memory.
    peak_ok = np.zeros((n, count), dtype=bool)
    for start in range(0, n, 2048):
        view = np.lib.stride_tricks.sliding_window_view(peak_db[start:start + 2048], window, axis=1)
        peak_ok[start:start + 2048] = view.max(axis=-1) >= QUIET_PEAK_DB
    return np.where(quiet_allowed[:, None], True, loud_enough & peak_ok)


class ClipWindows:
    """Windows of `window_frames` cut from a `*_clips.npz` file."""

    def __init__(self, path, window_frames, without=(), only=()):
        data = np.load(path)
        keep, self.source_names = _kept(data, without, only)
        self.features = torch.from_numpy(data["features"][keep])  # float16 [N, mels, frames]
        self.labels = torch.from_numpy(data["labels"][keep])
        self.sources = torch.from_numpy(data["sources"][keep].astype(np.int64))
        self.window = int(window_frames)
        silence = self.labels.numpy() == CLASSES.index("silence")
        self.valid = valid_starts(data["frame_peak_db"][keep], data["frame_rms_db"][keep], self.window, silence)
        self.usable = np.flatnonzero(self.valid.any(axis=1))  # clips with at least one crop the rules keep

    def draw(self, rng, per_clip):
        """[M, 2] (clip, start) pairs: `per_clip` crops of each usable clip, starts drawn uniformly among the valid."""
        pairs = []
        for clip in self.usable:
            starts = np.flatnonzero(self.valid[clip])
            for start in rng.choice(starts, size=per_clip, replace=True):
                pairs.append((clip, start))
        return np.array(pairs, dtype=np.int64).reshape(-1, 2)

    def gather(self, pairs):
        """Windows [B, mels, window] (float32), labels and sources of the (clip, start) pairs."""
        index = torch.as_tensor(pairs[:, 0])
        offsets = torch.as_tensor(pairs[:, 1])[:, None] + torch.arange(self.window)[None, :]  # [B, window]
        clips = self.features[index].float()                                           # [B, mels, frames]
        windows = torch.gather(clips, 2, offsets[:, None, :].expand(-1, clips.shape[1], -1))
        return windows, self.labels[index], self.sources[index]


class WindowFile:
    """The generator's ready-cut windows (train.npz, val.npz, heldout.npz) through ClipWindows' calls: each
    window is a clip with one crop, itself."""

    def __init__(self, path, without=(), only=()):
        data = np.load(path)
        keep, self.source_names = _kept(data, without, only)
        self.features = torch.from_numpy(data["features"][keep])
        self.labels = torch.from_numpy(data["labels"][keep])
        self.sources = torch.from_numpy(data["sources"][keep].astype(np.int64))
        self.window = self.features.shape[-1]

    def draw(self, rng, per_clip=1):
        index = np.arange(len(self.labels))
        return np.stack([index, np.zeros_like(index)], axis=1)

    def gather(self, pairs):
        index = torch.as_tensor(pairs[:, 0])
        return self.features[index].float(), self.labels[index], self.sources[index]


def window_frames(seconds=None):
    """Log-mel frames in a window of `seconds` (None: the front end's own 1 s)."""
    samples = FRONTEND["window_samples"] if seconds is None else int(round(seconds * FRONTEND["sample_rate"]))
    return samples // FRONTEND["hop_length"] + 1


def open_split(data, split, frames=None, without=(), only=()):
    """The windows of a split ("train", "val", "heldout") of a data folder: cut from its clips when it has
    them and `frames` (a window's length) is given, else its ready-cut windows (else 1 s windows cut from its clips)."""
    clips = os.path.join(data, f"{split}_clips.npz")
    path = os.path.join(data, f"{split}.npz")
    if os.path.exists(clips) and (frames is not None or not os.path.exists(path)):
        return ClipWindows(clips, frames or window_frames(), without, only)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{data} has neither {split}_clips.npz nor {split}.npz (make it with python3 -m sonotype.data)")
    return WindowFile(path, without, only)
