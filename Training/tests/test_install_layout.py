"""`cmake --install` of the build gives the layout docs/INSTALL.md lists, and what it installs runs.

The build directory is the one holding the CLI under test ($SONOTYPE_CLI, set by CTest), or
$SONOTYPE_BUILD_DIR. Installed with --strip into a fresh prefix (no root needed), as the Debian
package installs it under /usr. Every file of the layout must be there, and nothing else: a missing
file, or a stray one (a test binary, a build leftover), fails.
"""

import gzip
import os
import platform
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[2]
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


def build_dir() -> Path:
    configured = os.environ.get("SONOTYPE_BUILD_DIR") or str(Path(os.environ["SONOTYPE_CLI"]).parent)
    path = Path(configured)
    assert (path / "CMakeCache.txt").is_file(), f"{path} is no CMake build directory"
    return path


def project_version() -> str:
    found = re.search(r"project\(Sonotype VERSION (\d+\.\d+\.\d+)", (SOURCE / "CMakeLists.txt").read_text())
    assert found, "CMakeLists.txt names no project version"
    return found.group(1)


def expected_files() -> set:
    files = {
        "bin/sonotype",
        "bin/sonotype-app",
        f"lib/vst3/Sonotype.vst3/Contents/{platform.machine()}-linux/Sonotype.so",
        "lib/lv2/Sonotype.lv2/libSonotype.so",
        "lib/lv2/Sonotype.lv2/manifest.ttl",
        "lib/lv2/Sonotype.lv2/dsp.ttl",
        "lib/lv2/Sonotype.lv2/ui.ttl",
        "share/applications/sonotype.desktop",
        "share/icons/hicolor/scalable/apps/sonotype.svg",
        "share/man/man1/sonotype.1.gz",
        "share/man/man1/sonotype-app.1.gz",
        "share/doc/sonotype/copyright",
        "share/doc/sonotype/changelog.gz",
    }
    files |= {f"share/icons/hicolor/{n}x{n}/apps/sonotype.png" for n in ICON_SIZES}
    return files


