"""docs/PYTHON.md's example runs as written: its Python blocks, one after the other in a fresh
folder (with the repository's example audio), print what the text blocks after them show (the
numbers PyTorch and the engine print aside, which vary with the CPU's kernels: their difference
is checked instead)."""

import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VARYING = ("engine:", "PyTorch:", "max abs diff:")


def test_the_python_doc_example_runs_and_prints_what_the_doc_shows(tmp_path):
    with open(os.path.join(REPO, "docs", "PYTHON.md"), encoding="utf-8") as f:
        text = f.read()
    pairs = re.findall(r"```python\n(.*?)```\n\n```text\n(.*?)```", text, re.S)
    assert len(pairs) >= 2, "the doc's example blocks (python, then text) are not found"
    os.symlink(os.path.join(REPO, "Resources"), tmp_path / "Resources")
    code = "\n".join(block for block, _ in pairs)
    paths = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    printed = result.stdout.splitlines()
    shown = "".join(output for _, output in pairs).splitlines()
    assert [line for line in printed if not line.startswith(VARYING)] == [line for line in shown if not line.startswith(VARYING)]
    difference = next(line for line in printed if line.startswith("max abs diff:"))
    assert float(difference.split(":")[1]) < 1e-5
