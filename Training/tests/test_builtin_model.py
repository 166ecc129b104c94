"""The committed built-in model: loads, has the 12 labels in order, classifies the bundled examples."""

import csv
import io
import json
import os
import subprocess

from sonotype.data import CLASSES
from sonotype.engine_cli import cli_path
from sonotype.export.safetensors_io import read_safetensors

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MODEL = os.path.join(ROOT, "Resources", "models", "default.safetensors")
EXAMPLES = os.path.join(ROOT, "Resources", "examples")


def test_committed_model_file():
    tensors, metadata = read_safetensors(MODEL)
    assert json.loads(metadata["labels"]) == CLASSES
    frontend = json.loads(metadata["frontend"])
    assert frontend["sample_rate"] == 16000 and frontend["n_mels"] == 64
    assert "frontend.mel_fbanks" in tensors
    assert os.path.getsize(MODEL) <= 4_000_000


def test_builtin_model_is_embedded_in_the_cli():
    result = subprocess.run([cli_path(), "inspect"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "model:       built-in" in result.stdout
    assert "labels:      " + ", ".join(CLASSES) in result.stdout
    from_file = subprocess.run([cli_path(), "inspect", MODEL], capture_output=True, text=True, check=True).stdout
    assert from_file.split("\n", 1)[1] == result.stdout.split("\n", 1)[1]  # all but the name line


def test_bundled_examples_are_classified_correctly():
    examples = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".wav"))
    assert len(examples) >= 5
    assert sum(os.path.getsize(os.path.join(EXAMPLES, f)) for f in examples) <= 1_000_000
    result = subprocess.run([cli_path(), "classify", "--summary", EXAMPLES], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))
    header = rows[0]
    assert header[:3] == ["file", "label", "share"] and header[3:3 + len(CLASSES)] == CLASSES
    means = [header.index(f"mean_{c}") for c in CLASSES]
    for row in rows[1:]:
        # The model's answer for the file: the mean of its windows (the label, by time held in
        # segments, also depends on the detector's rules).
        expected = os.path.basename(row[0]).split(".")[0].split("_")[0]
        mean = [float(row[i]) for i in means]
        assert CLASSES[mean.index(max(mean))] == expected, f"{row[0]}: classified as {row[1]} ({row[2]}), means {mean}"