@pytest.fixture(scope="module")
def prefix(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("prefix")
    subprocess.run(["cmake", "--install", str(build_dir()), "--prefix", str(root), "--strip"], check=True,
                   stdout=subprocess.DEVNULL)
    return root


def installed(root: Path) -> set:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def test_the_prefix_holds_exactly_the_layout(prefix):
    files = installed(prefix)
    assert sorted(expected_files() - files) == [], "missing from the install"
    assert sorted(files - expected_files()) == [], "installed but not in the layout"
    for program in ("bin/sonotype", "bin/sonotype-app"):
        assert os.access(prefix / program, os.X_OK), program


def test_binaries_are_stripped_elf(prefix):
    for binary in ("bin/sonotype", "bin/sonotype-app", f"lib/vst3/Sonotype.vst3/Contents/{platform.machine()}-linux/Sonotype.so",
                   "lib/lv2/Sonotype.lv2/libSonotype.so"):
        description = subprocess.run(["file", "-b", str(prefix / binary)], capture_output=True, text=True,
                                     check=True).stdout
        assert description.startswith("ELF"), (binary, description)
        assert ", stripped" in description, (binary, description)


def test_installed_cli_prints_the_project_version(prefix):
    out = subprocess.run([str(prefix / "bin/sonotype"), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"sonotype {project_version()}"


def test_installed_app_answers_help_and_version_without_a_display(prefix):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    version = subprocess.run([str(prefix / "bin/sonotype-app"), "--version"], capture_output=True, text=True,
                             env=env, timeout=20, check=True)
    assert version.stdout.splitlines()[0] == f"sonotype-app {project_version()}"
    assert "GPL-3.0-or-later" in version.stdout
    usage = subprocess.run([str(prefix / "bin/sonotype-app"), "--help"], capture_output=True, text=True, env=env,
                           timeout=20, check=True)
    assert usage.stdout.startswith("Usage: sonotype-app [OPTION]... [FILE]...")


def test_installed_cli_classifies_a_file_from_another_folder(prefix, tmp_path):
    # Nothing from the source or build tree: a copied example, the installed binary, another folder.
    shutil.copy(SOURCE / "Resources/examples/drums.wav", tmp_path / "drums.wav")
    out = subprocess.run([str(prefix / "bin/sonotype"), "classify", "--summary", "drums.wav"], cwd=tmp_path,
                         capture_output=True, text=True, check=True)
    header, row = out.stdout.splitlines()[:2]
    assert header.startswith("file,label,share")
    assert row.split(",")[:2] == ["drums.wav", "drums"]


def render_man_page(page: Path) -> str:
    env = dict(os.environ, MANWIDTH="100", MAN_KEEP_FORMATTING="0", LC_ALL="C.UTF-8")
    out = subprocess.run(["man", "-l", str(page)], capture_output=True, text=True, env=env, check=True)
    assert out.stderr.strip() == "", out.stderr
    return re.sub(r".\x08", "", out.stdout)  # (overstrike bold, if a pager's formatting got through)


def test_man_pages_render_and_name_the_commands(prefix):
    cli = render_man_page(prefix / "share/man/man1/sonotype.1.gz")
    assert f"sonotype {project_version()}" in cli
    for command in ("classify", "learn", "run-model", "inspect", "features"):
        assert re.search(rf"^\s+{command}\s", cli, re.M), f"{command} is not listed"
    for section in ("COMMANDS", "EXAMPLES", "SEE ALSO"):
        assert re.search(rf"^{section}$", cli, re.M), section
    assert "--onset-threshold" in cli  # a command's own option: the COMMANDS section is there
    app = render_man_page(prefix / "share/man/man1/sonotype-app.1.gz")
    assert "sonotype-app - the Sonotype app" in app
    assert "--version" in app and "Sonotype.settings" in app
    with gzip.open(prefix / "share/man/man1/sonotype.1.gz", "rt") as page:
        assert page.read().startswith(".\\\" DO NOT MODIFY THIS FILE!  It was generated by help2man")


def test_desktop_entry_runs_the_app_with_the_installed_icon(prefix):
    entry = (prefix / "share/applications/sonotype.desktop").read_text()
    fields = dict(line.split("=", 1) for line in entry.splitlines() if "=" in line)
    assert fields["Exec"] == "sonotype-app %F"
    assert (prefix / "bin" / fields["Exec"].split()[0]).is_file()
    assert fields["Icon"] == "sonotype"
    assert {"AudioVideo", "Audio"} <= set(fields["Categories"].strip(";").split(";"))
    assert "audio/x-wav" in fields["MimeType"] and "audio/flac" in fields["MimeType"]
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(prefix / "share/applications/sonotype.desktop")],
                               capture_output=True, text=True)
        assert check.returncode == 0 and check.stdout == "", check.stdout


def test_icons_are_pngs_of_their_sizes(prefix):
    for size in ICON_SIZES:
        data = (prefix / f"share/icons/hicolor/{size}x{size}/apps/sonotype.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", data[16:24]) == (size, size)


def test_lv2_bundle_names_its_binary_and_uri(prefix):
    manifest = (prefix / "lib/lv2/Sonotype.lv2/manifest.ttl").read_text()
    assert "<libSonotype.so>" in manifest
    assert "<https://github.com/sonotype/sonotype>" in manifest


def test_copyright_is_machine_readable_and_names_the_licenses(prefix):
    text = (prefix / "share/doc/sonotype/copyright").read_text()
    assert text.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/")
    for license_name in ("GPL-3.0-or-later", "MPL-2.0", "ISC", "BSD-3-clause", "Expat"):
        assert f"\nLicense: {license_name}\n" in text, license_name
    with gzip.open(prefix / "share/doc/sonotype/changelog.gz", "rt") as changelog:
        assert changelog.readline().startswith(f"sonotype ({project_version()}) ")
