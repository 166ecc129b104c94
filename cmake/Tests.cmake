# C++ tests (Catch2) and Python tests (pytest) all run under CTest.
include(Catch)

# Counts the calling thread's allocations and locks by interposing malloc & co. (compiled once,
# linked into both test executables; not with the sanitizers, which interpose malloc themselves).
if(NOT SONOTYPE_SANITIZE)
    add_library(sonotype_allocation_counter OBJECT Tests/support/AllocationCounter.cpp)
    target_include_directories(sonotype_allocation_counter PRIVATE Tests)
    target_link_libraries(sonotype_allocation_counter PRIVATE sonotype_warnings)
endif()

add_executable(sonotype_tests
    Tests/TestMain.cpp
    Tests/cli/ArgumentsTests.cpp
    Tests/cli/AudioPathsTests.cpp
    Tests/cli/NpyTests.cpp
    Tests/dsp/FrontEndTests.cpp
    Tests/dsp/OnsetDetectorTests.cpp
    Tests/dsp/QuickOnsetDetectorTests.cpp
    Tests/dsp/QuickOnsetEvaluation.cpp
    Tests/dsp/SoundChangeTests.cpp
    Tests/dsp/WaveformFrontendTests.cpp
    Tests/engine/AxisTests.cpp
    Tests/engine/EngineTests.cpp
    Tests/engine/FftTests.cpp
    Tests/engine/HostileModelTests.cpp
    Tests/engine/JsonTests.cpp
    Tests/engine/JsonWriterTests.cpp
    Tests/engine/KernelPathTests.cpp
    Tests/engine/LayoutFusionTests.cpp
    Tests/engine/ModelFileTests.cpp
    Tests/engine/ModelFileWriterTests.cpp
    Tests/engine/OpTableTests.cpp
    Tests/engine/RecurrentTests.cpp
    Tests/engine/SpectralOpTests.cpp
    Tests/engine/TextTests.cpp
    Tests/engine/WorkEstimateTests.cpp
    Tests/formats/AudioFileReaderTests.cpp
    Tests/formats/AudioFormatsTests.cpp
    Tests/formats/Mp3ReaderTests.cpp
    Tests/formats/OpusReaderTests.cpp
    Tests/runtime/ClassesInPlayTests.cpp
    Tests/runtime/DetectorTests.cpp
    Tests/runtime/HitStreamTests.cpp
    Tests/runtime/LiveHitsTests.cpp
    Tests/runtime/RuntimeTests.cpp
    Tests/runtime/SegmenterTests.cpp
    Tests/runtime/SpscFifoTests.cpp
    Tests/runtime/WaveformModelTests.cpp
    Tests/teach/HitEmbeddingTests.cpp
    Tests/teach/LessonTests.cpp
    Tests/teach/PrototypesTests.cpp
    Tests/teach/UnknownGateTests.cpp
    Tests/timeline/AnalysisWarningsTests.cpp
    Tests/timeline/FileAnalysisTests.cpp
    Tests/timeline/FileBlocksTests.cpp
    Tests/timeline/NoteMapTests.cpp
    Tests/timeline/TimelineExportTests.cpp
    Tests/timeline/TimelineSegmentsTests.cpp)
if(NOT SONOTYPE_SANITIZE) # the allocation counter replaces malloc, as the sanitizers do
    target_sources(sonotype_tests PRIVATE Tests/dsp/QuickOnsetDetectorRealtimeTests.cpp Tests/engine/AllocationTests.cpp Tests/runtime/FrontendBudgetTests.cpp Tests/runtime/RealtimeTests.cpp)
    target_link_libraries(sonotype_tests PRIVATE sonotype_allocation_counter)
endif()
# nlohmann/json: the oracle the JSON and model-file writers are compared with (Tests/engine/JsonWriterTests.cpp).
target_link_libraries(sonotype_tests PRIVATE sonotype_cli Catch2::Catch2 nlohmann_json::nlohmann_json sonotype_warnings ${CMAKE_DL_LIBS})
target_include_directories(sonotype_tests PRIVATE Tests)

