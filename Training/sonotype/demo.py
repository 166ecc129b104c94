"""The README's main job (until the built-in model exists): export the seed-000 audio transformer
with its log-mel front end, run it with the C++ engine through `sonotype run-model` and print engine
and PyTorch side by side, then classify a few generated audio files with `sonotype classify`.

    PYTHONPATH=Training python3 -m sonotype.demo [--out build/demo]
"""

import argparse
import os
import subprocess
import time

import numpy as np
import torch

from .engine_cli import cli_path, run_model
from .export import export_model
from .frontend import LogMelFrontend
from .models.audio_transformer import AudioTransformer
from .testing.parity import compare

LABELS = ["silence", "noise", "speech", "drums", "piano", "organ", "guitar", "bass", "strings", "brass", "woodwind", "synth"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="build/demo", help="folder for the model file and arrays")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    torch.manual_seed(0)
    model = AudioTransformer(n_mels=64, d_model=64, n_head=4, n_layers=2, n_classes=len(LABELS)).eval()
    x = torch.randn(1, 64, 101)  # one analysis window of log-mel features (untrained model: random input)
    path = os.path.join(args.out, "seed000.safetensors")
    frontend = LogMelFrontend(sample_rate=16000, n_fft=400, hop_length=160, n_mels=64, log={"type": "db", "top_db": 80.0},
                              mean=-40.0, std=20.0, window_samples=16000)
    summary = export_model(model, x, path, labels=LABELS, frontend=frontend)
    print(f"exported {path}: input {summary['input_shape']} -> output {summary['output_shapes'][0]}, "
          f"{summary['num_parameters']} parameters\n")
    print(subprocess.run([cli_path(), "inspect", path], capture_output=True, text=True, check=True).stdout)

    with torch.no_grad():
        reference = torch.softmax(model(x), dim=-1)[0].numpy()
        logits_torch = model(x).numpy()
    start = time.perf_counter()
    logits_engine = run_model(path, x.numpy())
    elapsed = time.perf_counter() - start
    engine = torch.softmax(torch.from_numpy(logits_engine), dim=-1)[0].numpy()

    print(f"{'class':<10} {'engine logit':>14} {'PyTorch logit':>14} {'probability':>12}")
    for i, label in enumerate(LABELS):
        print(f"{label:<10} {logits_engine[0, i]:>14.7f} {logits_torch[0, i]:>14.7f} {engine[i]:>12.4f}")
    parity = compare(logits_engine, logits_torch)
    print(f"\nmax abs error {parity.max_abs:.2e}, max rel error {parity.max_rel:.2e} "
          f"(engine top class: {LABELS[int(np.argmax(engine))]}, PyTorch: {LABELS[int(np.argmax(reference))]}); "
          f"`sonotype run-model` took {elapsed * 1000:.0f} ms including process start")

    audio = os.path.join(args.out, "audio")
    os.makedirs(audio, exist_ok=True)
    write_examples(audio)
    command = [cli_path(), "classify", "--model", path, audio]
    print("\n$ sonotype classify --model " + path + " " + audio)
    print(subprocess.run(command, capture_output=True, text=True, check=True).stdout, end="")


def write_examples(folder: str) -> None:
    """Two short files at host rates (a chord at 44.1 kHz stereo, noise at 48 kHz) to classify."""
    import wave

    rng = np.random.default_rng(0)
    t = np.arange(int(44100 * 1.6)) / 44100
    chord = sum(0.2 * np.sin(2 * np.pi * f * t) for f in (261.6, 329.6, 392.0)) * np.exp(-t)
    noise = 0.2 * rng.standard_normal(int(48000 * 1.3))
    for name, samples, rate, channels in (("chord.wav", chord, 44100, 2), ("noise.wav", noise, 48000, 1)):
        pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2")
        with wave.open(os.path.join(folder, name), "wb") as f:
            f.setnchannels(channels)
            f.setsampwidth(2)
            f.setframerate(rate)
            f.writeframes(np.repeat(pcm[:, None], channels, axis=1).tobytes())


if __name__ == "__main__":
    main()
