"""`sonotype classify`: output format, windows, parity with PyTorch end to end, parallel and sharded
runs, and every kind of bad input."""

import csv
import io
import json
import struct
import subprocess

import numpy as np
import pytest
import torch

from sonotype.engine_cli import cli_path
from sonotype.export import export_model
from sonotype.models.audio_transformer import AudioTransformer
from sonotype.testing.fixtures import TINY_FRONTEND

LABELS = ["speech", "drums", "piano", "noise"]


def sonotype(*args):
    return subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True)


def write_wav(path, samples, rate, float32=False):
    """samples: [frames] or [frames, channels]."""
    samples = np.asarray(samples, dtype=np.float32)
    if samples.ndim == 1:
        samples = samples[:, None]
    channels = samples.shape[1]
    if float32:
        data, fmt, bits = samples.astype("<f4").tobytes(), 3, 32
    else:
        data, fmt, bits = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes(), 1, 16
    block = channels * bits // 8
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE"
    header += b"fmt " + struct.pack("<IHHIIHH", 16, fmt, channels, rate, rate * block, block, bits)
    header += b"data" + struct.pack("<I", len(data))
    path.write_bytes(header + data)
    return path


def tone(rate, seconds, freq=440.0, channels=1):
    t = np.arange(int(rate * seconds)) / rate
    x = 0.5 * np.sin(2 * np.pi * freq * t) + 0.05 * np.sin(2 * np.pi * 3 * freq * t)
    return np.repeat(x[:, None], channels, axis=1) if channels > 1 else x


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    torch.manual_seed(3)
    net = AudioTransformer(n_mels=32, d_model=32, n_head=4, n_layers=1, n_classes=4).eval()
    path = tmp_path_factory.mktemp("model") / "tiny.safetensors"
    export_model(net, torch.zeros(1, 32, 101), str(path), labels=LABELS, frontend=TINY_FRONTEND)
    return path, net


def parse_csv(text):
    return list(csv.reader(io.StringIO(text)))


def test_csv_rows_and_parity_with_pytorch(model, tmp_path):
    path, net = model
    x = tone(16000, 2.1, 300.0) + 0.1 * np.random.default_rng(0).standard_normal(int(16000 * 2.1))
    wav = write_wav(tmp_path / "a.wav", x, 16000, float32=True)
    result = sonotype("classify", "--model", path, wav)
    assert result.returncode == 0, result.stderr
    rows = parse_csv(result.stdout)
    assert rows[0] == ["file", "start_s", "end_s", "label", "confidence", *LABELS, "padded", "tail", "error"]
    # windows at 0, 0.25, ..., 1.0 s of 1 s fit in 2.1 s; the last 0.1 s gets a window aligned to the end
    assert len(rows) == 1 + 5 + 1
    assert [row[-3:] for row in rows[1:]] == [["0", "0", ""]] * 5 + [["0", "1", ""]]
    samples = x.astype(np.float32)
    for k, row in enumerate(rows[1:]):
        start = 0.25 * k if k < 5 else 1.1
        assert row[0] == str(wav)
        assert float(row[1]) == pytest.approx(start) and float(row[2]) == pytest.approx(start + 1.0)
        probabilities = np.array([float(v) for v in row[5:-3]])
        window = torch.from_numpy(samples[round(16000 * start): round(16000 * start) + 16000])
        with torch.no_grad():
            expected = torch.softmax(net(TINY_FRONTEND(window).unsqueeze(0)), -1)[0].numpy()
        # 6 printed decimals; the tail window's features are computed apart from the stream's
        assert np.abs(probabilities - expected).max() <= (2e-6 if k < 5 else 2e-5)
        assert row[3] == LABELS[int(np.argmax(probabilities))]
        assert float(row[4]) == pytest.approx(probabilities.max())


def test_formats_and_folders(model, tmp_path):
    path, _ = model
    folder = tmp_path / "library"
    (folder / "nested").mkdir(parents=True)
    write_wav(folder / "mono16k.wav", tone(16000, 1.5), 16000)
    write_wav(folder / "nested" / "stereo44k.wav", tone(44100, 1.2, channels=2), 44100)
    write_wav(tmp_path / "eight_channel_192k.wav", tone(192000, 1.1, channels=8), 192000)
    subprocess.run(["sox", str(folder / "mono16k.wav"), str(folder / "nested" / "c.flac")], check=True)
    subprocess.run(["sox", str(folder / "mono16k.wav"), "-r", "48000", str(folder / "d.ogg")], check=True)
    subprocess.run(["sox", str(folder / "mono16k.wav"), str(folder / "e.aiff")], check=True)
    (folder / "notes.txt").write_text("not audio")
    result = sonotype("classify", "--model", path, "--summary", folder, tmp_path / "eight_channel_192k.wav")
    assert result.returncode == 0, result.stderr
    rows = parse_csv(result.stdout)
    assert rows[0] == ["file", "label", "share", *LABELS, "duration_s", "windows", *[f"mean_{c}" for c in LABELS], "error"]
    names = [row[0].split("/")[-1] for row in rows[1:]]
    assert sorted(names) == sorted(["mono16k.wav", "stereo44k.wav", "c.flac", "d.ogg", "e.aiff", "eight_channel_192k.wav"])
    for row in rows[1:]:
        assert sum(float(v) for v in row[3:7]) <= 1.0 + 2e-3  # shares of the time: segments never overlap
        assert abs(sum(float(v) for v in row[9:13]) - 1.0) < 1e-4  # mean probabilities


