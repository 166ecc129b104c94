"""ONNX in, signal processing (opset 17): HannWindow / HammingWindow / BlackmanWindow,
MelWeightMatrix, DFT and STFT, and a waveform log-mel model made of them, converted and run in the
engine. Windows and mel weights are compared with ONNX Runtime exactly; spectra with a float64
reference (numpy) at the parity bounds, and with ONNX Runtime at ITS accuracy: its float32 DFT of a
400-point frame errs by ~1e-3 (measured here), ours by ~4e-6."""

import os
import tempfile

import numpy as np
import onnx
import pytest
import torch
from onnx import TensorProto, helper, numpy_helper

from sonotype.engine_cli import run_model
from sonotype.export import from_onnx
from sonotype.testing.ort_runner import run_many
from sonotype.testing.parity import compare

F32 = TensorProto.FLOAT
RATE, N_FFT, HOP, MELS, SAMPLES = 16000, 400, 160, 40, 4000
FRAMES = 1 + (SAMPLES - N_FFT) // HOP


def _i64(value):
    return np.array(value, dtype=np.int64)


def _model(nodes, x_shape, y_shape, inits):
    """An opset-17 model x -> … -> y (no shape inference: onnx 1.12 infers STFT's bins wrongly)."""
    graph = helper.make_graph(nodes, "signal", [helper.make_tensor_value_info("x", F32, list(x_shape))],
                              [helper.make_tensor_value_info("y", F32, list(y_shape))],
                              initializer=[numpy_helper.from_array(np.asarray(v), name=k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def _mel_inputs(mels=MELS, n=N_FFT, rate=RATE, low=20.0, high=8000.0):
    return {"mels": _i64(mels), "n": _i64(n), "rate": _i64(rate),
            "lo": np.array(low, dtype=np.float32), "hi": np.array(high, dtype=np.float32)}


def _log_mel_model():
    """Waveform [1, SAMPLES] -> Hann-windowed STFT -> power -> mel weights -> log: [1, frames, mels]."""
    nodes = [helper.make_node("Unsqueeze", ["x", "last"], ["signal"]),
             helper.make_node("HannWindow", ["n"], ["window"]),
             helper.make_node("STFT", ["signal", "hop", "window", "n"], ["spectrum"]),
             helper.make_node("ReduceSumSquare", ["spectrum"], ["power"], axes=[-1], keepdims=0),
             helper.make_node("MelWeightMatrix", ["mels", "n", "rate", "lo", "hi"], ["weights"]),
             helper.make_node("MatMul", ["power", "weights"], ["mel"]),
             helper.make_node("Add", ["mel", "floor"], ["floored"]),
             helper.make_node("Log", ["floored"], ["y"])]
    inits = dict(_mel_inputs(), last=_i64([-1]), hop=_i64(HOP), floor=np.array(1e-6, dtype=np.float32))
    return _model(nodes, (1, SAMPLES), (1, FRAMES, MELS), inits)


def _engine(model, x):
    with tempfile.TemporaryDirectory() as tmp:
        onnx_path, path = os.path.join(tmp, "m.onnx"), os.path.join(tmp, "m.safetensors")
        onnx.save(model, onnx_path)
        from_onnx(onnx_path, path)
        return run_model(path, x, 0)


def _ort(model, x):
    with tempfile.TemporaryDirectory() as tmp:
        onnx_path = os.path.join(tmp, "m.onnx")
        onnx.save(model, onnx_path)
        return run_many([(onnx_path, {"x": x})])[0][0]


def _assert_parity(what, actual, expected, **bounds):
    result = compare(np.asarray(actual, dtype=np.float32), np.asarray(expected, dtype=np.float32))
    assert result.ok(**bounds), f"{what}: max abs error {result.max_abs:.3g}, max rel error {result.max_rel:.3g}"


@pytest.mark.parametrize("op,periodic", [(op, p) for op in ("HannWindow", "HammingWindow", "BlackmanWindow") for p in (0, 1)])
def test_windows_match_onnx_runtime(op, periodic):
    model = _model([helper.make_node(op, ["n"], ["w"], periodic=periodic), helper.make_node("Add", ["x", "w"], ["y"])],
                   (1, 64), (1, 64), {"n": _i64(64)})
    x = np.zeros((1, 64), dtype=np.float32)
    _assert_parity(op, _engine(model, x), _ort(model, x))


@pytest.mark.parametrize("config", [(40, 400, 16000, 20.0, 8000.0), (64, 512, 22050, 0.0, 11025.0), (10, 64, 8000, 100.0, 3000.0)])
def test_mel_weight_matrix_matches_onnx_runtime(config):
    mels, n = config[0], config[1]
    bins = n // 2 + 1
    model = _model([helper.make_node("MelWeightMatrix", ["mels", "n", "rate", "lo", "hi"], ["w"]),
                    helper.make_node("MatMul", ["x", "w"], ["y"])], (bins, bins), (bins, mels), _mel_inputs(*config))
    x = np.eye(bins, dtype=np.float32)  # the product is the matrix itself
    expected = _ort(model, x)
    assert np.count_nonzero(expected) > mels
    _assert_parity("MelWeightMatrix", _engine(model, x), expected, max_abs=0.0, max_rel=0.0)


def _reference_log_mel(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
    signal = x[0].astype(np.float64)
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)
    spectra = np.stack([np.fft.rfft(signal[f * HOP:f * HOP + N_FFT] * window) for f in range(FRAMES)])
    return np.log(np.abs(spectra) ** 2 @ weights + 1e-6)[None]


def test_waveform_log_mel_model_matches_float64_and_onnx_runtime():
    x = np.random.default_rng(17).standard_normal((1, SAMPLES)).astype(np.float32) * 0.1
    model = _log_mel_model()
    bins = N_FFT // 2 + 1
    weights_model = _model([helper.make_node("MelWeightMatrix", ["mels", "n", "rate", "lo", "hi"], ["w"]),
                            helper.make_node("MatMul", ["x", "w"], ["y"])], (bins, bins), (bins, MELS), _mel_inputs())
    weights = _ort(weights_model, np.eye(bins, dtype=np.float32)).astype(np.float64)
    reference = _reference_log_mel(x, weights)
    engine = _engine(model, x)
    _assert_parity("engine vs float64", engine, reference)
    ort = _ort(model, x)
    _assert_parity("ONNX Runtime vs float64, at its own accuracy", ort, reference, max_abs=5e-3, max_rel=5e-3)
    _assert_parity("engine vs ONNX Runtime", engine, ort, max_abs=5e-3, max_rel=5e-3)


@pytest.mark.parametrize("onesided", [0, 1])
def test_dft_of_a_real_signal(onesided):
    n = 64
    bins = n // 2 + 1 if onesided else n
    model = _model([helper.make_node("Unsqueeze", ["x", "last"], ["signal"]),
                    helper.make_node("DFT", ["signal"], ["y"], axis=1, onesided=onesided)],
                   (2, n), (2, bins, 2), {"last": _i64([-1])})
    x = np.random.default_rng(3).standard_normal((2, n)).astype(np.float32)
    spectrum = np.fft.rfft(x.astype(np.float64), axis=1) if onesided else np.fft.fft(x.astype(np.float64), axis=1)
    reference = np.stack([spectrum.real, spectrum.imag], -1)
    _assert_parity("engine vs float64", _engine(model, x), reference)
    _assert_parity("ONNX Runtime vs float64", _ort(model, x), reference, max_abs=1e-4)


def test_unsupported_signal_options_are_refused(tmp_path):
    from sonotype.export import ExportError
    model = _model([helper.make_node("Unsqueeze", ["x", "last"], ["signal"]),
                    helper.make_node("DFT", ["signal"], ["y"], axis=1, inverse=1)], (2, 8), (2, 8, 2), {"last": _i64([-1])})
    onnx.save(model, str(tmp_path / "m.onnx"))
    with pytest.raises(ExportError, match="the inverse DFT is not supported"):
        from_onnx(str(tmp_path / "m.onnx"), str(tmp_path / "m.safetensors"))
