"""ONNX in: `sonotype.export.from_onnx`, tested live.

Models of each family are exported to ONNX with torch.onnx.export (opsets 9, 11, 13 and 17), converted,
run in the engine (`sonotype run-model`) and compared with the PyTorch original AND with ONNX
Runtime (npm onnxruntime-node through node; installed on first use, a missing install fails, never
skips).  Single-operator ONNX graphs (built with onnx.helper) check each converter op's semantics
against ONNX Runtime, and the engine's result.
"""

import os
import tempfile

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import onnx  # Debian's python3-onnx (scripts/install-deps.sh)
from onnx import TensorProto, helper, numpy_helper

from sonotype.engine_cli import run_model
from sonotype.export import ExportError, from_onnx
from sonotype.export.onnx_import import onnx_module
from sonotype.testing.ort_runner import run_many
from sonotype.testing.parity import compare

# ----- helpers ----------------------------------------------------------------------------------

_TRAINING = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def export_onnx(model: nn.Module, x: torch.Tensor, path: str, opset: int, **kwargs) -> None:
    # Not under no_grad: there nn.TransformerEncoderLayer takes its fused path, which the ONNX exporter lacks.
    torch.onnx.export(model, x, path, opset_version=opset, input_names=["input"], **kwargs)


def _as_list(y):
    return list(y) if isinstance(y, (tuple, list)) else [y]


def assert_close(what: str, actual: np.ndarray, expected: np.ndarray) -> None:
    result = compare(np.asarray(actual, dtype=np.float32), np.asarray(expected, dtype=np.float32))
    assert result.ok(), f"{what}: max abs error {result.max_abs:.3g}, max rel error {result.max_rel:.3g}"


def engine_outputs(onnx_path: str, x: np.ndarray, count: int, **kwargs):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.safetensors")
        from_onnx(onnx_path, path, **kwargs)
        return [run_model(path, x, i) for i in range(count)]


# ----- model families ---------------------------------------------------------------------------

class Cnn(nn.Module):
    """A small audio CNN: conv/BatchNorm/ReLU blocks, max and average pooling, a linear head."""

    def __init__(self):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True))
        self.block2 = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(16, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 6))

    def forward(self, x):
        x = F.max_pool2d(self.block1(x), 2)
        x = F.avg_pool2d(self.block2(x), 2)
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.head(x)


class Transformer(nn.Module):
    """Patch embedding, one nn.TransformerEncoderLayer (GELU), a final LayerNorm, mean pooling."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Conv1d(16, 32, 1)
        self.layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1, activation="gelu", batch_first=True)
        self.norm = nn.LayerNorm(32)
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        x = self.embed(x).transpose(1, 2)
        x = self.norm(self.layer(x))
        return self.head(x.mean(dim=1))


class Attention(nn.Module):
    """nn.MultiheadAttention used directly (sequence first), outputs and averaged weights."""

    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(24, 3)
        self.norm = nn.LayerNorm(24)

    def forward(self, x):
        y, weights = self.attention(x, x, x)
        return self.norm(x + y), weights


class Crnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d((2, 1)))
        self.gru = nn.GRU(8 * 8, 24, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(48, 5)

    def forward(self, x):  # x: [B, 1, 16 mels, T]
        x = self.conv(x)
        b, c, f, t = x.shape
        x = x.permute(0, 3, 1, 2).reshape(b, t, c * f)
        y, _ = self.gru(x)
        return self.head(y).sigmoid()


class LstmTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(20, 16, num_layers=1, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        return torch.log_softmax(self.head(y), dim=-1), h


class MlpHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(40, 64), nn.GELU(), nn.Dropout(0.2), nn.Linear(64, 64), nn.GELU(),
                                 nn.LayerNorm(64), nn.Linear(64, 10))

    def forward(self, x):
        return torch.softmax(self.net(x), dim=-1)


class MobileNetV3Block(nn.Module):
    """An inverted residual block as MobileNetV3 writes it: expand, depthwise, squeeze-excite
    (Hardsigmoid gate), Hardswish, project; then global pooling and a classifier."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(8), nn.Hardswish())
        self.expand = nn.Sequential(nn.Conv2d(8, 24, 1, bias=False), nn.BatchNorm2d(24), nn.Hardswish())
        self.depthwise = nn.Sequential(nn.Conv2d(24, 24, 5, padding=2, groups=24, bias=False), nn.BatchNorm2d(24),
                                       nn.Hardswish())
        self.se_reduce, self.se_expand = nn.Conv2d(24, 8, 1), nn.Conv2d(8, 24, 1)
        self.project = nn.Sequential(nn.Conv2d(24, 8, 1, bias=False), nn.BatchNorm2d(8))
        self.classifier = nn.Sequential(nn.Linear(8, 32), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(32, 7))

    def forward(self, x):
        x = self.stem(x)
        y = self.depthwise(self.expand(x))
        scale = F.adaptive_avg_pool2d(y, 1)
        scale = F.hardsigmoid(self.se_expand(F.relu(self.se_reduce(scale))), inplace=True)
        y = self.project(y * scale)
        x = x + y
        return self.classifier(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class ConformerBlock(nn.Module):
    """Feed-forward halves with SiLU, self-attention, and the convolution module (pointwise conv,
    GLU, depthwise conv, BatchNorm, SiLU), each with a residual, as Conformer code writes it."""

    def __init__(self, d=32):
        super().__init__()
        self.ff1 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.SiLU(), nn.Linear(2 * d, d))
        self.attention_norm = nn.LayerNorm(d)
        self.attention = nn.MultiheadAttention(d, 4, batch_first=True)
        self.conv_norm = nn.LayerNorm(d)
        self.pointwise = nn.Conv1d(d, 2 * d, 1)
        self.depthwise = nn.Conv1d(d, d, 7, padding=3, groups=d)
        self.batch_norm = nn.BatchNorm1d(d)
        self.pointwise_out = nn.Conv1d(d, d, 1)
        self.ff2 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.SiLU(), nn.Linear(2 * d, d))
        self.final_norm = nn.LayerNorm(d)

    def forward(self, x):  # [B, T, d]
        x = x + 0.5 * self.ff1(x)
        h = self.attention_norm(x)
        x = x + self.attention(h, h, h, need_weights=False)[0]
        h = self.conv_norm(x).transpose(1, 2)
        h = F.glu(self.pointwise(h), dim=1)
        h = F.silu(self.batch_norm(self.depthwise(h)))
        x = x + self.pointwise_out(h).transpose(1, 2)
        x = x + 0.5 * self.ff2(x)
        return self.final_norm(x)


class AstLike(nn.Module):
    """An AST/ViT front: patch embedding by a strided Conv2d, a class token, positional embedding,
    one transformer layer, the class token's output through a head."""

    def __init__(self, d=32):
        super().__init__()
        self.patch = nn.Conv2d(1, d, kernel_size=4, stride=4)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.position = nn.Parameter(torch.randn(1, 1 + 4 * 3, d) * 0.02)
        self.layer = nn.TransformerEncoderLayer(d, 4, 2 * d, activation="gelu", batch_first=True, norm_first=True)
        self.head = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 6))

    def forward(self, x):  # [B, 1, 16 mels, 12 frames]
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.position
        x = self.layer(x)
        return self.head(x[:, 0])


