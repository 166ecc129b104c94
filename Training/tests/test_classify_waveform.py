"""A model that computes its own features (torchaudio MelSpectrogram + AmplitudeToDB inside
`forward`, taking the raw waveform) exported without `frontend=`, then run by `sonotype classify`
and described by `sonotype inspect`."""

import json

import numpy as np
import pytest
import torch
import torch.nn as nn
import torchaudio

from sonotype.export import export_model
from sonotype.export.safetensors_io import read_safetensors

from test_classify import parse_csv, sonotype, tone, write_wav

LABELS = ["low", "mid", "high"]


class WaveformCnn(nn.Module):
    """Waveform in, log-mel inside, a small CNN on top: how public code writes it."""

    def __init__(self, sample_rate=16000, n_classes=3):
        super().__init__()
        self.mel = torchaudio.transforms.MelSpectrogram(sample_rate=sample_rate, n_fft=400, hop_length=160, n_mels=32)
        self.to_db = torchaudio.transforms.AmplitudeToDB(top_db=80)
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.head = nn.Linear(16, n_classes)

    def forward(self, waveform):
        x = self.to_db(self.mel(waveform))          # [1, 32, frames]
        x = (x + 40.0) / 20.0
        x = x.unsqueeze(1)                          # [1, 1, 32, frames]
        x = nn.functional.relu(self.bn1(self.conv1(x)), inplace=True)
        x = nn.functional.max_pool2d(x, 2)
        x = torch.relu(self.conv2(x))
        x = x.mean(dim=(2, 3))
        return self.head(x)


@pytest.fixture(scope="module")
def waveform_model(tmp_path_factory):
    torch.manual_seed(16)
    net = WaveformCnn().eval()
    with torch.no_grad():
        net.bn1.running_mean.uniform_(-0.2, 0.2)
        net.bn1.running_var.uniform_(0.5, 2.0)
    path = tmp_path_factory.mktemp("waveform") / "waveform_cnn.safetensors"
    export_model(net, torch.zeros(1, 16000), str(path), labels=LABELS)
    return path, net


def test_the_model_file_has_a_waveform_front_end(waveform_model):
    path, _ = waveform_model
    _, metadata = read_safetensors(str(path))
    assert json.loads(metadata["frontend"]) == {"type": "waveform", "sample_rate": 16000, "window_samples": 16000}
    assert '"op":"stft"' in metadata["graph"]


def test_inspect_says_the_features_are_computed_inside_the_model(waveform_model):
    path, _ = waveform_model
    result = sonotype("inspect", path)
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if line.startswith("features:"))
    assert "computed inside the model (1 stft node)" in line
    assert "waveform input 0 [1, 16000]" in line and "16000 Hz" in line and "16000 samples" in line


def test_classify_feeds_the_raw_waveform_and_matches_pytorch(waveform_model, tmp_path):
    path, net = waveform_model
    x = tone(16000, 2.1, 300.0) + 0.1 * np.random.default_rng(1).standard_normal(int(16000 * 2.1))
    wav = write_wav(tmp_path / "w.wav", x, 16000, float32=True)
    result = sonotype("classify", "--grid", "--model", path, wav)  # no frontend argument anywhere
    assert result.returncode == 0, result.stderr
    rows = parse_csv(result.stdout)
    assert rows[0] == ["file", "start_s", "end_s", "label", "confidence", *LABELS, "error"]
    assert len(rows) == 1 + 5
    samples = x.astype(np.float32)
    spread = 0.0
    for k, row in enumerate(rows[1:]):
        assert float(row[1]) == pytest.approx(0.25 * k) and float(row[2]) == pytest.approx(0.25 * k + 1.0)
        probabilities = np.array([float(v) for v in row[5:-1]])
        window = torch.from_numpy(samples[4000 * k: 4000 * k + 16000]).unsqueeze(0)
        with torch.no_grad():
            expected = torch.softmax(net(window), -1)[0].numpy()
        assert np.abs(probabilities - expected).max() <= 2e-6  # 6 printed decimals
        assert row[3] == LABELS[int(expected.argmax())]
        spread = max(spread, float(expected.max() - expected.min()))
    assert spread > 0.01  # the classes differ: the comparison above is not of constants


def test_classify_resamples_to_the_model_rate(waveform_model, tmp_path):
    path, net = waveform_model
    x = tone(44100, 1.6, 300.0)
    wav = write_wav(tmp_path / "w44.wav", x, 44100, float32=True)
    result = sonotype("classify", "--grid", "--model", path, wav)
    assert result.returncode == 0, result.stderr
    rows = parse_csv(result.stdout)
    assert len(rows) == 1 + 3  # windows at 0, 0.25, 0.5 s of 1 s fit in 1.6 s
    # The same tone at the model's rate: the resampled windows classify as it does.
    reference = torch.from_numpy(tone(16000, 1.0, 300.0).astype(np.float32)).unsqueeze(0)
    with torch.no_grad():
        expected = torch.softmax(net(reference), -1)[0].numpy()
    probabilities = np.array([float(v) for v in rows[1][5:-1]])
    assert np.abs(probabilities - expected).max() < 0.02


