#!/usr/bin/env bash
# Runs one libFuzzer target for a while, building it first if needed (clang 14, ASan + UBSan, into
# build-asan/, the build of scripts/ci-asan.sh).
# Usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#   TARGET: engine (model files), audio_file (classify's audio reading), plugin_state
#           (SonotypeProcessor::setStateInformation), npy (run-model's .npy reader)
# Inputs: the committed seeds (Tests/fuzz/corpus/TARGET) and reproducers of bugs found and fixed
# (Tests/fuzz/regressions/TARGET), which run first; new inputs libFuzzer finds go to
# build-asan/fuzz/corpus-TARGET, crashes to build-asan/fuzz/artifacts-TARGET/. Exits non-zero on a
# crash, a sanitizer report, a leak, a timeout or out-of-memory.
# Reproduce a finding: build-asan/fuzz/fuzz_TARGET FILE
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
    sed -n '2,12p' "$0"
    exit 2
fi
target=$1
seconds=$2
shift 2
case "$target" in
    engine | audio_file | plugin_state | npy) ;;
    *) echo "fuzz.sh: unknown target '$target' (engine, audio_file, plugin_state, npy)" >&2; exit 2 ;;
esac

build=build-asan
if [ ! -f "$build/build.ninja" ]; then
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DSONOTYPE_SANITIZE=address -DSONOTYPE_FUZZ=ON
fi
cmake --build "$build" --parallel "$(nproc)" --target "fuzz_$target"

corpus="$build/fuzz/corpus-$target"
artifacts="$build/fuzz/artifacts-$target"
mkdir -p "$corpus" "$artifacts"
inputs=("$corpus" "Tests/fuzz/corpus/$target")
if [ -d "Tests/fuzz/regressions/$target" ]; then inputs+=("Tests/fuzz/regressions/$target"); fi

# Per target: how long one input may take and how much it may allocate. The engine runs under a
# 256 MiB memory budget (Tests/fuzz/EngineFuzzer.cpp): one allocation beyond 512 MiB is a finding.
options=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" -rss_limit_mb=2560)
case "$target" in
    engine) options+=(-dict=Tests/fuzz/engine.dict -timeout=10 -malloc_limit_mb=512 -max_len=65536) ;;
    audio_file) options+=(-timeout=10 -max_len=16384) ;;
    plugin_state) options+=(-timeout=10 -max_len=8192) ;;
    npy) options+=(-timeout=5 -max_len=4096) ;;
esac

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
if [ -d /dev/shm ]; then export TMPDIR="${TMPDIR:-/dev/shm}"; fi
exec "$build/fuzz/fuzz_$target" "${options[@]}" "$@" "${inputs[@]}"
