#!/usr/bin/env bash
# CI job: ThreadSanitizer over the threading tests: the streaming runtime (FIFO, worker thread,
# result board, model swaps) and the plugin processor (audio, worker and message threads; OSC).
# Builds the two test executables only (GCC, -fsanitize=thread, JUCE included) into build-tsan/.
# Usage: scripts/ci-tsan.sh [--build-only]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-tsan
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSONOTYPE_SANITIZE=thread
cmake --build "$build" --parallel "$(nproc)" --target sonotype sonotype_tests sonotype_plugin_tests
if [ "${1:-}" = "--build-only" ]; then exit 0; fi

export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
cd "$build"
ctest --output-on-failure -R export_fixture_models # the models the tests load
./sonotype_tests "[runtime],[detector]"
./sonotype_plugin_tests "[plugin],[player]"
