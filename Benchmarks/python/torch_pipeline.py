"""The PyTorch pipeline `sonotype classify` is compared with: the same work on the same files, in
PyTorch on one thread. For each WAV file: samples -> 16 kHz (torchaudio.functional.resample) -> for
every window k covering [k * hop, k * hop + 1 s) (the CLI's windows at the default hop; a file shorter
than one window is zero-padded to one) the torchaudio log-mel front end of the model
(Training/sonotype/frontend.py, settings from the model file) -> the built-in model, batch 1, under
torch.inference_mode(). Prints one JSON object: audio seconds, windows, seconds spent (the files read,
resampled, featurised and classified; the interpreter's start and imports excluded).

  torch_pipeline.py FOLDER [HOP_SECONDS]
"""

import json
import os
import sys
import time
import wave

import numpy as np
import torch

torch.set_num_threads(1)
torch.set_num_interop_threads(1)

import torchaudio  # noqa: E402

import zoo  # noqa: E402
from sonotype.export.safetensors_io import read_safetensors  # noqa: E402
from sonotype.frontend import frontend_from_settings  # noqa: E402


def read_wav(path: str):
    with wave.open(path, "rb") as f:
        if f.getsampwidth() != 2:
            raise SystemExit(f"error: {path}: only 16-bit WAV files are generated for this benchmark")
        frames = np.frombuffer(f.readframes(f.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
        return frames.reshape(-1, f.getnchannels()).mean(axis=1), f.getframerate()


def main():
    folder = sys.argv[1]
    hop_seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 0.25
    start = time.perf_counter()
    model = zoo.builtin_model().eval()
    _, metadata = read_safetensors(zoo.BUILTIN_MODEL)
    settings = json.loads(metadata["frontend"])
    frontend = frontend_from_settings(settings).eval()
    rate = settings["sample_rate"]
    window = settings["window_samples"]
    hop = int(round(hop_seconds * rate))
    audio_seconds, windows = 0.0, 0
    with torch.inference_mode():
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".wav"):
                continue
            samples, file_rate = read_wav(os.path.join(folder, name))
            audio_seconds += len(samples) / file_rate
            signal = torch.from_numpy(samples)
            if file_rate != rate:
                signal = torchaudio.functional.resample(signal, file_rate, rate)
            if signal.numel() < window:
                signal = torch.nn.functional.pad(signal, (0, window - signal.numel()))
            for begin in range(0, signal.numel() - window + 1, hop):
                features = frontend(signal[begin: begin + window])
                torch.softmax(model(features.unsqueeze(0)), dim=-1)
                windows += 1
    print(json.dumps({"audio_seconds": audio_seconds, "windows": windows, "seconds": time.perf_counter() - start}))


if __name__ == "__main__":
    main()
