"""Scores the built-in model on sound sources it never saw: instruments from the TimGM6mb soundfont
(not FluidR3), speech from flite (not espeak-ng), noise and silence from another seed. Runs the real
product path: WAV files through `sonotype classify` (C++ front end and engine).

    python3 -m sonotype.evaluate [--model Resources/models/default.safetensors] [--clips 40] [--report docs/MODEL.md]

Writes the results into the report, between the "unseen sources" markers.
"""

import argparse
import csv
import io
import os
import subprocess
import tempfile

import numpy as np
from scipy.io import wavfile

from .data import CLASSES, SAMPLE_RATE
from .data.augment import peak_normalise
from .data.sources import SENTENCES, noise_clip, read_wav, render_instrument_clips, silence_clip
from .engine_cli import cli_path

UNSEEN_SOUNDFONT = "/usr/share/sounds/sf2/TimGM6mb.sf2"
FLITE_VOICES = ["kal", "kal16", "awb", "rms", "slt"]
BEGIN, END = "<!-- unseen sources: begin -->", "<!-- unseen sources: end -->"
SECONDS = 3.0


def flite_clips(rng, count):
    clips = []
    length = int(SECONDS * SAMPLE_RATE)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "speech.wav")
        for i in range(count):
            parts = []
            while sum(len(p) for p in parts) < length:
                text = " ".join(rng.choice(SENTENCES, size=2, replace=False))
                subprocess.run(["flite", "-voice", FLITE_VOICES[i % len(FLITE_VOICES)], "-t", text, "-o", path], check=True,
                               capture_output=True)
                parts.append(read_wav(path))
            clips.append(np.concatenate(parts)[:length])
    return clips


def make_set(folder, clips_per_class, seed):
    rng = np.random.default_rng(seed)
    for label in CLASSES:
        if label == "silence":
            clips = [silence_clip(rng, SECONDS) for _ in range(clips_per_class)]
        elif label == "noise":
            clips = [noise_clip(rng, SECONDS) for _ in range(clips_per_class)]
        elif label == "speech":
            clips = flite_clips(rng, clips_per_class)
        else:
            clips = render_instrument_clips(rng, label, clips_per_class, SECONDS, soundfont=UNSEEN_SOUNDFONT, vary=False)
        for i, clip in enumerate(clips):
            if label != "silence":
                clip = peak_normalise(clip, rng.uniform(-20, -1))
            wavfile.write(os.path.join(folder, f"{label}_{i:03d}.wav"), SAMPLE_RATE, (np.clip(clip, -1, 1) * 32767).astype(np.int16))


def evaluate(model, clips_per_class, seed):
    with tempfile.TemporaryDirectory() as folder:
        make_set(folder, clips_per_class, seed)
        command = [cli_path(), "classify", folder] + (["--model", model] if model else [])
        rows = list(csv.reader(io.StringIO(subprocess.run(command, capture_output=True, text=True, check=True).stdout)))[1:]
        summary = list(csv.reader(io.StringIO(subprocess.run(command + ["--summary"], capture_output=True, text=True,
                                                                    check=True).stdout)))[1:]
    truth = lambda row: os.path.basename(row[0]).split("_")[0]  # noqa: E731
    windows = {label: [0, 0] for label in CLASSES}
    for row in rows:
        windows[truth(row)][0] += row[3] == truth(row)
        windows[truth(row)][1] += 1
    files = {label: [0, 0] for label in CLASSES}
    for row in summary:
        files[truth(row)][0] += row[1] == truth(row)
        files[truth(row)][1] += 1
    return windows, files


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="", help="model file (default: the CLI's built-in model)")
    parser.add_argument("--clips", type=int, default=40, help="clips per class")
    parser.add_argument("--seed", type=int, default=99)
    parser.add_argument("--report", default="docs/MODEL.md")
    args = parser.parse_args()
    windows, files = evaluate(args.model, args.clips, args.seed)
    total_w = sum(c for c, _ in windows.values()) / max(1, sum(n for _, n in windows.values()))
    total_f = sum(c for c, _ in files.values()) / max(1, sum(n for _, n in files.values()))
    lines = [BEGIN, "## Unseen sound sources", "",
             f"Written by `python3 -m sonotype.evaluate`: {args.clips} clips of {SECONDS:.0f} s per class from sources never used in "
             "training — instruments from the TimGM6mb soundfont instead of FluidR3, speech from flite instead of espeak-ng, "
             "noise and silence from another seed — classified by `sonotype classify` (1 s windows every 0.25 s; "
             "file = the mean over its windows).", "",
             f"Window accuracy **{total_w * 100:.1f}%**, file accuracy **{total_f * 100:.1f}%**.", "",
             "| class | window accuracy | file accuracy |", "|---|---|---|"]
    for label in CLASSES:
        (cw, nw), (cf, nf) = windows[label], files[label]
        lines.append(f"| {label} | {cw / max(nw, 1) * 100:.0f}% | {cf}/{nf} |")
    lines += ["", END]
    section = "\n".join(lines)
    report = open(args.report).read() if os.path.exists(args.report) else ""
    if BEGIN in report:
        report = report[:report.index(BEGIN)] + section + report[report.index(END) + len(END):]
    else:
        report = report.rstrip("\n") + "\n\n" + section + "\n"
    with open(args.report, "w") as f:
        f.write(report)
    print(section)


if __name__ == "__main__":
    main()