FAMILIES = {
    # name: (factory, input shape, torch.onnx.export keyword arguments, marks)
    "cnn_batchnorm": (Cnn, (2, 1, 16, 16), {"training": torch.onnx.TrainingMode.PRESERVE}, ()),
    "cnn_folded": (Cnn, (1, 1, 16, 16), {}, ()),
    "transformer": (Transformer, (1, 16, 12), {}, ()),
    "attention": (Attention, (10, 2, 24), {}, ()),
    "mlp_gelu_softmax": (MlpHead, (3, 40), {}, ()),
    "mobilenetv3_block": (MobileNetV3Block, (1, 1, 16, 16), {"training": torch.onnx.TrainingMode.PRESERVE}, ()),
    "conformer_block": (ConformerBlock, (1, 10, 32), {}, ()),
    "ast_like": (AstLike, (2, 1, 16, 12), {}, ()),
    "crnn_gru": (Crnn, (1, 1, 16, 12), {}, ()),
    "lstm_tagger": (LstmTagger, (1, 9, 20), {}, ()),
}


def _family_params():
    for name, (_, _, _, marks) in FAMILIES.items():
        for opset in (9, 11, 13, 17):
            yield pytest.param(name, opset, id=f"{name}-opset{opset}", marks=marks)


@pytest.mark.parametrize("name,opset", list(_family_params()))
def test_family_matches_pytorch_and_onnx_runtime(name, opset, tmp_path):
    factory, shape, export_kwargs, _ = FAMILIES[name]
    torch.manual_seed(7)
    model = factory().eval()
    for module in model.modules():  # non-trivial running statistics, so BatchNorm does something
        if isinstance(module, nn.modules.batchnorm._BatchNorm):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    x = torch.randn(*shape)
    with torch.no_grad():
        reference = [t.numpy() for t in _as_list(model(x))]
    path = str(tmp_path / "model.onnx")
    export_onnx(model, x, path, opset, **export_kwargs)

    (ort_outputs,) = run_many([(path, {"input": x.numpy()})])
    assert len(ort_outputs) == len(reference)
    for i, (ort_y, torch_y) in enumerate(zip(ort_outputs, reference)):
        assert_close(f"ONNX Runtime vs PyTorch, output {i}", ort_y, torch_y)

    module = onnx_module(path)
    with torch.no_grad():
        interpreted = [t.numpy() for t in _as_list(module(x))]
    for i, (y, torch_y) in enumerate(zip(interpreted, reference)):
        assert_close(f"ONNX interpreted with torch vs PyTorch, output {i}", y, torch_y)

    engine = engine_outputs(path, x.numpy(), len(reference))
    for i, (y, torch_y, ort_y) in enumerate(zip(engine, reference, ort_outputs)):
        assert_close(f"engine vs PyTorch, output {i}", y, torch_y)
        assert_close(f"engine vs ONNX Runtime, output {i}", y, ort_y)


@pytest.mark.parametrize("case,fused", [("gelu_pattern", True), ("gelu_pattern_half_first", True),
                                        ("gelu_lookalike_not_fused", False)])
def test_gelu_written_out_becomes_one_op(case, fused, tmp_path):
    path = str(tmp_path / "gelu.onnx")
    onnx.save(OP_CASES[case][0](), path)
    ops = from_onnx(path, str(tmp_path / "m.safetensors"))["op_counts"]
    assert (ops.get("gelu") == 1 and "erf" not in ops) if fused else ("gelu" not in ops and ops.get("erf") == 1), ops


def _layer_norm_written_out(axis=-1, weighted=True):
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[axis]),
        helper.make_node("Sub", ["x", "m"], ["d"]),
        helper.make_node("Pow", ["d", "two"], ["p"]),
        helper.make_node("ReduceMean", ["p"], ["v"], axes=[axis]),
        helper.make_node("Add", ["v", "eps"], ["a"]),
        helper.make_node("Sqrt", ["a"], ["s"]),
        helper.make_node("Div", ["d", "s"], ["n" if weighted else "y"]),
    ]
    inits = {"two": np.array(2.0, np.float32), "eps": np.array(1e-5, np.float32)}
    if weighted:
        nodes += [helper.make_node("Mul", ["n", "g"], ["w"]), helper.make_node("Add", ["w", "b"], ["y"])]
        inits.update({"g": _w(8) + 1.0, "b": _w(8)})
    return _graph(nodes, {"x": (2, 5, 8)}, {"y": F32}, inits)


@pytest.mark.parametrize("axis,weighted,fused", [(-1, True, True), (-1, False, True), (1, False, False)])
def test_layer_norm_written_out_becomes_one_op(axis, weighted, fused, tmp_path):
    """Before opset 17 LayerNorm is written out as nine ops: over the last axis they become one."""
    path = str(tmp_path / "ln.onnx")
    onnx.save(_layer_norm_written_out(axis, weighted), path)
    out = str(tmp_path / "m.safetensors")
    ops = from_onnx(path, out)["op_counts"]
    assert (ops == {"layer_norm": 1}) if fused else ("layer_norm" not in ops and ops.get("sqrt") == 1), ops
    x = np.random.default_rng(5).standard_normal((2, 5, 8)).astype(np.float32)
    (expected,) = run_many([(path, {"x": x})])
    assert_close("engine vs ONNX Runtime", run_model(out, x), expected[0])


@pytest.mark.parametrize("family,opset,engine_op", [("conformer_block", 13, "silu"), ("mobilenetv3_block", 13, "hardswish")])
def test_gated_activations_written_out_become_one_op(family, opset, engine_op, tmp_path):
    """SiLU (Sigmoid, Mul) and, before opset 14, HardSwish (HardSigmoid, Mul) become the engine's op;
    a Sigmoid gating another value (the GLU) stays a Sigmoid."""
    factory, shape, export_kwargs, _ = FAMILIES[family]
    torch.manual_seed(4)
    path = str(tmp_path / "m.onnx")
    export_onnx(factory().eval(), torch.randn(*shape), path, opset, **export_kwargs)
    ops = from_onnx(path, str(tmp_path / "m.safetensors"))["op_counts"]
    if family == "conformer_block":
        assert ops.get("silu") == 3 and ops.get("sigmoid") == 1, ops
    else:
        assert ops.get("hardswish") == 4 and ops.get("hardsigmoid") == 1, ops


def test_transformer_at_opset13_converts_to_the_same_ops_as_at_opset17(tmp_path):
    torch.manual_seed(2)
    model = Transformer().eval()
    x = torch.randn(1, 16, 12)
    counts = {}
    for opset in (13, 17):
        path = str(tmp_path / f"t{opset}.onnx")
        export_onnx(model, x, path, opset)
        counts[opset] = from_onnx(path, str(tmp_path / f"t{opset}.safetensors"))["op_counts"]
    assert counts[13] == counts[17]
    assert counts[13]["layer_norm"] == 3 and counts[13]["gelu"] == 1 and "erf" not in counts[13], counts[13]


def test_batchnorm_nodes_are_kept_and_converted(tmp_path):
    """The PRESERVE export keeps BatchNormalization nodes (the default folds them into Conv)."""
    torch.manual_seed(0)
    model = Cnn().eval()
    path = str(tmp_path / "cnn.onnx")
    export_onnx(model, torch.randn(2, 1, 16, 16), path, 13, training=torch.onnx.TrainingMode.PRESERVE)
    ops = [n.op_type for n in onnx.load(path).graph.node]
    assert ops.count("BatchNormalization") == 3
    summary = from_onnx(path, str(tmp_path / "cnn.safetensors"))
    assert summary["onnx_op_counts"]["BatchNormalization"] == 3
    assert summary["op_counts"].get("batch_norm", 0) == 3


