"""Sonotype's PyTorch side: the model exporter, the reference front end and the built-in model.

`sonotype.engine`, the C++ engine in-process, is a compiled module: installed with the package, or,
in a build tree, found in <build>/python/sonotype (PYTHONPATH=Training:build/python), which the
line below adds to this package's path. Importing the package imports neither it nor torch."""

import os as _os
import pkgutil as _pkgutil

__path__ = _pkgutil.extend_path(__path__, __name__)


def _version() -> str:
    """The project's version, one source: CMakeLists.txt's project() line in a source tree, else
    the installed package's metadata (which setup.py read from that line)."""
    cmake_lists = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))), "CMakeLists.txt")
    try:
        with open(cmake_lists, encoding="utf-8") as f:
            import re
            found = re.search(r"^project\(Sonotype VERSION ([0-9.]+)", f.read(), re.MULTILINE)
        if found:
            return found.group(1)
    except OSError:
        pass
    from importlib import metadata
    try:
        return metadata.version("sonotype")
    except metadata.PackageNotFoundError:
        return "unknown"


__version__ = _version()
