"""An embedding output (export_model(..., embedding=module | "auto")) and every output a model
returns: the engine's outputs equal PyTorch's; what cannot be exported is refused by index."""

import json

import numpy as np
import pytest
import torch
from torch import nn

from sonotype.engine_cli import inspect as inspect_model
from sonotype.engine_cli import run_model
from sonotype.export import ExportError, check, export_model
from sonotype.export.safetensors_io import read_safetensors
from sonotype.models.audio_transformer import AudioTransformer


def _metadata(path):
    return read_safetensors(path)[1]


def _captured(module):
    """The output of `module` in the next forward (a list that receives it)."""
    seen = []
    module.register_forward_hook(lambda m, args, out: seen.append(out.detach().clone()))
    return seen


class Tagger(nn.Module):
    """Conv features -> ReLU -> mean over time -> Linear embedding -> ReLU -> classifier."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 16, 3, padding=1)
        self.project = nn.Linear(16, 12)
        self.head = nn.Linear(12, 4)

    def forward(self, x):
        h = torch.relu(self.conv(x)).mean(dim=2)
        e = self.project(h)          # the embedding: a gemm whose output a ReLU reads (fusion must keep it)
        return self.head(torch.relu(e))


def _check_engine(path, x, expected, index):
    got = run_model(path, x.numpy(), output_index=index)
    assert got.shape == tuple(expected.shape)
    np.testing.assert_allclose(got, expected.numpy(), atol=1e-5, rtol=0)


def test_embedding_module_is_an_extra_output(tmp_path):
    torch.manual_seed(0)
    model = Tagger().eval()
    x = torch.randn(1, 8, 20)
    path = str(tmp_path / "m.safetensors")
    seen = _captured(model.project)
    summary = export_model(model, x, path, labels=["a", "b", "c", "d"], embedding=model.project)
    with torch.no_grad():
        logits = model(x)
    assert summary["embedding_output"] == 1
    assert summary["output_shapes"] == [[1, 4], [1, 12]]
    assert _metadata(path)["embedding_output"] == "1"
    _check_engine(path, x, logits, 0)
    _check_engine(path, x, seen[-1], 1)
    text = inspect_model(path)
    assert "output 0:    [1, 4]\noutput 1:    [1, 12]\nembedding:   output 1 [1, 12]\n" in text


def test_embedding_auto_is_the_last_linears_input(tmp_path):
    torch.manual_seed(1)
    model = Tagger().eval()
    x = torch.randn(1, 8, 20)
    path = str(tmp_path / "m.safetensors")
    seen = []
    model.head.register_forward_pre_hook(lambda m, args: seen.append(args[0].detach().clone()))
    summary = export_model(model, x, path, embedding="auto")
    assert summary["output_shapes"] == [[1, 4], [1, 12]] and summary["embedding_output"] == 1
    _check_engine(path, x, seen[-1], 1)
    with torch.no_grad():
        _check_engine(path, x, model(x), 0)


def test_no_embedding_by_default(tmp_path):
    model = Tagger().eval()
    path = str(tmp_path / "m.safetensors")
    summary = export_model(model, torch.randn(1, 8, 20), path)
    assert summary["output_shapes"] == [[1, 4]] and summary["embedding_output"] is None
    assert "embedding_output" not in _metadata(path)
    assert "embedding:" not in inspect_model(path)


def test_transformer_cls_embedding(tmp_path):
    """The built-in model's kind: the CLS token after the last LayerNorm, as the head reads it."""
    torch.manual_seed(2)
    model = AudioTransformer(n_mels=16, d_model=32, n_head=4, n_layers=2, n_classes=3, stem="conv2d").eval()
    x = torch.randn(1, 16, 41)
    path = str(tmp_path / "m.safetensors")
    seen = _captured(model.class_mlp[0])
    summary = export_model(model, x, path, embedding=model.class_mlp[0])
    assert summary["output_shapes"] == [[1, 3], [1, 32]]
    _check_engine(path, x, seen[-1], 1)
    with torch.no_grad():
        _check_engine(path, x, model(x), 0)


def test_module_that_runs_twice_is_refused(tmp_path):
    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.shared = nn.Linear(6, 6)
            self.head = nn.Linear(6, 2)

        def forward(self, x):
            return self.head(self.shared(self.shared(x)))

    model = Twice().eval()
    with pytest.raises(ExportError, match="module 'shared' \\(Linear\\) runs 2 times .* pass a module that runs once"):
        export_model(model, torch.randn(1, 6), str(tmp_path / "m.safetensors"), embedding=model.shared)
    with pytest.raises(ExportError, match="not a module of the model"):
        export_model(model, torch.randn(1, 6), str(tmp_path / "m.safetensors"), embedding=nn.Linear(6, 6))