def test_labels_and_dynamic_axes_with_input_shape(tmp_path):
    torch.manual_seed(3)
    model = MlpHead().eval()
    path = str(tmp_path / "dynamic.onnx")
    export_onnx(model, torch.randn(2, 40), path, 17, dynamic_axes={"input": {0: "batch"}})
    with pytest.raises(ExportError, match=r"dynamic dimensions \[0\].*input_shape"):
        from_onnx(path, str(tmp_path / "m.safetensors"))
    with pytest.raises(ExportError, match="dimension 1 is fixed at 40"):
        from_onnx(path, str(tmp_path / "m.safetensors"), input_shape=[1, 41])
    with pytest.raises(ExportError, match="rank 3"):
        from_onnx(path, str(tmp_path / "m.safetensors"), input_shape=[1, 40, 1])
    labels = [f"class{i}" for i in range(10)]
    with pytest.raises(ExportError, match="3 labels given"):
        from_onnx(path, str(tmp_path / "m.safetensors"), input_shape=[1, 40], labels=labels[:3])
    out = str(tmp_path / "m.safetensors")
    summary = from_onnx(path, out, input_shape=[5, 40], labels=labels)
    assert summary["input_shape"] == [5, 40] and summary["output_shapes"] == [[5, 10]]
    x = torch.randn(5, 40)
    with torch.no_grad():
        assert_close("engine vs PyTorch", run_model(out, x.numpy()), model(x).numpy())
    from sonotype.engine_cli import inspect
    assert "class9" in inspect(out)

    # The front end travels as with export_model (checked against the input as there), and the
    # command line does the same conversion.
    with_frontend = str(tmp_path / "frontend.safetensors")
    from_onnx(path, with_frontend, input_shape=[1, 40], frontend={"type": "waveform", "sample_rate": 16000, "window_samples": 40})
    assert "16000" in inspect(with_frontend)
    from sonotype.testing.fixtures import TINY_FRONTEND
    with pytest.raises(ExportError, match=r"the log-mel front end gives one window of \[32, frames\] features, but the model takes \[1, 40\]"):
        from_onnx(path, with_frontend, input_shape=[1, 40], frontend=TINY_FRONTEND)
    import subprocess
    import sys
    command = [sys.executable, "-m", "sonotype.export", path, str(tmp_path / "cli.safetensors"),
               "--input-shape", "2,40", "--labels", ",".join(labels)]
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": _TRAINING})
    assert result.returncode == 0, result.stderr
    assert "outputs [[2, 10]]" in result.stdout
    x = torch.randn(2, 40)
    with torch.no_grad():
        assert_close("engine (command line) vs PyTorch", run_model(str(tmp_path / "cli.safetensors"), x.numpy()),
                     model(x).numpy())
    result = subprocess.run(command[:5], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": _TRAINING})
    assert result.returncode == 1 and "input_shape" in result.stderr


# ----- single operators against ONNX Runtime ----------------------------------------------------

def _graph(nodes, inputs, outputs, initializers=None, opset=13):
    """A model from nodes; inputs: {name: shape} (float32), outputs: {name: ONNX elem type, or (type, shape)
    where shape inference cannot tell}."""
    init = [numpy_helper.from_array(np.asarray(v), name=k) for k, v in (initializers or {}).items()]
    graph = helper.make_graph(
        nodes, "case", [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(s)) for k, s in inputs.items()],
        [helper.make_tensor_value_info(k, *(t if isinstance(t, tuple) else (t, None))) for k, t in outputs.items()],
        initializer=init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    model = onnx.shape_inference.infer_shapes(model)  # the outputs' shapes, which the checker requires
    onnx.checker.check_model(model)
    return model


F32 = TensorProto.FLOAT
I64 = TensorProto.INT64
rng = np.random.default_rng(16)


def _w(*shape, scale=0.5):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _i(*values):
    return np.array(values, dtype=np.int64)


def _single(op_type, x_shape, attrs=None, inits=None, extra_inputs=(), opset=13, outputs=None, out_type=F32):
    """x -> op_type(x, *extra_inputs) -> y."""
    inits = dict(inits or {})
    names = ["x"] + list(extra_inputs)
    outputs = outputs or ["y"]
    node = helper.make_node(op_type, names, outputs, name=f"the_{op_type}", **(attrs or {}))
    return _graph([node], {"x": x_shape}, {o: out_type for o in outputs}, inits, opset)


def _lstm_case(direction, layout=0, with_states=False, opset=14):
    hidden, inputs, dirs = 5, 4, 2 if direction == "bidirectional" else 1
    inits = {"W": _w(dirs, 4 * hidden, inputs), "R": _w(dirs, 4 * hidden, hidden), "B": _w(dirs, 8 * hidden)}
    names = ["x", "W", "R", "B"]
    if with_states:
        batch = 2
        inits.update({"h0": _w(dirs, batch, hidden), "c0": _w(dirs, batch, hidden)})
        names += ["", "h0", "c0"]
        if layout:
            inits["h0"], inits["c0"] = inits["h0"].transpose(1, 0, 2).copy(), inits["c0"].transpose(1, 0, 2).copy()
    node = helper.make_node("LSTM", names, ["y", "yh", "yc"], hidden_size=hidden, direction=direction, layout=layout)
    shape = (2, 6, inputs) if layout else (6, 2, inputs)
    return _graph([node], {"x": shape}, {"y": F32, "yh": F32, "yc": F32}, inits, opset)


def _gru_case(direction, linear_before_reset=1, **attrs):
    hidden, inputs, dirs = 5, 3, 2 if direction == "bidirectional" else 1
    inits = {"W": _w(dirs, 3 * hidden, inputs), "R": _w(dirs, 3 * hidden, hidden), "B": _w(dirs, 6 * hidden),
             "h0": _w(dirs, 1, hidden)}
    node = helper.make_node("GRU", ["x", "W", "R", "B", "", "h0"], ["y", "yh"], hidden_size=hidden,
                            direction=direction, linear_before_reset=linear_before_reset, **attrs)
    return _graph([node], {"x": (7, 1, inputs)}, {"y": F32, "yh": F32}, inits)


def _lstm_variant(**attrs):
    """An LSTM of what PyTorch's layer does not do (peepholes, clip, coupled gates, other activations):
    computed step by step."""
    hidden, inputs = 4, 3
    peephole = attrs.pop("peephole", False)
    inits = {"W": _w(1, 4 * hidden, inputs), "R": _w(1, 4 * hidden, hidden), "B": _w(1, 8 * hidden)}
    names = ["x", "W", "R", "B"]
    if peephole:
        inits["P"] = _w(1, 3 * hidden)
        names += ["", "", "", "P"]
    node = helper.make_node("LSTM", names, ["y", "yh", "yc"], hidden_size=hidden, **attrs)
    return _graph([node], {"x": (6, 2, inputs)}, {"y": F32, "yh": F32, "yc": F32}, inits)


def _rnn_case(activation):
    hidden, inputs = 4, 3
    inits = {"W": _w(1, hidden, inputs), "R": _w(1, hidden, hidden), "B": _w(1, 2 * hidden)}
    node = helper.make_node("RNN", ["x", "W", "R", "B"], ["y", "yh"], hidden_size=hidden, activations=[activation])
    return _graph([node], {"x": (5, 2, inputs)}, {"y": F32, "yh": F32}, inits)


def _shape_chain():
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape, with a ConstantOfShape/Range side chain."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["b"], axis=0),
        helper.make_node("Unsqueeze", ["b", "axes0"], ["b1"]),
        helper.make_node("Concat", ["b1", "minus1"], ["new_shape"], axis=0),
        helper.make_node("Reshape", ["x", "new_shape"], ["flat"]),
        helper.make_node("Shape", ["flat"], ["s2"]),
        helper.make_node("Slice", ["s2", "one", "two"], ["width"]),
        helper.make_node("Squeeze", ["width", "axes0"], ["w0"]),
        helper.make_node("Cast", ["w0"], ["wf"], to=TensorProto.FLOAT),
        helper.make_node("Range", ["zerof", "wf", "onef"], ["ramp"]),
        helper.make_node("ConstantOfShape", ["width"], ["ones"],
                         value=helper.make_tensor("v", TensorProto.FLOAT, [1], [2.0])),
        helper.make_node("Mul", ["ramp", "ones"], ["scale"]),
        helper.make_node("Size", ["x"], ["n"]),
        helper.make_node("Div", ["n", "four"], ["quarter"]),
        helper.make_node("Mod", ["quarter", "five"], ["rest"]),
        helper.make_node("Cast", ["rest"], ["rest_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["scale", "rest_f"], ["scale2"]),
        helper.make_node("Add", ["flat", "scale2"], ["y"]),
    ]
    inits = {"four": np.array(4, dtype=np.int64), "five": np.array(5, dtype=np.int64),"zero": np.array(0, dtype=np.int64), "axes0": _i(0), "minus1": _i(-1), "one": _i(1), "two": _i(2),
             "zerof": np.array(0.0, dtype=np.float32), "onef": np.array(1.0, dtype=np.float32)}
    return _graph(nodes, {"x": (2, 3, 4)}, {"y": (F32, [2, 12])}, inits)


def _masking():
    nodes = [
        helper.make_node("Greater", ["x", "zero"], ["pos"]),
        helper.make_node("Less", ["x", "lo"], ["neg"]),
        helper.make_node("Equal", ["pos", "neg"], ["eq"]),
        helper.make_node("Not", ["eq"], ["ne"]),
        helper.make_node("Or", ["pos", "neg"], ["either"]),
        helper.make_node("And", ["ne", "either"], ["both"]),
        helper.make_node("Where", ["both", "x", "fill"], ["y"]),
    ]
    inits = {"zero": np.array(0.2, dtype=np.float32), "lo": np.array(-0.3, dtype=np.float32),
             "fill": np.array(-7.0, dtype=np.float32)}
    return _graph(nodes, {"x": (3, 8)}, {"y": F32}, inits)


def _gelu_pattern(outputs=("y",)):
    """GELU as exporters write it out: x * (1 + erf(x / sqrt(2))) * 0.5."""
    nodes = [
        helper.make_node("Div", ["x", "sqrt2"], ["d"]),
        helper.make_node("Erf", ["d"], ["e"]),
        helper.make_node("Add", ["e", "one"], ["e1"]),
        helper.make_node("Mul", ["x", "e1"], ["m"]),
        helper.make_node("Mul", ["m", "half"], ["y"]),
    ]
    inits = {"sqrt2": np.array(1.4142135, dtype=np.float32), "one": np.array(1.0, dtype=np.float32),
             "half": np.array(0.5, dtype=np.float32)}
    return _graph(nodes, {"x": (4, 16)}, {name: F32 for name in outputs}, inits)


def _gelu_half_first():
    """The other order exporters write: (x * 0.5) * (1 + erf(x * (1 / sqrt(2))))."""
    nodes = [
        helper.make_node("Mul", ["x", "half"], ["h"]),
        helper.make_node("Mul", ["x", "rsqrt2"], ["d"]),
        helper.make_node("Erf", ["d"], ["e"]),
        helper.make_node("Add", ["one", "e"], ["e1"]),
        helper.make_node("Mul", ["h", "e1"], ["y"]),
    ]
    inits = {"rsqrt2": np.array(0.70710678, dtype=np.float32), "one": np.array(1.0, dtype=np.float32),
             "half": np.array(0.5, dtype=np.float32)}
    return _graph(nodes, {"x": (4, 16)}, {"y": F32}, inits)


def _gelu_lookalike():
    """Erf's output is also a graph output: not fused (the intermediate value is needed)."""
    return _gelu_pattern(outputs=("y", "e"))


def _variadic():
    nodes = [helper.make_node("Sum", ["x", "a", "b"], ["s"]), helper.make_node("Mean", ["s", "x"], ["m"]),
             helper.make_node("Max", ["m", "a"], ["mx"]), helper.make_node("Min", ["mx", "b", "x"], ["mn"]),
             helper.make_node("Pow", ["mn", "two"], ["p"]), helper.make_node("Sqrt", ["p"], ["r"]),
             helper.make_node("Sub", ["r", "x"], ["y"])]
    inits = {"a": _w(1, 6), "b": _w(6), "two": np.array(2.0, dtype=np.float32)}
    return _graph(nodes, {"x": (3, 6)}, {"y": F32}, inits)


OP_CASES = {
    # name: (model factory, input shape, marks)
    "conv1d_asymmetric_pads": (lambda: _single("Conv", (1, 3, 10), {"pads": [2, 1], "strides": [2]},
                                               {"w": _w(4, 3, 3), "b": _w(4)}, ["w", "b"]), ()),
    "conv2d_same_upper_stride2": (lambda: _single("Conv", (1, 2, 9, 7), {"auto_pad": "SAME_UPPER", "strides": [2, 2]},
                                                  {"w": _w(4, 2, 3, 3)}, ["w"]), ()),
    "conv2d_groups_dilation": (lambda: _single("Conv", (1, 4, 8, 8), {"group": 2, "dilations": [2, 1],
                                                                      "pads": [2, 1, 2, 1]},
                                               {"w": _w(6, 2, 3, 3), "b": _w(6)}, ["w", "b"]), ()),
    "conv_transpose1d": (lambda: _single("ConvTranspose", (1, 4, 6), {"strides": [2], "pads": [1, 1]},
                                         {"w": _w(4, 3, 4), "b": _w(3)}, ["w", "b"]), ()),
    "maxpool2d_pads": (lambda: _single("MaxPool", (1, 2, 7, 8), {"kernel_shape": [3, 2], "strides": [2, 2],
                                                                 "pads": [1, 0, 1, 1]}), ()),
    "maxpool1d": (lambda: _single("MaxPool", (1, 3, 11), {"kernel_shape": [3], "strides": [2]}), ()),
    "avgpool2d_exclude_pad": (lambda: _single("AveragePool", (1, 2, 6, 6), {"kernel_shape": [3, 3],
                                                                            "pads": [1, 1, 1, 1]}), ()),
    "avgpool2d_include_pad": (lambda: _single("AveragePool", (1, 2, 6, 6), {"kernel_shape": [2, 2], "strides": [2, 2],
                                                                            "pads": [1, 1, 1, 1],
                                                                            "count_include_pad": 1}), ()),
    "global_max_pool": (lambda: _single("GlobalMaxPool", (2, 3, 4, 5)), ()),
    "global_average_pool_1d": (lambda: _single("GlobalAveragePool", (2, 3, 7)), ()),
    "batch_normalization": (lambda: _single("BatchNormalization", (2, 3, 4, 4), {"epsilon": 1e-3},
                                            {"s": _w(3), "b": _w(3), "m": _w(3), "v": np.abs(_w(3)) + 0.5},
                                            ["s", "b", "m", "v"]), ()),
    "instance_normalization": (lambda: _single("InstanceNormalization", (2, 3, 10), {"epsilon": 1e-4},
                                               {"s": _w(3), "b": _w(3)}, ["s", "b"]), ()),
    "layer_normalization_axis_-2": (lambda: _single("LayerNormalization", (2, 3, 4, 5), {"axis": -2},
                                                    {"s": _w(4, 5), "b": _w(4, 5)}, ["s", "b"], opset=17), ()),
    "softmax_opset11_axis1_is_2d": (lambda: _single("Softmax", (2, 3, 4), {"axis": 1}, opset=11), ()),
    "softmax_opset13_axis1": (lambda: _single("Softmax", (2, 3, 4), {"axis": 1}), ()),
    "log_softmax_opset11_default": (lambda: _single("LogSoftmax", (2, 3, 4), opset=11), ()),
    "gemm_trans_alpha_beta": (lambda: _single("Gemm", (5, 4), {"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0},
                                              {"b": _w(3, 5), "c": _w(3)}, ["b", "c"]), ()),
    # The products that write their output whole (no bias, or one per column) and those that add
    # into a filled one (scaled, or a bias per row or per element).
    "gemm_alpha_no_bias": (lambda: _single("Gemm", (5, 4), {"alpha": 0.5}, {"b": _w(4, 3)}, ["b"]), ()),
    "gemm_no_bias": (lambda: _single("Gemm", (5, 4), {}, {"b": _w(4, 3)}, ["b"]), ()),
    "gemm_bias_per_row": (lambda: _single("Gemm", (5, 4), {}, {"b": _w(4, 3), "c": _w(5, 1)}, ["b", "c"]), ()),
    "gemm_bias_per_element": (lambda: _single("Gemm", (5, 4), {}, {"b": _w(4, 3), "c": _w(5, 3)}, ["b", "c"]), ()),
    "matmul_3d": (lambda: _single("MatMul", (2, 3, 4), inits={"w": _w(4, 6)}, extra_inputs=["w"]), ()),
    "reshape_zero_minus1": (lambda: _single("Reshape", (2, 3, 4), inits={"s": _i(0, -1, 2)}, extra_inputs=["s"]), ()),
    "flatten_axis2": (lambda: _single("Flatten", (2, 3, 4, 5), {"axis": 2}), ()),
    "transpose": (lambda: _single("Transpose", (2, 3, 4), {"perm": [2, 0, 1]}), ()),
    "squeeze_unsqueeze_opset11": (lambda: _graph([helper.make_node("Unsqueeze", ["x"], ["u"], axes=[0, 3]),
                                                  helper.make_node("Squeeze", ["u"], ["y"], axes=[0])],
                                                 {"x": (2, 3, 4)}, {"y": F32}, opset=11), ()),
    "squeeze_unsqueeze_opset13": (lambda: _graph([helper.make_node("Unsqueeze", ["x", "a"], ["u"]),
                                                  helper.make_node("Squeeze", ["u"], ["y"])],
                                                 {"x": (2, 3, 4)}, {"y": F32}, {"a": _i(-1, 1)}), ()),
    "split_concat_opset13": (lambda: _graph([helper.make_node("Split", ["x", "sizes"], ["a", "b", "c"], axis=1),
                                             helper.make_node("Concat", ["c", "a", "b"], ["y"], axis=-2)],
                                            {"x": (2, 6, 3)}, {"y": (F32, [2, 6, 3])}, {"sizes": _i(1, 2, 3)}), ()),
    "split_equal_opset11": (lambda: _graph([helper.make_node("Split", ["x"], ["a", "b"], axis=2),
                                            helper.make_node("Sub", ["a", "b"], ["y"])],
                                           {"x": (2, 3, 8)}, {"y": F32}, opset=11), ()),
    "slice_steps_negative_starts": (lambda: _single("Slice", (4, 10, 6), inits={
        "st": _i(-8, 1), "en": _i(9, 100), "ax": _i(1, 2), "sp": _i(2, 2)}, extra_inputs=["st", "en", "ax", "sp"]), ()),
    "slice_negative_step": (lambda: _single("Slice", (3, 7), inits={
        "st": _i(-1), "en": _i(-100), "ax": _i(1), "sp": _i(-2)}, extra_inputs=["st", "en", "ax", "sp"]), ()),
    "gather_indices": (lambda: _single("Gather", (4, 5, 3), {"axis": 1}, {"i": _i(-1, 0, 2, 2).reshape(2, 2)},
                                       ["i"]), ()),
    "gather_scalar_index": (lambda: _single("Gather", (4, 5), {"axis": 0}, {"i": np.array(2, dtype=np.int64)},
                                            ["i"]), ()),
    "expand": (lambda: _single("Expand", (3, 1), inits={"s": _i(2, 1, 4)}, extra_inputs=["s"]), ()),
    "tile": (lambda: _single("Tile", (2, 3), inits={"r": _i(2, 3)}, extra_inputs=["r"]), ()),
    "pad_constant_negative": (lambda: _single("Pad", (2, 3, 5), {"mode": "constant"},
                                              {"p": _i(0, 1, -1, 0, 2, 2), "v": np.array(1.5, dtype=np.float32)},
                                              ["p", "v"]), ()),
    "pad_reflect": (lambda: _single("Pad", (1, 2, 6), {"mode": "reflect"}, {"p": _i(0, 0, 2, 0, 0, 3)}, ["p"]),
                    ()),
    "pad_edge": (lambda: _single("Pad", (1, 2, 6), {"mode": "edge"}, {"p": _i(0, 0, 1, 0, 0, 2)}, ["p"]),
                 ()),
    "resize_nearest_asymmetric": (lambda: _single("Resize", (1, 2, 3, 4), {
        "mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"},
        {"roi": np.zeros(0, np.float32), "sc": np.array([1, 1, 2, 3], np.float32)}, ["roi", "sc"]),
        ()),
    "resize_linear_half_pixel": (lambda: _single("Resize", (1, 2, 5), {"mode": "linear"},
                                                 {"roi": np.zeros(0, np.float32), "sc": np.zeros(0, np.float32),
                                                  "sz": _i(1, 2, 8)}, ["roi", "sc", "sz"]), ()),
    "resize_bilinear_align_corners": (lambda: _single("Resize", (1, 2, 3, 4), {
        "mode": "linear", "coordinate_transformation_mode": "align_corners"},
        {"roi": np.zeros(0, np.float32), "sc": np.array([1, 1, 2, 1.5], np.float32)}, ["roi", "sc"]),
        ()),
    "upsample_opset9_nearest": (lambda: _single("Upsample", (1, 2, 3, 4), {"mode": "nearest"},
                                                {"sc": np.array([1, 1, 2, 3], np.float32)}, ["sc"], opset=9),
                                ()),
    "resize_opset10_nearest_fractional": (lambda: _single("Resize", (1, 2, 4, 6), {"mode": "nearest"},
                                                          {"sc": np.array([1, 1, 1.5, 0.5], np.float32)}, ["sc"],
                                                          opset=10), ()),
    "slice_opset9_attributes": (lambda: _single("Slice", (4, 10, 6), {"starts": [1, -4], "ends": [3, 1000],
                                                                      "axes": [0, 1]}, opset=9), ()),
    "pad_opset9_attributes": (lambda: _single("Pad", (1, 2, 5), {"pads": [0, 0, 1, 0, 1, 2], "value": -2.0},
                                              opset=9), ()),
    "clip_opset9_attributes": (lambda: _single("Clip", (3, 5), {"min": -0.3, "max": 0.2}, opset=9), ()),
    "split_topk_opset9_attributes": (lambda: _graph([
        helper.make_node("Split", ["x"], ["a", "b"], axis=1, split=[2, 4]),
        helper.make_node("TopK", ["b"], ["v", "i"], axis=1, k=2), helper.make_node("Concat", ["a", "v"], ["y"], axis=1)],
        {"x": (3, 6)}, {"y": F32}, opset=9), ()),
    "clip_opset11_inputs": (lambda: _single("Clip", (3, 5), {}, {"lo": np.array(-0.2, np.float32),
                                                                  "hi": np.array(0.4, np.float32)},
                                            ["lo", "hi"], opset=11), ()),
    "clip_max_only": (lambda: _single("Clip", (3, 5), {}, {"hi": np.array(0.1, np.float32)}, ["", "hi"]), ()),
    "masking_where": (_masking, ()),
    "gelu_pattern": (_gelu_pattern, ()),
    "gelu_pattern_half_first": (_gelu_half_first, ()),
    "gelu_lookalike_not_fused": (_gelu_lookalike, ()),
    "variadic_and_arithmetic": (_variadic, ()),
    "shape_arithmetic_chain": (_shape_chain, ()),
    "leaky_relu": (lambda: _single("LeakyRelu", (3, 7), {"alpha": 0.2}), ()),
    "elu": (lambda: _single("Elu", (3, 7), {"alpha": 0.7}), ()),
    "selu": (lambda: _single("Selu", (3, 7)), ()),
    "softplus": (lambda: _single("Softplus", (3, 7)), ()),
    "hard_sigmoid": (lambda: _single("HardSigmoid", (3, 7), {"alpha": 0.3, "beta": 0.4}), ()),
    "hard_swish": (lambda: _single("HardSwish", (3, 7), opset=14), ()),
    "prelu_channels": (lambda: _single("PRelu", (2, 3, 4), {}, {"s": _w(3, 1)}, ["s"]), ()),
    "misc_unary": (lambda: _graph([
        helper.make_node("Floor", ["x"], ["a"]), helper.make_node("Ceil", ["x"], ["b"]),
        helper.make_node("Round", ["x"], ["c"]), helper.make_node("Sign", ["x"], ["d"]),
        helper.make_node("Sin", ["x"], ["e"]), helper.make_node("Cos", ["x"], ["f"]),
        helper.make_node("Softsign", ["x"], ["g"]), helper.make_node("Relu", ["x"], ["h"]),
        helper.make_node("Celu", ["x"], ["i"], alpha=0.5), helper.make_node("ThresholdedRelu", ["x"], ["j"], alpha=0.3),
        helper.make_node("Sum", ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"], ["y"])],
        {"x": (4, 9)}, {"y": F32}), ()),
    "misc_compare": (lambda: _graph([
        helper.make_node("LessOrEqual", ["x", "z"], ["a"]), helper.make_node("GreaterOrEqual", ["x", "h"], ["b"]),
        helper.make_node("Xor", ["a", "b"], ["c"]), helper.make_node("IsNaN", ["x"], ["n"]),
        helper.make_node("Or", ["c", "n"], ["d"]), helper.make_node("CastLike", ["d", "x"], ["e"]),
        helper.make_node("Div", ["x", "e2"], ["f"]), helper.make_node("Mul", ["e", "f"], ["y"])],
        {"x": (3, 8)}, {"y": F32}, {"z": np.array(0.3, np.float32), "h": np.array(-0.4, np.float32),
                                    "e2": np.array(3.0, np.float32)}, opset=15), ()),
    "misc_reduce": (lambda: _graph([
        helper.make_node("ReduceL1", ["x"], ["a"], axes=[1]), helper.make_node("ReduceSumSquare", ["x"], ["b"], axes=[1]),
        helper.make_node("Abs", ["x"], ["ax"]), helper.make_node("ReduceLogSum", ["ax"], ["c"], axes=[1]),
        helper.make_node("ArgMin", ["x"], ["i"], axis=1), helper.make_node("Cast", ["i"], ["d"], to=TensorProto.FLOAT),
        helper.make_node("LpNormalization", ["x"], ["e"], axis=1, p=2), helper.make_node("ReduceMean", ["e"], ["f"], axes=[1]),
        helper.make_node("Sum", ["a", "b", "c", "d", "f"], ["y"])], {"x": (3, 6, 2)}, {"y": F32}), ()),
    "erf_tanh_sigmoid_exp_log": (lambda: _graph([
        helper.make_node("Erf", ["x"], ["a"]), helper.make_node("Tanh", ["a"], ["b"]),
        helper.make_node("Sigmoid", ["b"], ["c"]), helper.make_node("Exp", ["c"], ["d"]),
        helper.make_node("Log", ["d"], ["e"]), helper.make_node("Abs", ["x"], ["f"]),
        helper.make_node("Neg", ["f"], ["g"]), helper.make_node("Reciprocal", ["e"], ["h"]),
        helper.make_node("Add", ["g", "h"], ["y"])], {"x": (4, 5)}, {"y": F32}), ()),
    "einsum": (lambda: _single("Einsum", (2, 3, 4), {"equation": "bij,jk->bik"}, {"w": _w(4, 5)}, ["w"]), ()),
    "cumsum_exclusive_reverse": (lambda: _single("CumSum", (2, 6), {"exclusive": 1, "reverse": 1},
                                                 {"a": np.array(1, dtype=np.int64)}, ["a"]), ()),
    "cumsum": (lambda: _single("CumSum", (2, 6), {}, {"a": np.array(-1, dtype=np.int64)}, ["a"]), ()),
    "topk_values": (lambda: _graph([helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1)],
                                   {"x": (2, 9)}, {"v": F32, "i": I64}, {"k": _i(3)}), ()),
    "argmax_keepdims0": (lambda: _single("ArgMax", (3, 7), {"axis": 1, "keepdims": 0}, out_type=I64), ()),
    "reduce_mean_opset13_attr": (lambda: _single("ReduceMean", (2, 3, 4), {"axes": [1, 2], "keepdims": 0}), ()),
    "reduce_sum_opset13_input": (lambda: _single("ReduceSum", (2, 3, 4), {"keepdims": 1}, {"a": _i(-1)}, ["a"]), ()),
    "reduce_sum_opset11_attr": (lambda: _single("ReduceSum", (2, 3, 4), {"axes": [0]}, opset=11), ()),
    "reduce_max_min": (lambda: _graph([helper.make_node("ReduceMax", ["x"], ["a"], axes=[1]),
                                       helper.make_node("ReduceMin", ["x"], ["b"], axes=[1]),
                                       helper.make_node("Sub", ["a", "b"], ["y"])],
                                      {"x": (3, 5, 2)}, {"y": F32}), ()),
    "reduce_l2_logsumexp": (lambda: _graph([helper.make_node("ReduceL2", ["x"], ["a"], axes=[2], keepdims=0),
                                            helper.make_node("ReduceLogSumExp", ["x"], ["b"], axes=[2], keepdims=0),
                                            helper.make_node("Add", ["a", "b"], ["y"])],
                                           {"x": (2, 3, 5)}, {"y": F32}), ()),
    "identity_dropout": (lambda: _graph([helper.make_node("Identity", ["x"], ["a"]),
                                         helper.make_node("Dropout", ["a"], ["y"])], {"x": (2, 3)}, {"y": F32}), ()),
    "lstm_forward_states": (lambda: _lstm_case("forward", with_states=True), ()),
    "lstm_reverse": (lambda: _lstm_case("reverse"), ()),
    "lstm_bidirectional_states": (lambda: _lstm_case("bidirectional", with_states=True), ()),
    "gru_bidirectional": (lambda: _gru_case("bidirectional"), ()),
    "gru_reverse": (lambda: _gru_case("reverse"), ()),
    "gru_linear_before_reset_0": (lambda: _gru_case("bidirectional", linear_before_reset=0), ()),
    "gru_hard_sigmoid_clip": (lambda: _gru_case("forward", activations=["HardSigmoid", "Tanh"], clip=0.8), ()),
    "lstm_peepholes": (lambda: _lstm_variant(peephole=True), ()),
    "lstm_clip_input_forget": (lambda: _lstm_variant(clip=0.6, input_forget=1, direction="reverse"), ()),
    "lstm_activations_alpha": (lambda: _lstm_variant(activations=["HardSigmoid", "LeakyRelu", "Softsign"],
                                                     activation_alpha=[0.3, 0.1], activation_beta=[0.4]), ()),
    "rnn_tanh": (lambda: _rnn_case("Tanh"), ()),  # torch._VF.rnn_tanh/relu decompose into lowered ATen ops
    "rnn_relu": (lambda: _rnn_case("Relu"), ()),
}


def test_lstm_batch_first_layout_matches_sequence_first(op_cases):
    """layout=1 (batch first, opset 14; ONNX Runtime's CPU LSTM refuses it) against the same weights in
    layout 0, which ONNX Runtime checks in lstm_bidirectional_states."""
    path, x, ort_outputs = op_cases["lstm_bidirectional_states"]
    model = onnx.load(path)
    node = model.graph.node[0]
    node.attribute.append(helper.make_attribute("layout", 1))
    for init in model.graph.initializer:
        if init.name in ("h0", "c0"):
            init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init).transpose(1, 0, 2).copy(), init.name))
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[0].dim_value, dims[1].dim_value = x.shape[1], x.shape[0]
    from sonotype.export.onnx_import import OnnxModule
    module = OnnxModule(model).eval()
    with torch.no_grad():
        y, y_h, y_c = module(torch.from_numpy(x.transpose(1, 0, 2).copy()))
    assert_close("Y", y.numpy(), ort_outputs[0].transpose(2, 0, 1, 3))
    assert_close("Y_h", y_h.numpy(), ort_outputs[1].transpose(1, 0, 2))
    assert_close("Y_c", y_c.numpy(), ort_outputs[2].transpose(1, 0, 2))


@pytest.fixture(scope="module")
def op_cases(tmp_path_factory):
    """Every single-op case: its file, input, and ONNX Runtime's outputs (one node process for all)."""
    folder = tmp_path_factory.mktemp("onnx_ops")
    cases = {}
    for index, (name, (factory, _)) in enumerate(OP_CASES.items()):
        model = factory()
        path = str(folder / f"{name}.onnx")
        onnx.save(model, path)
        dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
        x = np.random.default_rng(100 + index).standard_normal(dims).astype(np.float32)
        cases[name] = (path, x)
    outputs = run_many([(path, {"x": x}) for path, x in cases.values()])
    return {name: (path, x, ort) for (name, (path, x)), ort in zip(cases.items(), outputs)}


def _op_params():
    return [pytest.param(name, id=name, marks=marks) for name, (_, marks) in OP_CASES.items()]


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in OP_CASES])
def test_op_interpreted_matches_onnx_runtime(name, op_cases):
    """The converter's torch computation of each op equals ONNX Runtime's (no engine involved)."""
    path, x, ort_outputs = op_cases[name]
    with torch.no_grad():
        outputs = _as_list(onnx_module(path)(torch.from_numpy(x)))
    assert len(outputs) == len(ort_outputs)
    for i, (y, expected) in enumerate(zip(outputs, ort_outputs)):
        assert tuple(y.shape) == expected.shape, f"output {i}: shape {tuple(y.shape)} != ONNX Runtime {expected.shape}"
        assert_close(f"output {i}", y.numpy(), expected)