def test_summary_keeps_the_mean_of_the_windows(model, tmp_path):
    path, _ = model
    wav = write_wav(tmp_path / "a.wav", tone(22050, 2.1, 1000.0), 22050)
    windows = parse_csv(sonotype("classify", "--model", path, wav).stdout)[1:]
    assert len(windows) == 6 and windows[-1][-2] == "1"  # the tail window counts too
    summary = parse_csv(sonotype("classify", "--model", path, "--summary", wav).stdout)[1]
    means = np.mean([[float(v) for v in row[5:9]] for row in windows], axis=0)
    assert np.abs(means - np.array([float(v) for v in summary[9:13]])).max() <= 2e-6
    assert summary[7:9] == ["2.100", "6"]


def test_json_output(model, tmp_path):
    path, _ = model
    wav = write_wav(tmp_path / "a.wav", tone(16000, 1.3), 16000)
    rows = json.loads(sonotype("classify", "--model", path, "--format", "json", wav).stdout)
    assert len(rows) == 3 and rows[-1]["tail"] and rows[-1]["end_s"] == 1.3
    assert set(rows[0]) == {"file", "start_s", "end_s", "label", "confidence", "probabilities", "padded", "tail"}
    assert list(rows[0]["probabilities"]) == LABELS
    grid = json.loads(sonotype("classify", "--model", path, "--format", "json", "--grid", wav).stdout)
    assert len(grid) == 2 and set(grid[0]) == {"file", "start_s", "end_s", "label", "confidence", "probabilities"}
    summary = json.loads(sonotype("classify", "--model", path, "--format", "json", "--summary", wav).stdout)
    assert len(summary) == 1
    assert set(summary[0]) == {"file", "label", "share", "shares", "duration_s", "windows", "mean_probabilities"}
    assert list(summary[0]["shares"]) == LABELS and list(summary[0]["mean_probabilities"]) == LABELS
    assert summary[0]["duration_s"] == 1.3 and summary[0]["windows"] == 3


def test_short_file_is_padded_to_one_window_that_ends_at_its_end(model, tmp_path):
    path, _ = model
    wav = write_wav(tmp_path / "short.wav", tone(16000, 0.3), 16000)
    result = sonotype("classify", "--model", path, wav)
    assert result.returncode == 0, result.stderr
    rows = parse_csv(result.stdout)[1:]
    assert len(rows) == 1 and rows[0][1:3] == ["0.000", "0.300"] and rows[0][-3:] == ["1", "0", ""]
    grid = parse_csv(sonotype("classify", "--model", path, "--grid", wav).stdout)[1:]
    assert len(grid) == 1 and grid[0][1:3] == ["0.000", "1.000"] and grid[0][3:-1] == rows[0][3:-3]


def test_jobs_and_shards_are_deterministic(model, tmp_path):
    path, _ = model
    for i in range(7):
        write_wav(tmp_path / f"f{i}.wav", tone(16000, 1.2, 200.0 + 150 * i), 16000)
    serial = sonotype("classify", "--model", path, "--jobs", "1", tmp_path)
    parallel = sonotype("classify", "--model", path, "--jobs", "4", tmp_path)
    assert serial.returncode == 0 and serial.stdout == parallel.stdout
    shards = [parse_csv(sonotype("classify", "--model", path, "--shard", f"{i}/3", tmp_path).stdout) for i in range(3)]
    assert all(shard[0] == shards[0][0] for shard in shards)
    rows = [row for shard in shards for row in shard[1:]]
    assert sorted(rows) == sorted(parse_csv(serial.stdout)[1:])
    files = [{row[0] for row in shard[1:]} for shard in shards]
    assert not (files[0] & files[1]) and not (files[1] & files[2]) and all(files)