def test_ambiguous_auto_is_refused(tmp_path):
    class PerToken(nn.Module):
        """The last Linear runs on every token: its input is not one row per example."""

        def __init__(self):
            super().__init__()
            self.head = nn.Linear(6, 3)

        def forward(self, x):
            return self.head(x).mean(dim=1)

    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(6, 3)

        def forward(self, x):
            return self.head(x) + self.head(x * 2)

    path = str(tmp_path / "m.safetensors")
    with pytest.raises(ExportError, match="ambiguous: the last nn.Linear 'head' takes an input of shape \\(1, 5, 6\\).*"
                                          "pass embedding=<the module"):
        export_model(PerToken().eval(), torch.randn(1, 5, 6), path, embedding="auto")
    with pytest.raises(ExportError, match="ambiguous: the last nn.Linear 'head' runs 2 times.*pass embedding=<the module"):
        export_model(TwoHeads().eval(), torch.randn(1, 6), path, embedding="auto")
    with pytest.raises(ExportError, match="has none: pass embedding="):
        export_model(nn.Sequential(nn.ReLU()).eval(), torch.randn(1, 6), path, embedding="auto")


class WithLengths(nn.Module):
    """Returns (output, lengths) as torchaudio's Conformer does: the lengths do not depend on the input."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(6, 4)

    def forward(self, x):
        return self.linear(x), torch.tensor([5, 3])


def test_constant_later_output_is_a_stored_tensor(tmp_path):
    torch.manual_seed(3)
    model = WithLengths().eval()
    x = torch.randn(1, 6)
    path = str(tmp_path / "m.safetensors")
    assert check(model, x).ok
    summary = export_model(model, x, path)
    assert summary["output_shapes"] == [[1, 4], [2]]
    graph = json.loads(_metadata(path)["graph"])
    assert graph["values"][graph["outputs"][1]]["kind"] == "tensor"
    np.testing.assert_array_equal(run_model(path, x.numpy(), output_index=1), np.array([5, 3], dtype=np.float32))
    with torch.no_grad():
        _check_engine(path, x, model(x)[0], 0)


def test_constant_output_0_is_refused_by_index(tmp_path):
    class ConstantFirst(nn.Module):
        def forward(self, x):
            return torch.ones(3), x * 2

    model = ConstantFirst().eval()
    x = torch.randn(1, 6)
    report = check(model, x)
    assert not report.ok
    assert [(p.operation, p.reason.split(":")[0]) for p in report.problems] == [("model output 0", "does not depend on the input")]
    with pytest.raises(ExportError, match="^model output 0 \\(of 2\\) does not depend on the input: it is a constant"):
        export_model(model, x, str(tmp_path / "m.safetensors"))


def test_output_problems_name_the_index_in_check_and_export(tmp_path):
    class Float64Second(nn.Module):
        def forward(self, x):
            return x * 2, torch.ones(2, dtype=torch.float64)

    model = Float64Second().eval()
    x = torch.randn(1, 6)
    assert [p.operation for p in check(model, x).problems] == ["model output 1"]
    with pytest.raises(ExportError, match="^model output 1 \\(of 2\\) is torch.float64"):
        export_model(model, x, str(tmp_path / "m.safetensors"))


def test_torchaudio_conformer_returns_output_and_lengths(tmp_path):
    """Conformer's (output, lengths): both are outputs; the lengths, a constant, are stored."""
    import torchaudio

    class Wrapped(nn.Module):
        def __init__(self):
            super().__init__()
            self.conformer = torchaudio.models.Conformer(input_dim=16, num_heads=2, ffn_dim=32, num_layers=1,
                                                         depthwise_conv_kernel_size=3)

        def forward(self, x):
            return self.conformer(x, torch.tensor([x.shape[1]]))

    torch.manual_seed(4)
    model = Wrapped().eval()
    x = torch.randn(1, 20, 16)
    path = str(tmp_path / "m.safetensors")
    assert check(model, x).ok
    assert export_model(model, x, path)["output_shapes"] == [[1, 20, 16], [1]]
    with torch.no_grad():
        y, lengths = model(x)
    _check_engine(path, x, y, 0)
    _check_engine(path, x, lengths.float(), 1)