@pytest.mark.parametrize("name", _op_params())
def test_op_in_engine_matches_onnx_runtime(name, op_cases):
    path, x, ort_outputs = op_cases[name]
    outputs = engine_outputs(path, x, len(ort_outputs))
    for i, (y, expected) in enumerate(zip(outputs, ort_outputs)):
        assert_close(f"output {i}", y, expected)


def test_every_converter_op_is_covered():
    """Each ONNX op type the converter accepts appears in a test graph above or in a family export."""
    from sonotype.export.registry import ONNX_OPS as OPS
    covered = set()
    for factory, _ in OP_CASES.values():
        covered.update(n.op_type for n in factory().graph.node)
    covered.update({"Constant", "Identity", "Transpose", "Shape"})  # in every torch export of the families
    covered.add("ReduceProd")  # test_recorder_errors_name_the_onnx_node: the engine has no product
    covered.add("_FusedGelu")  # test_gelu_written_out_becomes_one_op
    covered.add("_FusedLayerNorm")  # test_layer_norm_written_out_becomes_one_op
    covered.update({"_FusedSilu", "_FusedHardSwish"})  # test_gated_activations_written_out_become_one_op
    covered.update({"HannWindow", "HammingWindow", "BlackmanWindow", "MelWeightMatrix", "DFT", "STFT"})  # test_onnx_signal.py
    untested = sorted(set(OPS) - covered)
    assert not untested, f"ops without a test: {untested}"


