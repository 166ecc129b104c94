#!/usr/bin/env bash
# The benchmark suite in one command: builds the benchmark programs (Release, the flags
# we ship: no -march=native) into build-bench/, installs the peers (ONNX Runtime from npm, pinned in
# Training/sonotype/testing/ort/package-lock.json, shared with the ONNX tests), exports the models, runs every contender in one run with
# alternating rounds, and writes docs/BENCHMARKS.md and docs/images/benchmarks.png.
#
# Usage: scripts/benchmark.sh [--quick] [--models KEY,...] [--rounds N] [--skip-system] [--list] ...
#   --quick   a few minutes: 4 models, 4 rounds, short runtime/classify benchmarks
#   (no option: the full run, 13 models x 7 contenders x 20 rounds and 1-64 plugin instances: about 11 minutes on the
#   2-core development VM; all options: --help)
# Nothing here is part of the tests (timings are never asserted); see docs/BENCHMARKS.md for a run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"
cd "$(dirname "$0")/.."

for argument in "$@"; do
    if [[ $argument == --help || $argument == -h || $argument == --list || $argument == --render* ]]; then
        exec /usr/bin/python3 Benchmarks/python/driver.py "$@"
    fi
done

# Extras the benchmarks need beyond scripts/install-deps.sh (Debian packages; root or sudo).
need=()
command -v node > /dev/null || need+=(nodejs)
command -v npm > /dev/null || need+=(npm)
apt_installed libbenchmark-dev || need+=(libbenchmark-dev)
/usr/bin/python3 -c "import matplotlib" 2> /dev/null || need+=(python3-matplotlib)
[[ -x /usr/bin/time ]] || need+=(time)
# libtorch C++ peer (runs the TorchScript file); the Python side's libtorch1.13 is the same library.
apt_installed libtorch-dev || need+=(libtorch-dev)
if ((${#need[@]})); then
    echo "benchmark.sh: installing ${need[*]}"
    apt_install "${need[@]}"
fi

# ONNX Runtime for node: the prebuilt Linux x64 CPU binding ships in the package; --ignore-scripts
# skips its install script, which would fetch GPU binaries from an outside host.
peers=Training/sonotype/testing/ort
if [[ ! -f $peers/node_modules/.package-lock.json ]] || ! cmp -s $peers/package-lock.json $peers/node_modules/.sonotype-lock; then
    (cd $peers && npm ci --ignore-scripts --no-audit --no-fund)
    cp $peers/package-lock.json $peers/node_modules/.sonotype-lock
fi

cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DSONOTYPE_BENCHMARKS=ON -DSONOTYPE_TESTS=OFF -DSONOTYPE_NATIVE=OFF > /dev/null
cmake --build build-bench --parallel "$(nproc)" --target sonotype_benchmarks

exec /usr/bin/python3 Benchmarks/python/driver.py --bench-bin build-bench "$@"