def test_bad_inputs(model, tmp_path):
    path, _ = model
    good = write_wav(tmp_path / "good.wav", tone(16000, 1.2), 16000)
    empty = write_wav(tmp_path / "empty.wav", np.zeros(0), 16000)
    fake = tmp_path / "fake.wav"
    fake.write_text("this is not audio at all, just text in a file called .wav")
    truncated_header = tmp_path / "truncated_header.wav"
    truncated_header.write_bytes(good.read_bytes()[:30])
    short_data = tmp_path / "short_data.wav"
    short_data.write_bytes(good.read_bytes()[:44 + 2 * 8000])  # header says 1.2 s, holds 0.5 s
    nans = np.asarray(tone(16000, 1.2), dtype=np.float32)
    nans[100], nans[200] = np.nan, np.inf
    nan_wav = write_wav(tmp_path / "nan.wav", nans, 16000, float32=True)
    (tmp_path / "no_audio").mkdir()
    (tmp_path / "no_audio" / "readme.txt").write_text("nothing here")

    def run(*paths):
        return sonotype("classify", "--model", path, *paths)

    result = run(good, tmp_path / "missing.wav", empty, fake, truncated_header, short_data, nan_wav, tmp_path / "no_audio")
    assert result.returncode == 1
    err = result.stderr
    assert f"{tmp_path / 'missing.wav'}: no such file or folder" in err
    assert f"{empty}: holds no audio" in err
    assert f"{fake}: not a readable audio file" in err
    assert f"{truncated_header}: not a readable audio file" in err
    assert f"{short_data}: the header claims 19200 samples but the file holds 8000" in err
    assert f"{nan_wav}: 2 NaN or infinite samples were replaced by 0" in err
    assert f"{tmp_path / 'no_audio'}: no audio files" in err
    rows = parse_csv(result.stdout)[1:]
    files = {row[0] for row in rows if not row[-1]}
    assert files == {str(good), str(short_data), str(nan_wav)}  # the good and the salvageable are classified
    errors = {row[0]: row[-1] for row in rows if row[-1]}  # the others are rows with their error
    assert set(errors) == {str(tmp_path / "missing.wav"), str(empty), str(fake), str(truncated_header), str(tmp_path / "no_audio")}
    assert errors[str(empty)].startswith("holds no audio") and errors[str(fake)].startswith("not a readable audio file")
    assert err.splitlines()[-1] == "total: 3 classified (2 with warnings), 5 failed, 1 skipped"
    assert run(good).returncode == 0


def test_usage_errors(model, tmp_path):
    path, _ = model
    wav = write_wav(tmp_path / "a.wav", tone(16000, 1.0), 16000)
    cases = [
        (["classify", "--model", path], "at least one file"),
        (["classify", "--model", path, "--hop", "0", wav], "--hop"),
        (["classify", "--model", path, "--smooth", "-1", wav], "--smooth"),
        (["classify", "--model", path, "--format", "xml", wav], "--format"),
        (["classify", "--model", path, "--jobs", "0", wav], "--jobs"),
        (["classify", "--model", path, "--shard", "3/3", wav], "--shard"),
        (["classify", "--model", path, "--shard", "x", wav], "--shard"),
    ]
    for args, message in cases:
        result = sonotype(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr and result.stdout == ""


def test_model_without_front_end_is_refused(tmp_path):
    model_path = tmp_path / "plain.safetensors"
    export_model(torch.nn.Linear(4, 2).eval(), torch.zeros(1, 4), str(model_path))
    wav = write_wav(tmp_path / "a.wav", tone(16000, 1.0), 16000)
    result = sonotype("classify", "--model", model_path, wav)
    assert result.returncode == 1
    assert "no front-end settings" in result.stderr


def test_long_files_stream_in_bounded_memory(model, tmp_path):
    """Memory does not grow with the file's length: 4 minutes at 96 kHz needs no more than 10 s."""
    path, _ = model

    def peak_rss_mb(seconds):
        wav = tmp_path / f"long{seconds}.wav"
        subprocess.run(["sox", "-n", "-r", "96000", "-b", "16", "-c", "1", str(wav), "synth", str(seconds), "pinknoise", "vol", "0.3"],
                       check=True)
        script = (f"import resource, subprocess; subprocess.run([{cli_path()!r}, 'classify', '--model', {str(path)!r}, "
                  f"'--summary', {str(wav)!r}], check=True, capture_output=True); "
                  "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)")
        result = subprocess.run(["/usr/bin/python3", "-c", script], capture_output=True, text=True, check=True)
        wav.unlink()
        return float(result.stdout)

    short, long = peak_rss_mb(10), peak_rss_mb(240)
    assert long < short + 8, f"peak RSS {short:.1f} MB for 10 s, {long:.1f} MB for 240 s"


def test_progress_bar_only_on_a_terminal(model, tmp_path):
    import os
    import pty

    path, _ = model
    for i in range(3):
        write_wav(tmp_path / f"f{i}.wav", tone(16000, 1.1), 16000)
    piped = sonotype("classify", "--model", path, tmp_path)
    assert "files" not in piped.stderr
    leader, follower = pty.openpty()
    process = subprocess.Popen([cli_path(), "classify", "--model", str(path), str(tmp_path)], stdout=subprocess.PIPE,
                               stderr=follower, text=True)
    stdout, _ = process.communicate()
    os.close(follower)
    chunks = []
    while True:  # the terminal's output may come in several reads; EIO marks its end
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    terminal = b"".join(chunks).decode()
    assert process.returncode == 0
    assert "3/3 files" in terminal and "[" in terminal
    assert stdout == piped.stdout
