#!/usr/bin/env bash
# Installs everything Sonotype needs to build, test and run on Debian 12 (bookworm),
# from Debian's own packages only. Idempotent: packages already present are skipped.
# Usage: scripts/install-deps.sh        (as root, or with sudo available)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

packages=(
    # Build tools
    build-essential cmake ninja-build pkg-config ccache git ca-certificates
    # Engine
    libeigen3-dev
    # The sonotype tool's command line: its parser, JSON output
    libcli11-dev nlohmann-json3-dev
    # Tests and benchmarks
    catch2 libbenchmark-dev
    # Sanitizer and fuzzing jobs (.ci/run): clang with libFuzzer and the sanitizer runtimes,
    # llvm-symbolizer for readable reports
    clang-14 libclang-rt-14-dev llvm-14
    # The house's checks (scripts/check-house.sh): formatting, and functions and files a reader can hold
    clang-format-14 universal-ctags
    # PyTorch side (run with /usr/bin/python3)
    # (libopenblas0-openmp: otherwise python3-torch gets the reference BLAS and trains about 1.5x slower)
    python3 python3-numpy python3-torch python3-torchaudio python3-pytest python3-tqdm libopenblas0-openmp
    # ONNX files in (sonotype.export.from_onnx): parsing and checking only
    python3-onnx
    # sonotype.engine, the engine as a Python module (pybind11, Python's headers), and the package
    # installed offline into a venv: pip install --no-index --no-build-isolation (docs/PYTHON.md)
    pybind11-dev python3-pybind11 python3-dev python3-venv python3-pip python3-setuptools python3-wheel
    # A library classified across a Dask cluster (sonotype.dask), its rows as a DataFrame
    python3-distributed python3-pandas
    # JUCE 7 and the system libraries Debian's JUCE links
    juce-modules-source juce-tools
    libasound2-dev libjack-jackd2-dev libfreetype-dev libfontconfig1-dev
    libx11-dev libxext-dev libxinerama-dev libxrandr-dev libxcursor-dev libxcomposite-dev libgl-dev
    libflac-dev libvorbis-dev libogg-dev libpng-dev libjpeg-dev libcurl4-gnutls-dev
    # Audio front end
    libsoxr-dev libfftw3-dev
    # MP3 files in (libmpg123); lame makes the tests' MP3
    libmpg123-dev lame
    # Opus files in (libopusfile); opusenc (opus-tools) makes the tests' Opus
    libopusfile-dev opus-tools
    # Test audio
    sox libsox-fmt-base
    # Built-in model: training data synthesis (sonotype/data/catalogue.py), training report
    fluidsynth fluid-soundfont-gm espeak-ng python3-mido python3-scipy python3-matplotlib
    fluidr3mono-gm-soundfont csound-soundfont opl3-soundfont avldrums.lv2-soundfont
    lmms-common sound-icons espeak
    # Sources never used for training, kept aside to evaluate the built-in model
    timgm6mb-soundfont flite
    # Plugin tests: GUI under a virtual display, a real LV2 host on a dummy JACK server; the
    # standalone app under a window manager started while it runs, driven as a user would
    xvfb xauth jalv lilv-utils jackd2 openbox xdotool wmctrl
    # Installing and the Debian package (cmake/Install.cmake, scripts/package.sh): man pages made
    # from the programs' own --help, the icon's PNG sizes, dpkg-shlibdeps for the Depends, the
    # package's checks (lintian, the desktop entry's validator), and the install test's tools
    help2man librsvg2-bin dpkg-dev lintian desktop-file-utils file man-db
)

mapfile -t missing < <(apt_missing "${packages[@]}")

# node and npm run ONNX Runtime, the ONNX conversion tests' reference (below); checked by command, so
# a node installed otherwise (one that bundles npm) is kept.
command -v node > /dev/null || missing+=(nodejs)
command -v npm > /dev/null || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages already installed"
else
    echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
    apt_install --update --no-recommends "${missing[@]}"
fi

# ONNX Runtime from npm (onnxruntime-node, pinned by its package-lock.json; also the benchmark's peer).
# --ignore-scripts: the prebuilt CPU binding ships in the package; its install script would fetch GPU
# binaries from an outside host.
ort="$(dirname "$0")/../Training/sonotype/testing/ort"
if [ ! -f "$ort/node_modules/.sonotype-lock" ] || ! cmp -s "$ort/package-lock.json" "$ort/node_modules/.sonotype-lock"; then
    echo "install-deps: installing onnxruntime-node (npm ci) in $ort"
    (cd "$ort" && npm ci --ignore-scripts --no-audit --no-fund)
    cp "$ort/package-lock.json" "$ort/node_modules/.sonotype-lock"
fi