set(SONOTYPE_FIXTURES_DIR "${CMAKE_BINARY_DIR}/fixtures")
set(SONOTYPE_TEST_ENV
    "PYTHONPATH=${CMAKE_SOURCE_DIR}/Training:${CMAKE_BINARY_DIR}/python"
    "SONOTYPE_CLI=$<TARGET_FILE:sonotype>"
    "SONOTYPE_FIXTURES=${SONOTYPE_FIXTURES_DIR}"
    "PYTHONDONTWRITEBYTECODE=1")

# Models some C++ tests load, exported by PyTorch during the test run (never committed).
add_test(NAME export_fixture_models
    COMMAND ${SONOTYPE_PYTHON} -m sonotype.testing.fixtures ${SONOTYPE_FIXTURES_DIR})
set_tests_properties(export_fixture_models PROPERTIES FIXTURES_SETUP exported_models ENVIRONMENT "${SONOTYPE_TEST_ENV}")

# The C++ tests find the fixtures here (or in $SONOTYPE_FIXTURES), and the hostile-file corpus.
set(SONOTYPE_HOSTILE_MODELS_DIR "${CMAKE_SOURCE_DIR}/Tests/data/hostile-models")
target_compile_definitions(sonotype_tests PRIVATE SONOTYPE_DEFAULT_FIXTURES="${SONOTYPE_FIXTURES_DIR}" SONOTYPE_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    SONOTYPE_HOSTILE_MODELS_DIR="${SONOTYPE_HOSTILE_MODELS_DIR}")
# --warn NoTests: a test whose name CTest cut short (a ';' in it) or that matches nothing fails
# instead of passing with nothing run.
catch_discover_tests(sonotype_tests EXTRA_ARGS --warn NoTests PROPERTIES FIXTURES_REQUIRED exported_models)

