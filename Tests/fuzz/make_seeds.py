"""Writes the committed seed corpora of the fuzz targets (Tests/fuzz/corpus/<target>/).

Run from the repository root:  PYTHONPATH=Training /usr/bin/python3 Tests/fuzz/make_seeds.py
Every seed is small (a few KB) so that libFuzzer mutates it quickly; the models are exported by the
project's own exporter, so the engine target starts from files that pass validation and run.
"""

import base64
import io
import json
import math
import os
import struct
import sys
import wave
from xml.sax.saxutils import quoteattr

import numpy as np
import torch
from torch import nn

from sonotype.export import export_model
from sonotype.models.audio_transformer import AudioTransformer

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def out(target: str, name: str) -> str:
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)


# ----- engine: tiny models covering the op families ----------------------------------------------
class Pooling(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.bn = nn.BatchNorm2d(2)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x.unsqueeze(1))))
        a = nn.functional.max_pool2d(y, 2, ceil_mode=True)
        b = nn.functional.avg_pool2d(y, (2, 1))
        c = nn.functional.adaptive_avg_pool2d(a, 1).flatten(1)
        return torch.cat([c, b.mean(dim=(2, 3))], dim=1).softmax(-1)


class Shapes(nn.Module):
    def forward(self, x):
        y = x[:, 1:5:2, :].permute(0, 2, 1)
        y = nn.functional.pad(y, (1, 1))
        z = torch.where(y > 0, y, y * 0.1).clamp(-2.0, 2.0)
        w = z.expand(2, -1, -1).sum(0, keepdim=True)
        v = torch.index_select(w, 2, torch.tensor([0, 2]))
        return torch.cat([v.reshape(1, -1), nn.functional.log_softmax(v.reshape(1, -1), -1)], 1)


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(6)
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        y = nn.functional.gelu(self.ln(x))
        y = nn.functional.leaky_relu(self.fc(y)) + torch.sigmoid(y[..., :3])
        return torch.stack([y.amax(1), y.var(1), y.argmax(1).float()], 1).flatten(1)


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, 3, num_layers=2, bidirectional=True, batch_first=True)
        self.lstm = nn.LSTM(6, 4, proj_size=2)

    def forward(self, x):
        y, h = self.gru(x)
        z, (hn, cn) = self.lstm(y.transpose(0, 1))
        return torch.cat([z.mean(0), hn[0], cn[0], h[-1]], 1)


class Spectral(nn.Module):
    """Waveform in (a waveform front end): stft (reflect pad), |z|^2, mel product, log10, replicate pad."""

    def __init__(self):
        super().__init__()
        import torchaudio
        self.spectrogram = torchaudio.transforms.MelSpectrogram(sample_rate=8000, n_fft=32, hop_length=8, n_mels=4)
        self.to_db = torchaudio.transforms.AmplitudeToDB(top_db=80.0)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        y = self.to_db(self.spectrogram(x))  # [1, 4, 9]
        y = nn.functional.pad(y, (2, 2), mode="replicate").mean(-1)
        return self.fc(y)


class ZeroD(nn.Module):
    """0-d values where PyTorch takes dim 0 or -1: softmax, cumsum, reductions, argmax, topk."""

    def forward(self, x):
        s = x.sum()
        return x + torch.softmax(s, 0) + torch.cumsum(x.amax(), 0) + torch.argmax(s, 0).float() + torch.topk(x.mean(), 1, 0)[0]


class Glue(nn.Module):
    """Strided views, gathers, top-k, cumulative sums and reflect padding."""

    def forward(self, x):
        frames = x.reshape(-1).as_strided((3, 4), (2, 1))
        picked = x.reshape(-1)[torch.tensor([5, 0, 3])]
        top = torch.topk(x, 2, dim=-1)[0]
        y = nn.functional.pad(x.unsqueeze(0), (2, 2), mode="reflect").squeeze(0)
        return torch.cat([frames.sum(1), picked, top.flatten(), torch.cumsum(y, -1).mean(-1).flatten()]).unsqueeze(0)


