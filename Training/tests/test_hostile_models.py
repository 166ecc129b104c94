"""The hostile model-file corpus (Tests/data/hostile-models) through every command that loads a
model: each file is refused with its specific message and exit code 1, never a crash, a hang or a
terminal escape on stderr; the valid base classifies audio."""

import json
import os
import subprocess

import numpy as np
import pytest

from sonotype.engine_cli import cli_path

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CORPUS = os.path.join(ROOT, "Tests", "data", "hostile-models")
AUDIO = os.path.join(ROOT, "Resources", "examples", "speech.wav")
MANIFEST = json.load(open(os.path.join(CORPUS, "manifest.json")))


def run(*args):
    # A generous deadline: a refused file takes milliseconds; only a hang would come near it.
    return subprocess.run([cli_path(), *map(str, args)], capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def window_input(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "window.npy"
    np.save(path, np.zeros((1, 8, 11), dtype=np.float32))
    return path


def unsafe(c):
    """A character no message may hold raw: C0 controls but the newline, DEL, C1 controls (U+009B is
    a one-byte CSI), bidirectional-text controls and invisible format characters."""
    code = ord(c)
    return ((code < 0x20 and c != "\n") or 0x7f <= code <= 0x9f or code in (0x061c, 0x200e, 0x200f, 0x00ad, 0xfeff)
            or 0x202a <= code <= 0x202e or 0x2066 <= code <= 0x2069 or 0x200b <= code <= 0x200d or 0x2060 <= code <= 0x2064)


def commands(item, window_input):
    model = os.path.join(CORPUS, item["file"])
    limits = ["--max-memory", str(item["max_memory_mib"])] if item["max_memory_mib"] else []
    out = str(window_input) + ".out.npy"
    return {
        "inspect": ["inspect", *limits, model],
        "run-model": ["run-model", *limits, model, "--input", window_input, "--output", out],
        "classify": ["classify", *limits, "--model", model, AUDIO],
    }


@pytest.mark.parametrize("item", MANIFEST, ids=[item["file"] for item in MANIFEST])
def test_every_command_refuses_the_file_with_its_message(item, window_input):
    for name, args in commands(item, window_input).items():
        if item["stage"] == "frontend" and name == "run-model":
            continue  # such a model loads; its input is not the base's window
        result = run(*args)
        stderr = result.stderr.decode("utf-8")
        refused = item["stage"] == "load" or (item["stage"] == "frontend" and name == "classify")
        context = "%s %s: rc %d, stderr %r" % (name, item["file"], result.returncode, stderr[-400:])
        if not refused:
            assert result.returncode == 0, context
            continue
        assert result.returncode == 1, context  # 1: refused; a signal would be negative
        assert item["expect"] in stderr, context
        assert not any(unsafe(c) for c in stderr + result.stdout.decode("utf-8", "replace")), context


def test_the_valid_base_classifies_audio():
    result = run("classify", "--summary", "--model", os.path.join(CORPUS, "valid_base.safetensors"), AUDIO)
    assert result.returncode == 0, result.stderr
    header, row = result.stdout.decode().strip().split("\n")
    assert header == "file,label,share,low,mid,high,duration_s,windows,mean_low,mean_mid,mean_high,error"
    probabilities = [float(p) for p in row.split(",")[8:11]]
    assert abs(sum(probabilities) - 1.0) < 1e-4


def test_the_corpus_is_what_its_generator_writes(tmp_path):
    """The committed files are reproducible from make_corpus.py (no hand-edited bytes)."""
    import shutil
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    subprocess.run(["/usr/bin/python3", str(copy / "make_corpus.py")], check=True, capture_output=True)
    for item in MANIFEST:
        assert (copy / item["file"]).read_bytes() == open(os.path.join(CORPUS, item["file"]), "rb").read(), item["file"]
    assert json.load(open(copy / "manifest.json")) == MANIFEST
