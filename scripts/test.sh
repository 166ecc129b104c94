#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (C++ and Python) through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure --parallel "$(nproc)" --timeout 1800
