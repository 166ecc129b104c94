#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the demo (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
PYTHONPATH=Training SONOTYPE_CLI="$PWD/build/sonotype" /usr/bin/python3 -m sonotype.demo "$@"
