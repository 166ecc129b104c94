"""Builds the sonotype Python package (pyproject.toml has its metadata): the Python side from
Training/, and sonotype.engine, built by CMake from the whole source tree.

The extension is the build's own target, sonotype_python, in the CMake build folder
$SONOTYPE_BUILD_DIR (default: build/ in this folder, the one scripts/build.sh makes): an existing
build makes the install take seconds, and a fresh folder is configured first (Release, Ninja).
Only that target is built; its .so is copied into the wheel. The version is CMakeLists.txt's."""

import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def project_version() -> str:
    """CMake's project(Sonotype VERSION x.y.z): the one source of the version."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        found = re.search(r"^project\(Sonotype VERSION ([0-9.]+)", f.read(), re.MULTILINE)
    if not found:
        raise RuntimeError("CMakeLists.txt has no project(Sonotype VERSION ...) line")
    return found.group(1)


def build_dir() -> str:
    return os.path.abspath(os.environ.get("SONOTYPE_BUILD_DIR") or os.path.join(ROOT, "build"))


class CMakeBuild(build_ext):
    """Builds sonotype.engine with CMake instead of compiling sources itself."""

    def build_extension(self, ext):
        folder = build_dir()
        if not os.path.isfile(os.path.join(folder, "CMakeCache.txt")):
            # A new build folder, for the Python that runs this build (whose headers and extension
            # suffix the module needs): the interpreter itself, not a venv's link to it, which the
            # build folder would outlive.
            self.announce(f"configuring {folder}", level=2)
            subprocess.run(["cmake", "-S", ROOT, "-B", folder, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                            f"-DSONOTYPE_PYTHON={os.path.realpath(sys.executable)}"], check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", folder, "--target", "sonotype_python", "--parallel", jobs], check=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = os.path.join(folder, "python", "sonotype", "engine" + suffix)
        if not os.path.isfile(built):
            made = os.listdir(os.path.join(folder, "python", "sonotype"))
            raise RuntimeError(f"{folder} built {made}, not engine{suffix}: that build folder is configured for another "
                               f"Python (SONOTYPE_PYTHON); set SONOTYPE_BUILD_DIR to a new folder")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


# setuptools' own build files go inside the CMake build folder, not next to the sources.
staging = os.path.join(build_dir(), "python-package")
os.makedirs(staging, exist_ok=True)
setup(
    version=project_version(),
    ext_modules=[Extension("sonotype.engine", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": staging}, "egg_info": {"egg_base": staging}},
)
