# The libFuzzer executables (SONOTYPE_FUZZ, see cmake/Fuzzing.cmake); run one with scripts/fuzz.sh.
# Each links only the layers it exercises (the engine with the front end, which the fuzzer runs on what loads).
function(sonotype_add_fuzzer name source)
    add_executable(${name} Tests/fuzz/${source})
    target_link_libraries(${name} PRIVATE ${ARGN} sonotype_warnings ${CMAKE_DL_LIBS})
    target_include_directories(${name} PRIVATE Tests/fuzz)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/fuzz")
    list(APPEND SONOTYPE_FUZZERS ${name})
    set(SONOTYPE_FUZZERS ${SONOTYPE_FUZZERS} PARENT_SCOPE)
endfunction()

set(SONOTYPE_FUZZERS)
sonotype_add_fuzzer(fuzz_engine EngineFuzzer.cpp sonotype_engine sonotype_dsp)
sonotype_add_fuzzer(fuzz_npy NpyFuzzer.cpp sonotype_cli)
sonotype_add_fuzzer(fuzz_audio_file AudioFileFuzzer.cpp sonotype_formats)
sonotype_add_fuzzer(fuzz_plugin_state PluginStateFuzzer.cpp sonotype_plugin)
add_custom_target(sonotype_fuzzers DEPENDS ${SONOTYPE_FUZZERS})
