"""The `sonotype` command line: help, exit codes and messages for bad arguments and files."""

import os
import subprocess
import wave

import numpy as np
import pytest
import torch

from sonotype.engine_cli import cli_path
from sonotype.export import export_model


def sonotype(*args):
    return subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "linear.safetensors"
    torch.manual_seed(0)
    export_model(torch.nn.Linear(4, 3).eval(), torch.randn(1, 4), str(path), labels=["a", "b", "c"])
    return path


@pytest.mark.parametrize("command", [[], ["run-model"], ["inspect"]])
def test_help(command):
    result = sonotype(*command, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: sonotype")


def test_version_is_the_project_s():
    """`sonotype --version` prints the version CMake's project() gives (the plugin's too)."""
    import re
    from pathlib import Path

    cmake = (Path(__file__).resolve().parents[2] / "CMakeLists.txt").read_text()
    version = re.search(r"project\(Sonotype VERSION ([0-9.]+)", cmake).group(1)
    result = sonotype("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"sonotype {version}\n"
    assert "--version" in sonotype("--help").stdout


def test_no_arguments_prints_usage_and_fails():
    result = sonotype()
    assert result.returncode == 2 and "usage:" in result.stderr


def test_unknown_command_and_option():
    assert sonotype("frobnicate").returncode == 2
    result = sonotype("inspect", "--bogus", "x")
    assert result.returncode == 2 and "unknown option --bogus" in result.stderr


def test_run_model_round_trip(model_file, tmp_path):
    x = np.arange(4, dtype=np.float32).reshape(1, 4)
    np.save(tmp_path / "in.npy", x)
    result = sonotype("run-model", model_file, "--input", tmp_path / "in.npy", "--output", tmp_path / "out.npy")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    torch.manual_seed(0)  # the same weights as the exported model
    linear = torch.nn.Linear(4, 3)
    expected = linear(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), expected, atol=1e-6)


def test_run_model_errors(model_file, tmp_path):
    np.save(tmp_path / "wrong.npy", np.zeros((1, 5), dtype=np.float32))
    np.save(tmp_path / "ints.npy", np.zeros((1, 4), dtype=np.int64))
    (tmp_path / "bad.safetensors").write_bytes(b"\x0a\x00\x00\x00\x00\x00\x00\x00{not json}")
    out = tmp_path / "out.npy"
    cases = [
        (["run-model", model_file, "--output", out], 2, "--input is required"),
        (["run-model", "--input", tmp_path / "wrong.npy", "--output", out], 2, "exactly one MODEL"),
        (["run-model", model_file, "--input", tmp_path / "wrong.npy", "--output", out], 1, "has shape [1, 5], the model expects [1, 4]"),
        (["run-model", model_file, "--input", tmp_path / "ints.npy", "--output", out], 1, "dtype '<i8' is not supported"),
        (["run-model", model_file, "--input", tmp_path / "missing.npy", "--output", out], 1, "cannot open"),
        (["run-model", tmp_path / "missing.safetensors", "--input", tmp_path / "wrong.npy", "--output", out], 1, "cannot open model file"),
        (["run-model", tmp_path / "bad.safetensors", "--input", tmp_path / "wrong.npy", "--output", out], 1, "not valid JSON"),
        (["run-model", model_file, "--input", tmp_path / "wrong.npy", "--output", out, "--output-index", "x"], 2, "--output-index"),
        (["run-model", model_file, "--input", tmp_path / "wrong.npy", "--output", out, "--output-index", "3"], 2, "has 1 outputs"),
        (["inspect", model_file, model_file], 2, "at most one MODEL"),
        (["inspect", tmp_path / "bad.safetensors"], 1, "not valid JSON"),
    ]
    for args, code, message in cases:
        result = sonotype(*args)
        assert result.returncode == code, (args, result.stderr)
        assert result.stderr.startswith("error: ") and message in result.stderr, (args, result.stderr)
        assert result.stdout == ""


def test_inspect(model_file):
    result = sonotype("inspect", model_file)
    assert result.returncode == 0
    assert "input 0:     [1, 4]" in result.stdout
    assert "output 0:    [1, 3]" in result.stdout
    assert "labels:      a, b, c" in result.stdout
    assert "parameters:  15 floats" in result.stdout
    ops = sonotype("inspect", "--ops").stdout.split()
    assert "attention" in ops and "gemm" in ops and "layer_norm" in ops


@pytest.mark.parametrize("command", ["classify", "run-model", "inspect", "features"])
def test_each_command_has_generated_help(command):
    for flag in ["--help", "-h"]:
        result = sonotype(command, flag)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith(f"usage: sonotype {command}")
        assert "--max-memory MIB" in result.stdout and result.stderr == ""


@pytest.mark.parametrize("args, option", [
    (["run-model", "model.safetensors", "--input", "in.npy", "--output-index", "-1"], "--output-index"),
    (["run-model", "model.safetensors", "--input", "in.npy", "--output-index", "18446744073709551615"], "--output-index"),
    (["run-model", "model.safetensors", "--input", "in.npy", "--benchmark", "1e3"], "--benchmark"),
    (["classify", "--jobs", "99999999999999999999", "x.wav"], "--jobs"),
    (["classify", "--jobs", "-1", "x.wav"], "--jobs"),
    (["classify", "--jobs=0x10", "x.wav"], "--jobs"),
    (["classify", "--hop", "nan", "x.wav"], "--hop"),
    (["classify", "--max-ops", "1e16", "x.wav"], "--max-ops"),
    (["features", "--model", "m.safetensors", "--input", "in.npy", "--output", "out.npy", "--rate", "-48000"], "--rate"),
])
def test_out_of_range_numbers_are_refused_by_name(args, option):
    result = sonotype(*args)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"error: {option}") and result.stdout == ""


