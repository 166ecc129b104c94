#!/usr/bin/env bash
# CI job: the engine's arm64 (NEON) kernels, which the macOS build ships, compiled with Debian's
# aarch64 cross compiler and their tests run under qemu-user: every kernel against its
# double-precision reference (and the recurrent op against its reference). Only the engine and its
# kernel tests (no JUCE), into build-arm64/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"
cd "$(dirname "$0")/.."
if ! command -v aarch64-linux-gnu-g++ > /dev/null || ! command -v qemu-aarch64 > /dev/null; then
    apt_install g++-aarch64-linux-gnu qemu-user
fi
mkdir -p build-arm64
printf '#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\n' > build-arm64/TestMain.cpp
# Every engine source but the x86-only kernel files (KernelsAvx2.cpp, KernelsAvx512.cpp).
sources=(Source/engine/*.cpp Source/engine/file/*.cpp Source/engine/kernels/*.cpp Source/engine/kernels/vector/KernelsBaseline.cpp)
aarch64-linux-gnu-g++ -std=c++20 -O2 -static -Wall -Wextra -Wpedantic -Wshadow -Werror \
    -ISource -ITests -isystem /usr/include/eigen3 -isystem /usr/include -DEIGEN_DONT_PARALLELIZE -DEIGEN_MPL2_ONLY \
    -o build-arm64/kernel_tests build-arm64/TestMain.cpp Tests/engine/KernelPathTests.cpp Tests/engine/RecurrentTests.cpp "${sources[@]}"
qemu-aarch64 build-arm64/kernel_tests
