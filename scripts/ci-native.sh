#!/usr/bin/env bash
# CI job: the -march=native build (README: for benchmarks) must build, warnings as errors in our
# code included, on whatever CPU CI has (AVX-512 ones too). Builds everything into build-native/;
# JUCE is compiled as in build/ (only our libraries get -march=native), so ccache serves it.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-native -G Ninja -DCMAKE_BUILD_TYPE=Release -DSONOTYPE_NATIVE=ON
cmake --build build-native --parallel "$(nproc)"
# The engine built for this CPU still computes what PyTorch does (on the models PyTorch exports).
cd build-native
ctest --output-on-failure -R export_fixture_models
./sonotype_tests "[engine]"
