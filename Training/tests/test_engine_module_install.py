"""The package installs like software: `pip install --no-index --no-build-isolation` of the
repository into a venv over Debian's site packages (offline: no index, no build isolation), then,
from another folder and without this tree on PYTHONPATH, sonotype.engine.Model(file).run(x) equals
`sonotype run-model` bit for bit and the exporter imports. The build folder is the tests' own
(SONOTYPE_BUILD_DIR), so the install builds nothing and takes seconds."""

import os
import subprocess
import sys

import numpy as np

from sonotype.engine_cli import cli_path, run_model

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

IN_THE_VENV = """
import os, sys
import numpy as np
import sonotype, sonotype.engine as engine
from sonotype.export import export_model
from sonotype.frontend import LogMelFrontend
assert engine.__file__.startswith(sys.prefix), engine.__file__
assert sonotype.__file__.startswith(sys.prefix), sonotype.__file__
model = engine.Model(sys.argv[1])
np.save(sys.argv[3], model.run(np.load(sys.argv[2])))
print(engine.__version__, sonotype.__version__)
"""


def test_pip_install_into_a_venv_runs_the_engine_as_run_model(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    env["SONOTYPE_BUILD_DIR"] = os.environ.get("SONOTYPE_BUILD_DIR") or os.path.dirname(os.path.abspath(cli_path()))
    install = subprocess.run([python, "-m", "pip", "install", "--no-index", "--no-build-isolation", REPO],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800)
    assert install.returncode == 0, install.stdout + install.stderr
    assert "Successfully installed sonotype" in install.stdout

    fixtures = os.environ.get("SONOTYPE_FIXTURES") or os.path.join(REPO, "build", "fixtures")
    model = os.path.abspath(os.path.join(fixtures, "recurrent_tagger.safetensors"))
    x = np.random.default_rng(2).standard_normal((1, 32, 101)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run([python, "-c", IN_THE_VENV, model, str(tmp_path / "x.npy"), str(tmp_path / "y.npy")],
                            cwd=elsewhere, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    with open(os.path.join(REPO, "CMakeLists.txt")) as f:
        version = next(line for line in f if line.startswith("project(Sonotype VERSION")).split()[2]
    assert result.stdout.split() == [version, version]
    assert np.load(tmp_path / "y.npy").tobytes() == run_model(model, x).tobytes()

    # What the wheel holds: the sonotype package and the module, no tests, no node_modules.
    show = subprocess.run([python, "-m", "pip", "show", "-f", "sonotype"], env=env, capture_output=True, text=True, check=True).stdout
    files = [line.strip() for line in show.splitlines() if line.startswith("  ")]
    assert any(name.startswith("sonotype/engine.") and name.endswith(".so") for name in files)
    assert "sonotype/export/exporter.py" in files
    assert not [name for name in files if "tests/" in name or "node_modules" in name or name.startswith("Training")]