MODELS = {
    "transformer": (lambda: AudioTransformer(n_mels=8, d_model=8, n_head=2, n_layers=1, n_classes=3, max_tokens=8), (1, 8, 6)),
    "mlp": (lambda: nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2), nn.Softmax(-1)), (1, 4)),
    "pooling": (Pooling, (1, 4, 5)),
    "shapes": (Shapes, (1, 6, 3)),
    "norms": (Norms, (1, 4, 6)),
    "recurrent": (Recurrent, (1, 5, 4)),
    "spectral": (Spectral, (1, 64)),
    "zero_d": (ZeroD, (2, 3)),
    "glue": (Glue, (2, 6)),
    "logmel_frontend": (lambda: AudioTransformer(n_mels=8, d_model=8, n_head=2, n_layers=1, n_classes=3, max_tokens=8), (1, 8, 6)),
}

# The front ends the seeds carry (engine/file/FrontendSettings.h): a log-mel one with its stored window and
# filterbank, and a waveform one for the model that computes its own features.
FRONTENDS = {
    "logmel_frontend": {"sample_rate": 8000, "n_fft": 64, "hop_length": 32, "n_mels": 8, "log": {"type": "db", "top_db": 80.0},
                        "mean": -40.0, "std": 20.0},
    "spectral": {"type": "waveform", "sample_rate": 8000, "window_samples": 64},
}


def write_models() -> None:
    for index, (name, (factory, shape)) in enumerate(MODELS.items()):
        torch.manual_seed(100 + index)
        model = factory().eval()
        x = torch.randn(*shape)
        with torch.no_grad():
            y = model(x)
        labels = [f"c{i}" for i in range(y.shape[-1])] if y.dim() == 2 else None
        export_model(model, x, out("engine", f"{name}.safetensors"), labels=labels, frontend=FRONTENDS.get(name))


# ----- npy ---------------------------------------------------------------------------------------
def write_npy() -> None:
    rng = np.random.default_rng(7)
    arrays = {
        "f4_3d": rng.standard_normal((1, 4, 5)).astype("<f4"),
        "f8_2d": rng.standard_normal((2, 3)).astype("<f8"),
        "f4_0d": np.array(1.5, dtype="<f4"),
        "f4_empty": np.zeros((0, 3), dtype="<f4"),
        "f4_special": np.array([np.nan, np.inf, -np.inf, -0.0, 1e-45], dtype="<f4"),
    }
    for name, array in arrays.items():
        np.save(out("npy", f"{name}.npy"), array)
    # Versions 2.0 and 3.0 (4-byte header length) as numpy.lib.format writes them.
    for version in ((2, 0), (3, 0)):
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, arrays["f4_3d"], version=version)
        with open(out("npy", f"f4_v{version[0]}.npy"), "wb") as f:
            f.write(buffer.getvalue())