# ----- refusals: all at once, and clear ---------------------------------------------------------

def test_unsupported_ops_are_all_reported_at_once(tmp_path):
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="ok_relu"),
        helper.make_node("Hardmax", ["a"], ["b"], name="hardmax_1"),
        helper.make_node("Det", ["b"], ["c"], name="det_1"),
        helper.make_node("Hardmax", ["c"], ["d"], name="hardmax_2"),
        helper.make_node("Unique", ["d"], ["e"], name="unique_1"),
        helper.make_node("Add", ["e", "e"], ["y"], name="ok_add"),
    ]
    model = _graph(nodes, {"x": (3, 3)}, {"y": (F32, [3, 3])})
    path = str(tmp_path / "unsupported.onnx")
    onnx.save(model, path)
    with pytest.raises(ExportError) as caught:
        from_onnx(path, str(tmp_path / "m.safetensors"))
    message = str(caught.value)
    assert "4 nodes of 3 operator types" in message
    assert "Hardmax x2: hardmax_1, hardmax_2" in message
    assert "Det x1: det_1" in message
    assert "Unique x1: unique_1" in message
    assert "Relu" not in message and "Add" not in message
    assert not os.path.exists(tmp_path / "m.safetensors")


def test_node_failures_are_all_reported_at_once(tmp_path):
    """Nodes that fail while converting (attribute values, input-dependent shapes) are listed together."""
    nodes = [
        helper.make_node("Resize", ["x", "", "sc"], ["a"], name="cubic_resize", mode="cubic"),
        helper.make_node("Relu", ["a"], ["b"], name="after_resize"),
        helper.make_node("Cast", ["x"], ["xi"], name="cast", to=TensorProto.INT64),
        helper.make_node("Reshape", ["x", "xi"], ["c"], name="data_dependent_reshape"),
        helper.make_node("MaxPool", ["x"], ["d", "idx"], name="pool_with_indices", kernel_shape=[2, 2]),
        helper.make_node("Add", ["x", "x"], ["y"], name="fine"),
    ]
    model = _graph(nodes, {"x": (1, 4, 4, 4)}, {"y": F32, "b": (F32, [1, 4, 8, 8]), "c": (F32, [4, 4, 4, 4]), "d": F32},
                   {"sc": np.array([1, 1, 2, 2], np.float32)})
    path = str(tmp_path / "failing.onnx")
    onnx.save(model, path)
    with pytest.raises(ExportError) as caught:
        from_onnx(path, str(tmp_path / "m.safetensors"))
    message = str(caught.value)
    assert "3 ONNX nodes could not be converted" in message
    assert "'cubic_resize' (Resize): Resize mode 'cubic' is not supported" in message
    assert "'data_dependent_reshape' (Reshape): its shape (input 1) depends on the model's input" in message
    assert "'pool_with_indices' (MaxPool): MaxPool's Indices output is not supported" in message
    assert "1 nodes that depend on them were not tried" in message


