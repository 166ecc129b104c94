"""The export report: every operation the engine cannot run, at once, with counts and source lines."""

import inspect

import pytest
import torch
import torch.nn as nn

from sonotype.export import ExportError, check, export_model


class ThreeGaps(nn.Module):
    """Uses three ops the engine lacks, one of them twice, with supported ops between and after."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x):
        x = self.linear(x)
        x = torch.erfinv(x.tanh())
        x = torch.relu(x)
        x = torch.erfinv(x.tanh())
        x = torch.logcumsumexp(x, dim=-1)
        x = x + torch.fmod(x, 0.5)
        return self.linear(x).softmax(-1)


def _line(offset):
    return inspect.getsourcelines(ThreeGaps.forward)[1] + offset


def test_check_lists_every_unsupported_op_with_counts_and_lines():
    report = check(ThreeGaps().eval(), torch.randn(2, 8))
    assert not report.ok
    by_op = {p.operation: p for p in report.problems}
    assert set(by_op) == {"aten::erfinv", "aten::logcumsumexp", "aten::fmod.Scalar"}
    assert by_op["aten::erfinv"].count == 2
    assert [s.rsplit(":", 1)[1] for s in by_op["aten::erfinv"].sources] == [str(_line(2)), str(_line(4))]
    text = str(report)
    assert text.startswith("the model uses 3 operations the engine cannot run (4 calls):")
    assert "torch.logcumsumexp(x, dim=-1)" in text and "torch.fmod(x, 0.5)" in text


def test_export_error_carries_the_same_report(tmp_path):
    with pytest.raises(ExportError) as error:
        export_model(ThreeGaps().eval(), torch.randn(2, 8), str(tmp_path / "m.safetensors"))
    assert {p.operation for p in error.value.problems} == {"aten::erfinv", "aten::logcumsumexp", "aten::fmod.Scalar"}
    assert str(error.value) == str(check(ThreeGaps().eval(), torch.randn(2, 8)))
    assert not (tmp_path / "m.safetensors").exists()


def test_a_refused_argument_is_reported_with_its_reason():
    class DynamicIndex(nn.Module):
        def forward(self, x):
            index = x.argmax(-1)
            return x.index_select(1, index[0]) + torch.erfinv(x.tanh())[:, :1]

    report = check(DynamicIndex().eval(), torch.randn(1, 6))
    reasons = {p.operation: p.reason for p in report.problems}
    assert reasons["aten::index_select"] == "indices that depend on the input are not supported"
    assert "aten::erfinv" in reasons


def test_check_of_a_supported_model_is_ok():
    report = check(nn.Sequential(nn.Linear(4, 3), nn.GELU()).eval(), torch.randn(1, 4))
    assert report.ok and report.problems == []
    assert "exports" in str(report)