# ----- audio files -------------------------------------------------------------------------------
def pcm16(samples: np.ndarray) -> bytes:
    return (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()


def write_audio() -> None:
    t = np.arange(400) / 8000.0
    tone = 0.5 * np.sin(2 * np.pi * 440 * t)
    for channels, rate in ((1, 8000), (2, 22050)):
        with wave.open(out("audio_file", f"pcm16_{channels}ch.wav"), "wb") as w:
            w.setnchannels(channels)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes(pcm16(np.repeat(tone[:, None], channels, 1).ravel()))
    # WAV float32 (format 3) and 24-bit, written by hand: RIFF chunks.
    def riff(fmt_tag: int, bits: int, data: bytes, channels: int = 1, rate: int = 16000) -> bytes:
        block = channels * bits // 8
        fmt = struct.pack("<HHIIHH", fmt_tag, channels, rate, rate * block, block, bits)
        body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
        return b"RIFF" + struct.pack("<I", len(body)) + body
    with open(out("audio_file", "float32.wav"), "wb") as f:
        f.write(riff(3, 32, tone[:200].astype("<f4").tobytes()))
    pcm24 = b"".join(int(v * 8388607).to_bytes(3, "little", signed=True) for v in tone[:200])
    with open(out("audio_file", "pcm24.wav"), "wb") as f:
        f.write(riff(1, 24, pcm24))
    # A header that claims more data than the file holds (the truncation path).
    with open(out("audio_file", "truncated.wav"), "wb") as f:
        f.write(riff(1, 16, pcm16(tone[:100]))[:-40])
    # AIFF: FORM/COMM/SSND, big-endian.
    data = (np.clip(tone[:200], -1, 1) * 32767).astype(">i2").tobytes()
    rate80 = bytes.fromhex("400BFA00000000000000")  # 8000 Hz as an 80-bit extended float
    comm = struct.pack(">hIh", 1, 200, 16) + rate80
    ssnd = struct.pack(">II", 0, 0) + data
    body = b"AIFF" + b"COMM" + struct.pack(">I", len(comm)) + comm + b"SSND" + struct.pack(">I", len(ssnd)) + ssnd
    with open(out("audio_file", "pcm16.aiff"), "wb") as f:
        f.write(b"FORM" + struct.pack(">I", len(body)) + body)
    # FLAC and Ogg Vorbis through sox, when it is there.
    wav = out("audio_file", "pcm16_1ch.wav")
    for extension in ("flac", "ogg"):
        target = out("audio_file", f"tone.{extension}")
        if os.system(f"sox '{wav}' -C 0 '{target}' 2>/dev/null") != 0:
            print(f"sox could not write {target}", file=sys.stderr)
    # MP3 through lame (CBR with its Xing/LAME tag: encoder delay and padding), when it is there.
    target = out("audio_file", "tone.mp3")
    if os.system(f"lame --quiet -b 32 '{wav}' '{target}' 2>/dev/null") != 0:
        print(f"lame could not write {target}", file=sys.stderr)
    # Ogg Opus through opusenc (OpusHead with its pre-skip, OpusTags, audio pages), when it is there.
    target = out("audio_file", "tone.opus")
    if os.system(f"opusenc --quiet --bitrate 16 '{wav}' '{target}' 2>/dev/null") != 0:
        print(f"opusenc could not write {target}", file=sys.stderr)


# ----- plugin state ------------------------------------------------------------------------------
def taught_examples(hits: bool) -> str:
    """A Teach view's classes as the state keeps them (teach::encodeExampleSet): two classes, each
    one short example of 16-bit samples (a decaying click, so that hits mode finds a hit)."""
    rate = 8000  # the lowest a set keeps, and a quarter second: a seed of a few KB
    classes = []
    for name, period in (("kick", 40), ("hat", 3)):
        samples = [int(20000 * math.exp(-(i - 400) / 200) * math.sin(2 * math.pi * i / period)) if i >= 400 else 0 for i in range(rate // 4)]
        pcm = base64.b64encode(struct.pack(f"<{len(samples)}h", *samples)).decode()
        classes.append({"name": name, "examples": [{"source": "input 1", "pcm16": pcm}]})
    return json.dumps({"sample_rate": rate, "unknown_below": 0.5, "hits": hits, "learned_on": "built-in#0123456789abcdef",
                       "classes": classes}, separators=(",", ":"))


def state_xml(model_path: str = "", disabled: str = "", osc: bool = False, taught: str = "") -> str:
    taught_attributes = f' taught={quoteattr(taught)} taughtEnabled="1"' if taught else ""
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<SonotypeState modelPath="{model_path}" disabledClasses="{disabled}" oscEnabled="{int(osc)}" '
            f'oscHost="127.0.0.1" oscPort="9000"{taught_attributes}>\n'
            '  <PARAM id="hop" value="0.25"/>\n  <PARAM id="smoothing" value="0.25"/>\n'
            '  <PARAM id="threshold" value="50.0"/>\n  <PARAM id="midiOut" value="1.0"/>\n'
            '  <PARAM id="baseNote" value="36.0"/>\n</SonotypeState>\n')


def juce_binary(xml: str) -> bytes:
    """As juce::AudioProcessor::copyXmlToBinary: magic, length, UTF-8 text and its terminating 0."""
    text = xml.encode() + b"\0"
    return struct.pack("<II", 0x21324356, len(text)) + text


def write_states() -> None:
    states = {
        "default": state_xml(),
        "disabled": state_xml(disabled="piano&#10;drums"),
        "osc": state_xml(osc=True),
        "missing_model": state_xml(model_path="/nonexistent/model.safetensors"),
        "tiny_model": state_xml(model_path="Tests/fuzz/corpus/engine/mlp.safetensors"),
        "taught": state_xml(taught=taught_examples(hits=False)),
        "taught_hits": state_xml(taught=taught_examples(hits=True)),
    }
    for name, xml in states.items():
        # The harness passes each input as it is and, wrapped as above, as XML text: both forms seed.
        with open(out("plugin_state", f"{name}.bin"), "wb") as f:
            f.write(juce_binary(xml))
        with open(out("plugin_state", f"{name}.xml"), "w") as f:
            f.write(xml)


if __name__ == "__main__":
    write_models()
    write_npy()
    write_audio()
    write_states()