def test_recorder_errors_name_the_onnx_node(tmp_path):
    """A torch op the exporter cannot lower is reported against the ONNX node that produced it."""
    node = helper.make_node("ReduceProd", ["x"], ["y"], name="the_product", axes=[1])
    path = str(tmp_path / "prod.onnx")
    onnx.save(_graph([node], {"x": (2, 3)}, {"y": F32}), path)
    with pytest.raises(ExportError) as caught:
        from_onnx(path, str(tmp_path / "m.safetensors"))
    message = str(caught.value)
    assert "aten::prod" in message and "node 'the_product' (ReduceProd)" in message, message


@pytest.mark.parametrize("content,match", [
    (b"", "not an ONNX model"),
    (b"hello, this is a text file\n", "not an ONNX model"),
    (bytes(range(256)) * 8, "not an ONNX model"),
    (b"\x08\x07\x12\x07pytorch", "not an ONNX model"),  # parses as a ModelProto without a graph
], ids=["empty", "text", "binary", "no_graph"])
def test_not_an_onnx_file(tmp_path, content, match):
    path = tmp_path / "bad.onnx"
    path.write_bytes(content)
    with pytest.raises(ExportError, match=match):
        from_onnx(str(path), str(tmp_path / "m.safetensors"))


def test_missing_file(tmp_path):
    with pytest.raises(ExportError, match="cannot read"):
        from_onnx(str(tmp_path / "nowhere.onnx"), str(tmp_path / "m.safetensors"))


