"""The unseen-source section of docs/MODEL.md (between the markers), its confusion PNGs, and --json."""

import json
import os

from ..confusion import draw
from ..data import CLASSES
from .sets import SECONDS, SETS

BEGIN, END = "<!-- unseen sources: begin -->", "<!-- unseen sources: end -->"


# The built-in model's targets on sources never heard in training, file accuracy per set.
TARGETS = {"A": 0.92, "B": 0.85}


def percent(x):
    return "–" if x is None else f"{x * 100:.0f}%"


def section(results, figures_relative, model_name):
    lines = [BEGIN, "## Unseen sound sources", "",
             f"Written by `python3 -m sonotype.evaluate` for {model_name}: clips of {SECONDS:.0f} s from sound sources never used in "
             "training or model selection (only the packages reserved for evaluation), classified by `sonotype classify` "
             "(1 s windows every 0.25 s; a file's label = the mean of its windows' probabilities). Sets are rendered once "
             "(`scripts/install-eval-sources.sh` installs the sources) and cached in build/eval-sets/.", ""]
    lines += ["| set | files | file accuracy | window accuracy | calibration error (files) | mean confidence: right / wrong |",
              "|---|---|---|---|---|---|"]
    for which, r in results.items():
        lines.append(f"| {which}: {SETS[which]} | {r['files']} | **{r['file_accuracy'] * 100:.1f}%** | {r['window_accuracy'] * 100:.1f}% | "
                     f"{r['file_ece']:.3f} | {percent(r['confidence_right'])} / {percent(r['confidence_wrong'])} |")
    lines.append("")
    for which, r in results.items():
        if which in TARGETS:
            gap = (r["file_accuracy"] - TARGETS[which]) * 100
            verdict = "met" if gap >= 0 else f"missed by {-gap:.1f} points"
            lines.append(f"- Target for set {which}: {TARGETS[which] * 100:.0f}% of files: {verdict}.")
    for which, r in results.items():
        lines += ["", f"### Set {which}: {SETS[which]}", "", "Sources (files right / clips):", ""]
        for key, entry in r["source_clips"].items():
            if entry["clips"]:
                got = r["sources"].get(key, {"correct": 0, "files": 0})
                lines.append(f"- {entry['class']}: {entry['title']}: {got['correct']}/{got['files']}")
        absent = [label for label in CLASSES if not r["classes"][label]["files"]]
        if absent:
            lines += ["", f"No source in the reserved packages (or none installed) for: {', '.join(absent)}: absent from this "
                      "set; files of other classes called so still count against precision."]
        lines += ["", "| class | files | file accuracy | window accuracy | precision (files) | recall (files) |",
                  "|---|---|---|---|---|---|"]
        for label in CLASSES:
            c = r["classes"][label]
            if c["files"] or c["precision"] is not None:
                right = f"{c['file_correct']}/{c['files']}" if c["files"] else "absent"
                lines.append(f"| {label} | {c['files']} | {right} | {percent(c['window_accuracy'])} | "
                             f"{percent(c['precision'])} | {percent(c['recall'])} |")
        lines += ["", f"![confusion, set {which}]({figures_relative}/confusion_unseen_{which}.png)"]
    lines += ["", END]
    return "\n".join(lines)


def write_report(path, results, model_name):
    figures = os.path.join(os.path.dirname(os.path.abspath(path)), "model")
    os.makedirs(figures, exist_ok=True)
    for which, r in results.items():
        draw(r["confusion"], f"unseen sources, set {which}: {SETS[which]}", os.path.join(figures, f"confusion_unseen_{which}.png"),
             xlabel="predicted (file)")
    text = section(results, "model", model_name)
    report = open(path).read() if os.path.exists(path) else ""
    if BEGIN in report and END in report:
        report = report[:report.index(BEGIN)] + text + report[report.index(END) + len(END):]
    else:
        report = report.rstrip("\n") + "\n\n" + text + "\n"
    with open(path, "w") as f:
        f.write(report)
    return text


def write_json(path, results):
    data = {which: {k: v for k, v in r.items() if k != "guesses"} for which, r in results.items()}
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
