"""`sonotype classify --embeddings`: each window row carries the model's embedding of the window, the
same numbers PyTorch's model computes, whatever classes are in play; refused where there are no
window rows or no embedding."""

import json

import numpy as np
import pytest
import torch

from sonotype.export import export_model
from sonotype.models.audio_transformer import AudioTransformer
from sonotype.testing.fixtures import TINY_FRONTEND
from test_classify import LABELS, parse_csv, sonotype, tone, write_wav


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    torch.manual_seed(5)
    net = AudioTransformer(n_mels=32, d_model=32, n_head=4, n_layers=1, n_classes=4).eval()
    folder = tmp_path_factory.mktemp("model")
    export_model(net, torch.zeros(1, 32, 101), str(folder / "tiny.safetensors"), labels=LABELS, frontend=TINY_FRONTEND,
                 embedding="auto")
    export_model(net, torch.zeros(1, 32, 101), str(folder / "plain.safetensors"), labels=LABELS, frontend=TINY_FRONTEND)
    return folder / "tiny.safetensors", folder / "plain.safetensors", net


def torch_embedding(net, window):
    """The input of the model's last nn.Linear (what embedding="auto" exports)."""
    last = [m for m in net.modules() if isinstance(m, torch.nn.Linear)][-1]
    seen = []
    handle = last.register_forward_pre_hook(lambda m, args: seen.append(args[0].detach().clone()))
    with torch.no_grad():
        net(TINY_FRONTEND(window).unsqueeze(0))
    handle.remove()
    return seen[0].reshape(-1).numpy()


def test_window_rows_carry_the_model_s_embedding(model, tmp_path):
    path, _, net = model
    x = tone(16000, 2.1, 330.0) + 0.1 * np.random.default_rng(1).standard_normal(int(16000 * 2.1))
    wav = write_wav(tmp_path / "a.wav", x, 16000, float32=True)
    result = sonotype("classify", "--embeddings", "--grid", "--model", path, wav)
    assert result.returncode == 0, result.stderr
    header, *rows = parse_csv(result.stdout)
    assert header[:9] == ["file", "start_s", "end_s", "label", "confidence", *LABELS]
    assert header[9:41] == [f"embedding_{i}" for i in range(32)] and header[41:] == ["error"]
    assert len(rows) == 5
    samples = x.astype(np.float32)
    for k, row in enumerate(rows):
        expected = torch_embedding(net, torch.from_numpy(samples[4000 * k: 4000 * k + 16000]))
        np.testing.assert_allclose(np.array(row[9:41], dtype=np.float64), expected, atol=2e-5, rtol=0)
    plain = parse_csv(sonotype("classify", "--grid", "--model", path, wav).stdout)
    assert [row[:9] for row in rows] == [row[:9] for row in plain[1:]]  # the other columns as without --embeddings

    # Classes in play change the probabilities, not the embedding; JSON holds the same numbers.
    header_in_play, *in_play = parse_csv(sonotype("classify", "--embeddings", "--grid", "--classes", "speech,piano", "--model", path, wav).stdout)
    assert header_in_play == header and [row[9:41] for row in in_play] == [row[9:41] for row in rows]
    objects = json.loads(sonotype("classify", "--embeddings", "--grid", "--format", "json", "--model", path, wav).stdout)
    assert [o["embedding"] for o in objects] == [[float(v) for v in row[9:41]] for row in rows]
    # To the true end (the default): the padded and tail columns come before the embedding, the
    # error column after it; --to-end and --error-rows change nothing.
    result_end = sonotype("classify", "--embeddings", "--model", path, wav)
    header_end, *rows_end = parse_csv(result_end.stdout)
    assert header_end[9:11] == ["padded", "tail"] and header_end[11:43] == header[9:41] and header_end[43:] == ["error"]
    assert [row[11:43] for row in rows_end[:5]] == [row[9:41] for row in rows] and len(rows_end) == 6  # and the tail window
    assert sonotype("classify", "--embeddings", "--to-end", "--error-rows", "--model", path, wav).stdout == result_end.stdout


def test_embeddings_refused_without_window_rows_or_an_embedding(model, tmp_path):
    path, plain, _ = model
    wav = write_wav(tmp_path / "a.wav", tone(16000, 1.5), 16000)
    for extra in (["--summary"], ["--segments"], ["--onsets"], ["--format", "audacity"]):
        result = sonotype("classify", "--embeddings", *extra, "--model", path, wav)
        assert result.returncode == 2 and "--embeddings gives window rows" in result.stderr, extra
    result = sonotype("classify", "--embeddings", "--model", plain, wav)
    assert result.returncode == 2 and "has no embedding output" in result.stderr
    result = sonotype("classify", "--embeddings", wav)  # the built-in model has one: 96 numbers
    assert result.returncode == 0, result.stderr
    assert parse_csv(result.stdout)[0][-2:] == ["embedding_95", "error"]