def test_external_data_is_refused(tmp_path):
    model = _single("MatMul", (2, 64), inits={"w": _w(64, 64)}, extra_inputs=["w"])
    path = str(tmp_path / "external.onnx")
    from onnx.external_data_helper import convert_model_to_external_data
    convert_model_to_external_data(model, all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    onnx.save(model, path)
    assert os.path.exists(tmp_path / "weights.bin")
    with pytest.raises(ExportError, match="external data files .*save_as_external_data=False"):
        from_onnx(path, str(tmp_path / "m.safetensors"))


def test_invalid_graph_is_refused(tmp_path):
    node = helper.make_node("Add", ["x", "nowhere"], ["y"])
    graph = helper.make_graph([node], "bad", [helper.make_tensor_value_info("x", F32, [2])],
                              [helper.make_tensor_value_info("y", F32, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = tmp_path / "invalid.onnx"
    path.write_bytes(model.SerializeToString())
    with pytest.raises(ExportError, match="not a valid ONNX model"):
        from_onnx(str(path), str(tmp_path / "m.safetensors"))


@pytest.mark.parametrize("opset", [8, 18])
def test_opset_out_of_range(tmp_path, opset):
    model = _single("Relu", (2, 3), opset=opset)
    path = str(tmp_path / "opset.onnx")
    onnx.save(model, path)
    with pytest.raises(ExportError, match=f"operator set {opset}; the converter supports opsets 9 to 17"):
        from_onnx(path, str(tmp_path / "m.safetensors"))


def test_two_inputs_and_integer_input_are_refused(tmp_path):
    two = _graph([helper.make_node("Add", ["x", "z"], ["y"])], {"x": (2,), "z": (2,)}, {"y": F32})
    path = str(tmp_path / "two.onnx")
    onnx.save(two, path)
    with pytest.raises(ExportError, match=r"one input; this ONNX graph takes 2 \(x, z\)"):
        from_onnx(path, str(tmp_path / "m.safetensors"))
    node = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)
    graph = helper.make_graph([node], "int", [helper.make_tensor_value_info("x", I64, [2])],
                              [helper.make_tensor_value_info("y", F32, [2])])
    path = str(tmp_path / "int.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    with pytest.raises(ExportError, match="engine takes float32"):
        from_onnx(path, str(tmp_path / "m.safetensors"))


def test_input_without_a_declared_shape_is_refused(tmp_path):
    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph([node], "noshape", [helper.make_tensor_value_info("x", F32, None)],
                              [helper.make_tensor_value_info("y", F32, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = str(tmp_path / "noshape.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    with pytest.raises(ExportError, match="not a valid ONNX model: .*shape"):  # the checker requires one
        from_onnx(path, str(tmp_path / "m.safetensors"))


def test_output_independent_of_input_is_refused(tmp_path):
    model = _graph([helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Identity", ["w"], ["y"])],
                   {"x": (2,)}, {"y": F32, "a": F32}, {"w": _w(2)})
    path = str(tmp_path / "const.onnx")
    onnx.save(model, path)
    with pytest.raises(ExportError, match="does not depend on the input"):
        from_onnx(path, str(tmp_path / "m.safetensors"))


def test_hostile_sizes_are_refused_before_allocating(tmp_path):
    """Shapes from the file never make the converter allocate without bound."""
    big = helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])
    nodes = [
        helper.make_node("ConstantOfShape", ["huge"], ["c"], name="huge_constant", value=big),
        helper.make_node("Add", ["x", "c"], ["a"], name="add_huge"),
        helper.make_node("Expand", ["x", "huge"], ["e"], name="huge_expand"),
        helper.make_node("Range", ["zero", "ten", "tiny"], ["r"], name="huge_range"),
        helper.make_node("Tile", ["x", "reps"], ["t"], name="huge_tile"),
        helper.make_node("Relu", ["x"], ["y"], name="fine"),
    ]
    inits = {"huge": _i(1 << 20, 1 << 20), "zero": np.array(0.0, np.float32), "ten": np.array(10.0, np.float32),
             "tiny": np.array(1e-9, np.float32), "reps": _i(1 << 30, 1)}
    model = _graph(nodes, {"x": (1, 4)}, {"y": F32, "a": (F32, [1 << 20, 1 << 20]), "e": (F32, [1 << 20, 1 << 20]),
                                          "r": (F32, [None]), "t": (F32, [1 << 30, 4])}, inits)
    path = str(tmp_path / "huge.onnx")
    onnx.save(model, path)
    with pytest.raises(ExportError) as caught:
        from_onnx(path, str(tmp_path / "m.safetensors"))
    message = str(caught.value)
    assert "4 ONNX nodes could not be converted" in message
    for name in ("huge_constant", "huge_expand", "huge_range", "huge_tile"):
        assert f"'{name}'" in message and "more than 2^28 elements" in message
    with pytest.raises(ExportError, match="more than 2"):
        dynamic = str(tmp_path / "dynamic.onnx")
        onnx.save(_graph([helper.make_node("Relu", ["x"], ["y"])], {"x": ("n", 4)}, {"y": F32}), dynamic)
        from_onnx(dynamic, str(tmp_path / "m.safetensors"), input_shape=[1 << 27, 4])


def test_onnx_runtime_install_failure_is_loud(tmp_path, monkeypatch):
    """Without the registry, installing ONNX Runtime raises (the tests fail rather than skip)."""
    import shutil

    from sonotype.testing.ort_runner import ORT_DIR, ensure_installed
    for name in ("package.json", "package-lock.json"):
        shutil.copy(os.path.join(ORT_DIR, name), tmp_path / name)
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("npm_config_offline", "true")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    with pytest.raises(RuntimeError, match="installing onnxruntime-node with npm failed"):
        ensure_installed(str(tmp_path))
    assert not (tmp_path / "node_modules" / ".sonotype-lock").exists()