def test_double_dash_ends_the_options(tmp_path):
    weird = tmp_path / "-weird.wav"
    rate = 16000
    samples = (np.sin(2 * np.pi * 440 * np.arange(rate) / rate) * 0.5 * 32767).astype("<i2")
    with wave.open(str(weird), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(samples.tobytes())
    cli = os.path.abspath(cli_path())  # (run in tmp_path)
    refused = subprocess.run([cli, "classify", "--summary", "-weird.wav"], capture_output=True, text=True, cwd=tmp_path)
    assert refused.returncode == 2 and "unknown option -weird.wav" in refused.stderr
    result = subprocess.run([cli, "classify", "--summary", "--", "-weird.wav"], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = result.stdout.splitlines()
    assert len(rows) == 2 and rows[1].startswith("-weird.wav,")
    # `--` after a path and an option too.
    (tmp_path / "a.wav").write_bytes(weird.read_bytes())
    result = subprocess.run([cli, "classify", "a.wav", "--summary", "--", "-weird.wav"], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [row.split(",")[0] for row in result.stdout.splitlines()[1:]] == ["-weird.wav", "a.wav"]
    # After `--` an option's name is a file name too.
    result = sonotype("classify", "--", "--jobs")
    assert result.returncode == 1 and "error: --jobs: no such file or folder" in result.stderr


def test_options_take_inline_values(model_file, tmp_path):
    np.save(tmp_path / "in.npy", np.zeros((1, 4), dtype=np.float32))
    result = sonotype("run-model", model_file, f"--input={tmp_path / 'in.npy'}", f"--output={tmp_path / 'out.npy'}", "--output-index=0")
    assert result.returncode == 0, result.stderr
    assert np.load(tmp_path / "out.npy").shape == (1, 3)


def test_unknown_command_is_named():
    result = sonotype("frobnicate")
    assert result.stderr.startswith("error: unknown command 'frobnicate'") and "usage: sonotype COMMAND" in result.stderr