# Python: exporter and live parity with PyTorch through the built CLI.
file(GLOB SONOTYPE_PYTHON_TESTS CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/Training/tests/test_*.py")
# The install layout is the shipped build's: the sanitizer builds make only the test executables.
if(SONOTYPE_SANITIZE)
    list(FILTER SONOTYPE_PYTHON_TESTS EXCLUDE REGEX "/test_install_layout\\.py$")
endif()
foreach(test_file IN LISTS SONOTYPE_PYTHON_TESTS)
    get_filename_component(test_name "${test_file}" NAME_WE)
    # sonotype.engine's tests (and the Dask layer's, which runs it) need the module, which the
    # sanitizer and fuzzing builds do not make.
    if(test_name MATCHES "^test_(engine_module|dask)" AND NOT TARGET sonotype_python)
        continue()
    endif()
    add_test(NAME python_${test_name}
        COMMAND ${SONOTYPE_PYTHON} -m pytest -q -p no:cacheprovider "${test_file}"
        WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
    set_tests_properties(python_${test_name} PROPERTIES ENVIRONMENT "${SONOTYPE_TEST_ENV}")
    if(test_name MATCHES "^test_engine_module")
        set_tests_properties(python_${test_name} PROPERTIES FIXTURES_REQUIRED exported_models)
    endif()
endforeach()
# The parity suite and the real-time test once more on each lower kernel path the CPU runs
# (engine/CpuDispatch.h; the default run above takes the best one). The parity suite skips itself
# where the CPU does not run the path (the engine would fall back to its best one).
foreach(kernel_path IN ITEMS baseline avx2)
    if(NOT SONOTYPE_SANITIZE)
        add_test(NAME "Session::run allocation-free on the ${kernel_path} kernels"
            COMMAND sonotype_tests "Session::run makes no allocations and takes no locks")
        set_tests_properties("Session::run allocation-free on the ${kernel_path} kernels" PROPERTIES
            ENVIRONMENT "SONOTYPE_KERNELS=${kernel_path}" FIXTURES_REQUIRED exported_models)
    endif()
    foreach(test_name IN ITEMS test_parity_layers test_parity_seed_models test_parity_transformer test_seed_layernorm_numbers
                               test_parity_recurrent
                               test_parity_spectral test_parity_glue_ops test_parity_families)
        add_test(NAME python_${test_name}_${kernel_path}
            COMMAND ${SONOTYPE_PYTHON} -m pytest -q -p no:cacheprovider "${CMAKE_SOURCE_DIR}/Training/tests/${test_name}.py"
            WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
        set_tests_properties(python_${test_name}_${kernel_path} PROPERTIES ENVIRONMENT "${SONOTYPE_TEST_ENV};SONOTYPE_KERNELS=${kernel_path}")
    endforeach()
    # sonotype.engine's run() against run-model on this kernel path too: the same kernels in both.
    if(TARGET sonotype_python)
        add_test(NAME python_test_engine_module_${kernel_path}
            COMMAND ${SONOTYPE_PYTHON} -m pytest -q -p no:cacheprovider "${CMAKE_SOURCE_DIR}/Training/tests/test_engine_module.py"
            WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
        set_tests_properties(python_test_engine_module_${kernel_path} PROPERTIES
            ENVIRONMENT "${SONOTYPE_TEST_ENV};SONOTYPE_KERNELS=${kernel_path}" FIXTURES_REQUIRED exported_models)
    endif()
endforeach()

# The work budget's estimates against measured time (Tests/engine/WorkEstimateTests.cpp): alone
# (timing), once per kernel path (one this CPU lacks passes with a note), never under the
# sanitizers, which slow some steps far more than others.
if(NOT SONOTYPE_SANITIZE)
    foreach(kernel_path IN ITEMS baseline avx2 avx512)
        add_test(NAME "work estimates within 4x of the measured time on the ${kernel_path} kernels" COMMAND sonotype_tests "[work]")
        set_tests_properties("work estimates within 4x of the measured time on the ${kernel_path} kernels" PROPERTIES
            ENVIRONMENT "SONOTYPE_KERNELS=${kernel_path}" RUN_SERIAL TRUE)
    endforeach()
endif()

# The JUCE layers: processor, GUI (under Xvfb: xvfb-run), OSC. One executable, its own main with
# JUCE's message manager.
add_executable(sonotype_plugin_tests
    Tests/JuceTestMain.cpp
    Tests/gui/AboutTests.cpp
    Tests/gui/EditorLookTests.cpp
    Tests/gui/EditorTests.cpp
    Tests/gui/FileChooserTests.cpp
    Tests/gui/FileTimelineTests.cpp
    Tests/gui/MessageStripTests.cpp
    Tests/gui/StandaloneMidiTests.cpp
    Tests/gui/TeachPanelTests.cpp
    Tests/plugin/FileWritingTests.cpp
    Tests/plugin/HitNotesTests.cpp
    Tests/plugin/HostileModelTests.cpp
    Tests/plugin/InputGateTests.cpp
    Tests/plugin/ModelNotesTests.cpp
    Tests/plugin/ModelServiceTests.cpp
    Tests/plugin/OscTests.cpp
    Tests/plugin/ParameterValueTests.cpp
    Tests/plugin/ProcessorTests.cpp
    Tests/plugin/SavedStateTextTests.cpp
    Tests/plugin/StateRestoreTests.cpp
    Tests/plugin/StatusMessagesTests.cpp
    Tests/plugin/TeachingTests.cpp
    Tests/plugin/WaveformModelTests.cpp)
if(NOT SONOTYPE_SANITIZE)
    target_sources(sonotype_plugin_tests PRIVATE Tests/plugin/FilePlayerTests.cpp Tests/plugin/RealtimeTests.cpp)
    target_link_libraries(sonotype_plugin_tests PRIVATE sonotype_allocation_counter)
endif()
pkg_check_modules(X11 REQUIRED IMPORTED_TARGET x11)
target_link_libraries(sonotype_plugin_tests PRIVATE sonotype_gui sonotype_teach sonotype_version Catch2::Catch2 PkgConfig::X11 sonotype_warnings ${CMAKE_DL_LIBS})
target_include_directories(sonotype_plugin_tests PRIVATE Tests)
target_compile_definitions(sonotype_plugin_tests PRIVATE
    SONOTYPE_DEFAULT_FIXTURES="${SONOTYPE_FIXTURES_DIR}"
    SONOTYPE_HOSTILE_MODELS_DIR="${SONOTYPE_HOSTILE_MODELS_DIR}"
    SONOTYPE_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    SONOTYPE_SCREENSHOT_DIR="${CMAKE_BINARY_DIR}/screenshots"
    SONOTYPE_CLI_PATH="$<TARGET_FILE:sonotype>"
    SONOTYPE_VST3_PATH="$<GENEX_EVAL:$<TARGET_PROPERTY:Sonotype_VST3,JUCE_PLUGIN_ARTEFACT_FILE>>")
# The host tests load the built plugins; the sanitizer builds check our code, not the formats'
# wrappers, and build no VST3/LV2/Standalone.
if(NOT SONOTYPE_SANITIZE)
    target_sources(sonotype_plugin_tests PRIVATE Tests/host/Vst3HostTests.cpp Tests/host/StandaloneAppTests.cpp Tests/support/WindowCapture.cpp)
    target_compile_definitions(sonotype_plugin_tests PRIVATE
        SONOTYPE_STANDALONE_PATH="$<GENEX_EVAL:$<TARGET_PROPERTY:Sonotype_Standalone,JUCE_PLUGIN_ARTEFACT_FILE>>")
    add_dependencies(sonotype_plugin_tests Sonotype_All)
endif()
add_dependencies(sonotype_plugin_tests sonotype) # the timeline tests compare the app's exports with the CLI's
catch_discover_tests(sonotype_plugin_tests
    TEST_SPEC "~[gui]"
    TEST_PREFIX "plugin: "
    EXTRA_ARGS --warn NoTests
    PROPERTIES FIXTURES_REQUIRED exported_models)
# The editor tests open real windows: on a virtual X display.
find_program(XVFB_RUN xvfb-run REQUIRED)
add_test(NAME gui_editor COMMAND ${XVFB_RUN} -a -s "-screen 0 1920x1200x24" $<TARGET_FILE:sonotype_plugin_tests> "[gui]")
set_tests_properties(gui_editor PROPERTIES FIXTURES_REQUIRED exported_models)

# A real LV2 host from Debian (jalv on a dummy JACK server; lv2ls/lv2info) loads the built LV2.
if(TARGET Sonotype_LV2 AND NOT SONOTYPE_SANITIZE)
    add_test(NAME lv2_jalv
        COMMAND "${CMAKE_SOURCE_DIR}/Tests/host/lv2_jalv_test.sh"
            "$<GENEX_EVAL:$<TARGET_PROPERTY:Sonotype_LV2,JUCE_PLUGIN_ARTEFACT_FILE>>" "${SONOTYPE_LV2_URI}")
endif()

# Soak (Tests/soak): the processor under a long compressed stream with hot swaps, rate changes, a
# slowed worker and bad blocks. CI runs 2 minutes of audio; the hour is run by hand:
#   SONOTYPE_SOAK_SECONDS=3600 SONOTYPE_FIXTURES=build/fixtures build/sonotype_soak
add_test(NAME export_soak_model
    COMMAND ${SONOTYPE_PYTHON} "${CMAKE_SOURCE_DIR}/Tests/soak/export_slow_model.py" ${SONOTYPE_FIXTURES_DIR})
set_tests_properties(export_soak_model PROPERTIES FIXTURES_SETUP soak_model ENVIRONMENT "${SONOTYPE_TEST_ENV}")
add_executable(sonotype_soak Tests/soak/SoakTests.cpp)
target_link_libraries(sonotype_soak PRIVATE sonotype_plugin Catch2::Catch2 sonotype_warnings)
target_include_directories(sonotype_soak PRIVATE Tests)
target_compile_definitions(sonotype_soak PRIVATE SONOTYPE_DEFAULT_FIXTURES="${SONOTYPE_FIXTURES_DIR}")
add_test(NAME soak COMMAND sonotype_soak)
set_tests_properties(soak PROPERTIES
    FIXTURES_REQUIRED "exported_models;soak_model"
    ENVIRONMENT "SONOTYPE_SOAK_SECONDS=120"
    TIMEOUT 1500)

# The LV2 test's JACK client: plays an example clip into jalv's plugin, records audio and MIDI back.
if(TARGET Sonotype_LV2 AND NOT SONOTYPE_SANITIZE) # the sanitizer builds make no plugin formats
    pkg_check_modules(JACK REQUIRED IMPORTED_TARGET jack)
    add_executable(sonotype_jack_feed Tests/host/JackSignalFeed.cpp)
    target_link_libraries(sonotype_jack_feed PRIVATE PkgConfig::JACK sonotype_warnings)
    set_tests_properties(lv2_jalv PROPERTIES
        ENVIRONMENT "SONOTYPE_JACK_FEED=$<TARGET_FILE:sonotype_jack_feed>;SONOTYPE_EXAMPLE_CLIP=${CMAKE_SOURCE_DIR}/Resources/examples/drums.wav"
        TIMEOUT 600)
endif()
