import os
import sys

sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")))


import subprocess

import pytest


@pytest.fixture(autouse=True, scope="session")
def _kernel_path_in_effect():
    """Under SONOTYPE_KERNELS=<path> (the parity suite run once per kernel path), skip unless this
    CPU runs that path: the engine would silently use its best path instead."""
    wanted = os.environ.get("SONOTYPE_KERNELS")
    if not wanted:
        return
    from sonotype.engine_cli import cli_path
    inspect = subprocess.run([cli_path(), "inspect"], capture_output=True, text=True, check=True).stdout
    line = next(line for line in inspect.splitlines() if line.startswith("kernels:"))
    if line.split()[1] != wanted:
        pytest.skip(f"this CPU does not run the {wanted} kernels ({line})")
