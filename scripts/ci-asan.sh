#!/usr/bin/env bash
# CI job: AddressSanitizer + UndefinedBehaviorSanitizer. Builds with clang 14 into build-asan/ the
# CLI, the test executables (the soak too) and the fuzz targets (one build: the fuzz targets are the same libraries
# under the same sanitizers, see cmake/Fuzzing.cmake; no plugin formats), then runs every C++ test
# and every Python test; the Python parity tests run the ASan-built CLI (SONOTYPE_CLI).
# Usage: scripts/ci-asan.sh [--build-only]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-asan
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DSONOTYPE_SANITIZE=address -DSONOTYPE_FUZZ=ON
cmake --build "$build" --parallel "$(nproc)" --target sonotype sonotype_tests sonotype_plugin_tests sonotype_soak sonotype_fuzzers
if [ "${1:-}" = "--build-only" ]; then exit 0; fi

# Any report fails the test that shows it (-fno-sanitize-recover=all makes UBSan reports fatal too).
export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$build"
ctest --output-on-failure --parallel "$(nproc)" --timeout 1800
