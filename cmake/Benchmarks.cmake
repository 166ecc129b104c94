# The benchmark programs (not built by default, not part of the tests; SONOTYPE_BENCHMARKS=ON).
# scripts/benchmark.sh builds them into build-bench/ (Release, the flags we ship: no -march=native) and
# Benchmarks/python/driver.py runs them. Each links the same static libraries as the shipped binaries.
#   sonotype_bench_worker   Model::load + Session::run, answering "run N" on stdin (one latency contender)
#   sonotype_bench_peak     one core's peak GFLOP/s per ISA (independent multiply-add chains)
#   sonotype_bench_runtime  Google Benchmark: StreamingRuntime::push() per block size, the log-mel front end
#   sonotype_bench_plugin   a headless SonotypeProcessor: processes audio, reports peak RSS
#   sonotype_bench_instances a headless host with N instances fed real-time audio: audio-thread times, CPU, skips
#   sonotype_bench_libtorch the libtorch C++ peer (only where Debian's libtorch-dev is installed)
find_package(benchmark REQUIRED)

add_executable(sonotype_bench_worker Benchmarks/engine/ModelWorker.cpp)
target_link_libraries(sonotype_bench_worker PRIVATE sonotype_engine sonotype_warnings)

add_executable(sonotype_bench_peak Benchmarks/engine/PeakFlops.cpp)
target_link_libraries(sonotype_bench_peak PRIVATE sonotype_warnings)

add_executable(sonotype_bench_runtime Benchmarks/runtime/RuntimeBenchmarks.cpp)
target_link_libraries(sonotype_bench_runtime PRIVATE sonotype_runtime sonotype_resources benchmark::benchmark sonotype_warnings)

add_executable(sonotype_bench_plugin Benchmarks/plugin/HeadlessPlugin.cpp)
target_link_libraries(sonotype_bench_plugin PRIVATE sonotype_plugin sonotype_warnings)

add_executable(sonotype_bench_instances Benchmarks/plugin/ManyInstances.cpp)
target_link_libraries(sonotype_bench_instances PRIVATE sonotype_plugin sonotype_warnings)

set(sonotype_benchmark_targets sonotype sonotype_bench_worker sonotype_bench_peak sonotype_bench_runtime sonotype_bench_plugin
    sonotype_bench_instances)

find_package(Torch CONFIG QUIET)
if(Torch_FOUND)
    add_executable(sonotype_bench_libtorch Benchmarks/peers/libtorch/TorchScriptWorker.cpp)
    target_link_libraries(sonotype_bench_libtorch PRIVATE ${TORCH_LIBRARIES} sonotype_warnings)
    list(APPEND sonotype_benchmark_targets sonotype_bench_libtorch)
else()
    message(STATUS "Benchmarks: libtorch-dev not found, the libtorch C++ contender is left out")
endif()

add_custom_target(sonotype_benchmarks DEPENDS ${sonotype_benchmark_targets})
