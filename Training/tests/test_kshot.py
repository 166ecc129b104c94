"""The k-shot figures (python3 -m sonotype.evaluate.kshot): the rules it applies to the engine's
windows are what `sonotype learn` writes and `sonotype classify --model` runs, window by window and
file by file, and learn's leave-one-out count; the command runs and writes its report. On files CI has:
Resources/examples cut into three files per class (no reserved source needed)."""

import re
from pathlib import Path

import numpy as np
import pytest
from scipy.io import wavfile

from sonotype.evaluate import kshot, sets
from test_classify import sonotype, write_wav

EXAMPLES = Path(__file__).resolve().parents[2] / "Resources" / "examples"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Three files per class: the example's first 1.5 s, its last 1.5 s, and all 2 s of it."""
    out = tmp_path_factory.mktemp("kshot")
    for path in sorted(EXAMPLES.glob("*.wav")):
        rate, data = wavfile.read(path)
        x = data.astype(np.float32) / 32768
        pieces = [x[: int(1.5 * rate)], x[int(0.5 * rate):], x]
        for i, piece in enumerate(pieces):
            write_wav(out / sets.file_name(path.stem, "examples", i), piece, rate)
    return out


@pytest.fixture(scope="module")
def windows(folder):
    return kshot.engine_windows(str(folder), kshot.folder_set(str(folder))["files"])


def columns(header, rows, names):
    """The named columns of classify's rows, as numbers: [rows, names]."""
    at = [header.index(name) for name in names]
    return np.array([[float(row[i]) for i in at] for row in rows])


def test_the_engine_pass_reads_every_window(windows):
    w = windows
    assert w.classes == ["noise", "speech", "drums", "piano", "guitar"]  # the model's order
    assert list(np.bincount(w.labels)) == [3] * 5
    assert list(np.bincount(w.file_of)) == [3, 3, 5] * 5  # 1.5 s: 3 windows, 2 s: 5
    assert w.embedding.shape == (len(w.file_of), 96) and np.isfinite(w.embedding).all()
    assert np.allclose(w.in_play.sum(axis=1), 1, atol=1e-5)  # the set's classes only
    assert (w.full.sum(axis=1) < 1 + 1e-5).all() and (w.level_db > -60).all()


@pytest.mark.parametrize("rule", ["combined", "prototypes"])
def test_the_rules_are_what_the_taught_model_computes(windows, tmp_path, rule):
    w = windows
    taught = kshot.draw(0, "test", 1, 0, w.labels, len(w.classes))
    assert sorted(w.labels[taught]) == [0, 1, 2, 3, 4]
    said = kshot.answers(w, taught)
    # The engine: `learn` from the taught files, then `classify --model` the others. The model's own
    # class names give the combined rule; other names (the same files) the prototypes, no "unknown".
    names = w.classes if rule == "combined" else [c.upper() for c in w.classes]
    model = tmp_path / "taught.safetensors"
    command = ["learn", "--unknown-below", "-1", "-o", model]
    for c, name in enumerate(names):
        command += ["--class", name, *[w.paths[f] for f in taught if w.labels[f] == c]]
    result = sonotype(*command)
    assert result.returncode == 0, result.stderr
    tested = [w.paths[f] for f in said["test"]]
    header, rows = kshot.classify_rows(tested, model=model)
    assert header[5:] == [*names, "error"]
    engine = columns(header, rows, names)
    assert engine.shape == said[rule]["windows"].shape
    np.testing.assert_allclose(said[rule]["windows"], engine, atol=1e-5, rtol=0)
    # A file's answer by the mean rule: the summary's mean_ columns (its label is by time instead).
    header, rows = kshot.classify_rows(tested, "--summary", model=model)
    np.testing.assert_allclose(said[rule]["files"], columns(header, rows, [f"mean_{n}" for n in names]), atol=1e-5, rtol=0)
    # The restricted head is classify --classes.
    header, rows = kshot.classify_rows(tested, "--summary", "--classes", ",".join(w.classes))
    restricted = columns(header, rows, [f"mean_{c}" for c in w.classes])
    np.testing.assert_allclose(said["restricted"]["files"], restricted, atol=1e-5, rtol=0)


def test_the_pooled_rule_is_learn_s_leave_one_out(windows, tmp_path):
    w = windows
    taught = kshot.draw(1, "test", 2, 0, w.labels, len(w.classes))
    command = ["learn", "-o", tmp_path / "taught.safetensors"]
    for c, name in enumerate(w.classes):
        command += ["--class", name, *[w.paths[f] for f in taught if w.labels[f] == c]]
    result = sonotype(*command)
    assert result.returncode == 0, result.stderr
    right = int(re.search(r"right: (\d+) of 10 examples", result.stdout).group(1))
    example, mean_full = kshot.examples(w, kshot.window_mask(w))
    assert kshot.leave_one_out_right(example, mean_full, w.labels, taught, len(w.classes), kshot.COSINE_WEIGHT) == right
    # With a weight of 0 it is the restricted head alone; each example's own class is then its pooled answer's.
    alone = kshot.leave_one_out_right(example, mean_full, w.labels, taught, len(w.classes), 0.0)
    assert alone == sum(int(np.argmax(mean_full[f]) == w.labels[f]) for f in taught)


def test_draws_are_seeded_and_take_k_files_of_each_class(windows):
    w = windows
    first = kshot.draw(0, "B", 2, 3, w.labels, len(w.classes))
    assert np.array_equal(first, kshot.draw(0, "B", 2, 3, w.labels, len(w.classes)))
    assert list(np.bincount(w.labels[first])) == [2] * 5
    assert any(not np.array_equal(first, kshot.draw(0, "B", 2, r, w.labels, len(w.classes))) for r in range(4, 8))


def test_the_command_runs_and_writes_its_report(folder, tmp_path):
    report = tmp_path / "TEACH.md"
    report.write_text("# Teaching\n\nkept before\n\n" + kshot.BEGIN + "\nthe last report\n" + kshot.END + "\n\nkept after\n")
    results = kshot.main(["--folder", str(folder), "--shots", "1", "2", "--draws", "3", "--report", str(report),
                          "--json", str(tmp_path / "kshot.json")])
    text = report.read_text()
    assert text.startswith("# Teaching\n\nkept before\n\n" + kshot.BEGIN) and text.endswith(kshot.END + "\n\nkept after\n")
    assert "the last report" not in text and "| set | k | files tested |" in text
    r = results[folder.name]
    for k in (1, 2):
        for rule in kshot.RULES:
            for level in ("files", "windows"):
                values = r.accuracy[(k, "shipped", level, rule)]
                assert len(values) == 3 and all(0 <= v <= 1 for v in values)
    assert r.accuracy[(1, "shipped", "files", "combined")] == \
        kshot.main(["--folder", str(folder), "--shots", "1", "--draws", "3"])[folder.name].accuracy[(1, "shipped", "files", "combined")]
    assert (tmp_path / "kshot.json").stat().st_size > 0
