#!/usr/bin/env bash
# CI job: the engine's arm64 (NEON) kernels, which the macOS build ships, compiled with Debian's
# aarch64 cross compiler and their tests run under qemu-user: every kernel against its
# double-precision reference (and the recurrent op against its reference). Only the engine and its
# kernel tests (no JUCE), into build-arm64/, with the CMake toolchain file for arm64.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"
cd "$(dirname "$0")/.."
if ! command -v aarch64-linux-gnu-g++ > /dev/null || ! command -v qemu-aarch64 > /dev/null; then
    apt_install g++-aarch64-linux-gnu qemu-user
fi
# The cross toolchain (compilers, static linking, qemu as the emulator) is in
# cmake/toolchains/aarch64-linux-gnu.cmake, the build in Tests/arm64/CMakeLists.txt.
cmake -S Tests/arm64 -B build-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/aarch64-linux-gnu.cmake"
cmake --build build-arm64 --parallel "$(nproc)"
ctest --test-dir build-arm64 --output-on-failure
