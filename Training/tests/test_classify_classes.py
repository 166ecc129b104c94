"""`sonotype classify --classes`: only the classes in play. The others get 0 and each window's
answer is renormalised over the rest, i.e. a softmax over their logits alone: the same as the full
answer's probabilities divided by their sum over the classes in play."""

from pathlib import Path

import numpy as np

from test_classify import sonotype
from test_classify_segments import parse_csv

EXAMPLES = Path(__file__).resolve().parents[2] / "Resources" / "examples"
IN_PLAY = ["piano", "guitar", "drums"]


def table(*args):
    result = sonotype("classify", *args)
    assert result.returncode == 0, result.stderr
    rows = parse_csv(result.stdout)
    return rows[0], rows[1:]


def test_classes_in_play_renormalise_the_full_answer():
    header, full = table(EXAMPLES / "piano.wav")
    header_in_play, restricted = table("--classes", ",".join(IN_PLAY), EXAMPLES / "piano.wav")
    assert header_in_play == header  # every class keeps its column
    labels = header[5:header.index("padded")]
    columns = [labels.index(name) for name in IN_PLAY]
    assert len(full) == len(restricted) > 3
    for row_full, row in zip(full, restricted):
        p_full = np.array(row_full[5:5 + len(labels)], dtype=float)
        p = np.array(row[5:5 + len(labels)], dtype=float)
        expected = np.zeros_like(p_full)
        expected[columns] = p_full[columns] / p_full[columns].sum()
        assert np.all(np.abs(p - expected) <= 2e-6 + 1e-4 * expected), (p, expected)
        assert all(p[c] == 0.0 for c in range(len(labels)) if c not in columns)
        assert abs(p.sum() - 1.0) < 1e-5
        assert row[3] in IN_PLAY and row[3] == labels[int(np.argmax(p))]


def test_classes_in_play_apply_to_segments_and_summary():
    _, segments = table("--segments", "--classes", "speech,noise", EXAMPLES / "drums.wav")
    assert segments and all(row[3] in ("speech", "noise") for row in segments)
    header, summary = table("--summary", "--classes", "drums,piano", EXAMPLES / "drums.wav")
    means = {name[len("mean_"):]: float(value) for name, value in zip(header, summary[0]) if name.startswith("mean_")}
    assert summary[0][1] == "drums"
    assert abs(means["drums"] + means["piano"] - 1.0) < 1e-5


def test_a_class_the_model_lacks_is_a_usage_error_naming_it_and_the_classes():
    result = sonotype("classify", "--classes", "piano,kick", EXAMPLES / "piano.wav")
    assert result.returncode == 2
    assert "--classes: 'kick' is not a class of this model" in result.stderr
    assert "silence, noise, speech, drums, piano" in result.stderr
    assert result.stdout == ""
