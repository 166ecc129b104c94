"""The ablation's section of docs/MODEL.md: a row run by another version of the data generator is marked."""

from sonotype import ablation


def row(title, generator):
    result = {"train_windows": 7200, "val": 0.5, "heldout": 0.5, "unseen": {"A": {"file_accuracy": 0.7, "title": "set A"}}}
    if generator is not None:
        result["generator"] = generator
    return {"title": title, "result": result}


def test_rows_from_another_generator_are_marked_and_explained():
    current = ablation.generator_version()
    text = ablation.section([row("everything", current), row("old", "0123456789abcdef"), row("older", None)], 8, 600, 0, "bf16")
    assert "| everything | 7200 | 50.0% | 50.0% | 70.0% |" in text
    assert "| old † |" in text and "| older † |" in text
    assert "† Run on training data made by an earlier version of the data generator" in text
    fresh = ablation.section([row("everything", current)], 8, 600, 0, "bf16")
    assert "†" not in fresh
