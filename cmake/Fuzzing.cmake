# libFuzzer targets (Tests/fuzz/, targets in cmake/FuzzTargets.cmake): configure with clang 14 and
#   cmake -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DSONOTYPE_SANITIZE=address -DSONOTYPE_FUZZ=ON
# (scripts/fuzz.sh and scripts/ci-asan.sh do). Every library is compiled with libFuzzer's coverage
# instrumentation (-fsanitize=fuzzer-no-link), which costs the ordinary executables of the same
# build little: the ASan + UBSan tests run from this same build, so CI compiles JUCE under ASan once.
# Not part of the normal build.
option(SONOTYPE_FUZZ "Build the libFuzzer targets (clang, with SONOTYPE_SANITIZE=address)" OFF)
if(SONOTYPE_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "SONOTYPE_FUZZ needs clang (libFuzzer): -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14")
    endif()
    if(NOT SONOTYPE_SANITIZE STREQUAL "address")
        message(FATAL_ERROR "SONOTYPE_FUZZ runs under ASan + UBSan: add -DSONOTYPE_SANITIZE=address")
    endif()
    add_compile_options(-fsanitize=fuzzer-no-link)
endif()
