"""The exporter's contract: one .safetensors file, clear errors, metadata a reader can trust."""

import inspect
import json
import struct

import pytest
import torch
import torch.nn as nn

from sonotype.engine_cli import inspect as inspect_model
from sonotype.export import ExportError, export_model
from sonotype.export.safetensors_io import read_safetensors
from sonotype.models.audio_transformer import AudioTransformer


class UsesErfinv(nn.Module):
    def forward(self, x):
        y = x * 2
        return torch.erfinv(y.tanh())  # not an engine op


def test_unsupported_op_names_op_and_user_line(tmp_path):
    line = inspect.getsourcelines(UsesErfinv.forward)[1] + 2
    with pytest.raises(ExportError) as error:
        export_model(UsesErfinv().eval(), torch.randn(1, 8), str(tmp_path / "m.safetensors"))
    message = str(error.value)
    assert "aten::erfinv" in message
    assert f"test_exporter.py:{line}" in message
    assert "torch.erfinv(y.tanh())" in message


def test_training_mode_is_refused(tmp_path):
    with pytest.raises(ExportError, match="eval"):
        export_model(nn.Linear(3, 2), torch.randn(1, 3), str(tmp_path / "m.safetensors"))


def test_labels_must_match_classes(tmp_path):
    with pytest.raises(ExportError, match="3 labels"):
        export_model(nn.Linear(3, 2).eval(), torch.randn(1, 3), str(tmp_path / "m.safetensors"), labels=["a", "b", "c"])


@pytest.mark.parametrize("labels, message", [
    (["low", "m" * 257], "257 bytes"),
    (["low", "mid\u009b31m"], "U\\+009B"),
    (["low", "\u202ehgih"], "U\\+202E"),
    (["kick", "kick\u200d"], "U\\+200D"),
    (["snare", "snare"], "repeats an earlier label"),
    (["", "b"], "label 0 is empty"),
    (["dog", "dog\ufe0f"], "U\\+FE0F"),
])
def test_labels_the_engine_would_refuse_are_export_errors(tmp_path, labels, message):
    with pytest.raises(ExportError, match=message):
        export_model(nn.Linear(3, 2).eval(), torch.randn(1, 3), str(tmp_path / "m.safetensors"), labels=labels)


def test_labels_in_any_script_export_and_load(tmp_path):
    path = str(tmp_path / "m.safetensors")
    labels = ["Streicher", "ピアノ", "🥁 drums", "❤️ love", "👩\u200d🎤 singer"]
    export_model(nn.Linear(3, 5).eval(), torch.randn(1, 3), path, labels=labels)
    assert ", ".join(labels) in inspect_model(path)


def test_output_must_depend_on_input(tmp_path):
    class Constant(nn.Module):
        def forward(self, x):
            return torch.ones(3)

    with pytest.raises(ExportError, match="does not depend on the input"):
        export_model(Constant().eval(), torch.randn(1, 3), str(tmp_path / "m.safetensors"))


def test_file_is_plain_safetensors_with_metadata(tmp_path):
    torch.manual_seed(0)
    model = AudioTransformer(n_mels=16, d_model=32, n_head=4, n_layers=1, n_classes=3).eval()
    path = str(tmp_path / "m.safetensors")
    frontend = {"sample_rate": 16000, "n_mels": 16}
    summary = export_model(model, torch.randn(1, 16, 40), path, labels=["a", "b", "c"], frontend=frontend)
    assert summary["output_shapes"] == [[1, 3]]

    tensors, metadata = read_safetensors(path)
    assert metadata["format"] == "sonotype" and metadata["format_version"] == "1"
    assert json.loads(metadata["labels"]) == ["a", "b", "c"]
    assert json.loads(metadata["frontend"]) == frontend
    graph = json.loads(metadata["graph"])
    assert graph["values"][graph["inputs"][0]]["shape"] == [1, 16, 40]
    # Weights are stored once, under their state_dict names, with PyTorch's values.
    state = model.state_dict()
    for name in ("expand.0.weight", "attention_block.0.attention.in_proj_weight", "class_mlp.4.bias"):
        assert torch.equal(tensors[name], state[name])
    assert all(t.dtype == torch.float32 for t in tensors.values())

    # The data section is tiled exactly, as the safetensors format requires (no holes).
    with open(path, "rb") as f:
        raw = f.read()
    header_len = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + header_len])
    header.pop("__metadata__")
    spans = sorted(tuple(info["data_offsets"]) for info in header.values())
    assert spans[0][0] == 0 and all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert spans[-1][1] == len(raw) - 8 - header_len

    text = inspect_model(path)
    assert "labels:      a, b, c" in text
    assert "[1, 16, 40]" in text and "[1, 3]" in text