def test_features_command_refuses_a_waveform_model(waveform_model, tmp_path):
    path, _ = waveform_model
    np.save(tmp_path / "in.npy", np.zeros(16000, dtype=np.float32))
    result = sonotype("features", "--model", path, "--input", tmp_path / "in.npy", "--output", tmp_path / "out.npy")
    assert result.returncode != 0
    assert "computes its features inside the model" in result.stderr


class RawConv(nn.Module):
    """A raw-waveform CNN with no spectral transform at all: the sample rate comes from export_model."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 8, 64, stride=16)
        self.head = nn.Linear(8, 3)

    def forward(self, x):  # [1, 1, samples]
        return self.head(torch.relu(self.conv(x)).mean(dim=-1))


def test_a_raw_waveform_model_runs_with_the_rate_given_at_export(tmp_path):
    torch.manual_seed(5)
    net = RawConv().eval()
    path = tmp_path / "raw.safetensors"
    export_model(net, torch.zeros(1, 1, 8000), str(path), labels=LABELS, sample_rate=8000)
    assert json.loads(read_safetensors(str(path))[1]["frontend"]) == {"type": "waveform", "sample_rate": 8000, "window_samples": 8000}
    inspect = sonotype("inspect", path)
    assert "computed inside the model (0 stft nodes); waveform input 0 [1, 1, 8000]" in inspect.stdout
    x = tone(8000, 1.5, 440.0) + 0.05 * np.random.default_rng(2).standard_normal(12000)
    wav = write_wav(tmp_path / "raw.wav", x, 8000, float32=True)
    result = sonotype("classify", "--grid", "--model", path, "--hop", "0.5", wav)
    assert result.returncode == 0, result.stderr
    rows = parse_csv(result.stdout)
    assert len(rows) == 1 + 2  # windows at 0 and 0.5 s of 1 s fit in 1.5 s
    samples = x.astype(np.float32)
    for k, row in enumerate(rows[1:]):
        window = torch.from_numpy(samples[4000 * k: 4000 * k + 8000]).reshape(1, 1, -1)
        with torch.no_grad():
            expected = torch.softmax(net(window), -1)[0].numpy()
        assert np.abs(np.array([float(v) for v in row[5:-1]]) - expected).max() <= 2e-6


class ScoredConv(RawConv):
    """RawConv whose output ends as public models end theirs: logits, softmax, log-softmax or sigmoid."""

    def __init__(self, ending):
        super().__init__()
        self.ending = ending

    def forward(self, x):
        logits = super().forward(x)
        if self.ending == "softmax":
            return logits.softmax(-1)
        if self.ending == "log_softmax":
            return torch.log_softmax(logits, dim=-1)
        if self.ending == "sigmoid":
            return torch.sigmoid(logits)
        return logits


@pytest.mark.parametrize("ending,shown,inspect_says", [
    ("logits", lambda y: torch.softmax(y, -1), "output 0 is logits"),
    ("softmax", lambda y: y, "ends in a softmax"),
    ("log_softmax", lambda y: y.exp(), "ends in a log-softmax"),
    ("sigmoid", lambda y: y, "ends in a sigmoid"),
])
def test_classify_shows_the_model_scores_without_a_second_softmax(ending, shown, inspect_says, tmp_path):
    """A model that ends in a softmax (or log-softmax, or sigmoid for multi-label) is shown as it is:
    the probabilities classify prints are PyTorch's, not a softmax of them."""
    torch.manual_seed(7)
    net = ScoredConv(ending).eval()
    path = tmp_path / f"{ending}.safetensors"
    export_model(net, torch.zeros(1, 1, 8000), str(path), labels=LABELS, sample_rate=8000)
    assert inspect_says in sonotype("inspect", path).stdout
    x = tone(8000, 1.0, 300.0) + 0.2 * np.random.default_rng(3).standard_normal(8000)
    wav = write_wav(tmp_path / "x.wav", x, 8000, float32=True)
    result = sonotype("classify", "--grid", "--model", path, wav)
    assert result.returncode == 0, result.stderr
    rows = parse_csv(result.stdout)
    with torch.no_grad():
        expected = shown(net(torch.from_numpy(x.astype(np.float32)).reshape(1, 1, -1)))[0].numpy()
    assert np.abs(np.array([float(v) for v in rows[1][5:-1]]) - expected).max() <= 2e-6
    assert expected.max() - expected.min() > 0.01
