"""The report docs/MODEL.md: what the training run keeps of the old one, and how the ablation marks its rows."""

from sonotype import ablation
from sonotype.train import kept_section

TRIED_BEGIN, TRIED_END = "<!-- tried: begin -->", "<!-- tried: end -->"


def test_the_hand_written_tried_section_survives_a_new_report(tmp_path):
    report = tmp_path / "MODEL.md"
    assert kept_section(str(report)) == ""
    tried = f"{TRIED_BEGIN}\n## Tried, not shipped\n\n- a recipe that lost\n{TRIED_END}"
    report.write_text(f"# The built-in model\n\nold numbers\n\n{tried}\n")
    assert kept_section(str(report)) == "\n" + tried + "\n"
    report.write_text(f"# The built-in model\n\n{TRIED_BEGIN}\nunfinished\n")
    assert kept_section(str(report)) == ""


def row(title, generator):
    result = {"train_windows": 7200, "val": 0.5, "heldout": 0.5, "unseen": {"A": {"file_accuracy": 0.7, "title": "set A"}}}
    if generator is not None:
        result["generator"] = generator
    return {"title": title, "result": result}


def test_ablation_rows_from_another_generator_are_marked_and_explained():
    current = ablation.generator_version()
    text = ablation.section([row("everything", current), row("old", "0123456789abcdef"), row("older", None)], 8, 600, 0, "bf16")
    assert "| everything | 7200 | 50.0% | 50.0% | 70.0% |" in text
    assert "| old † |" in text and "| older † |" in text
    assert "† Run on training data made by an earlier version of the data generator" in text
    fresh = ablation.section([row("everything", current)], 8, 600, 0, "bf16")
    assert "†" not in fresh


def test_a_new_report_keeps_the_ablation_tables_and_drops_the_old_models_unseen_scores(tmp_path):
    report = tmp_path / "MODEL.md"
    sections = {name: f"<!-- {name}: begin -->\n## {name}\n<!-- {name}: end -->" for name in ("unseen sources", "ablation", "design", "tried")}
    report.write_text("# The built-in model\n\n" + "\n\n".join(sections.values()) + "\n")
    assert kept_section(str(report)) == "".join("\n" + sections[name] + "\n" for name in ("ablation", "design", "tried"))


def test_the_leave_one_source_out_table_gives_each_folds_classes_and_calibration():
    result = {"loso": 0.5, "heldout": 0.75, "train_windows": 100, "classes": {"piano": [3, 4], "bass": [1, 4]},
              "calibration": {"loso_ece": 0.2, "left_out_half_ece": 0.21, "left_out_half_ece_calibrated": 0.05, "temperature_left_out": 1.5}}
    text = ablation.loso_section([{"title": "FluidR3", "result": result}], 8, 600, 0, "bf16")
    assert text.startswith(ablation.LOSO_BEGIN) and text.endswith(ablation.LOSO_END)
    assert "on 1800 windows per class" in text
    assert "| FluidR3 | 8 | 50.0% | piano 3/4, bass 1/4 | 0.200 | 0.210 → 0.050 (T 1.50) | 75.0% |" in text
