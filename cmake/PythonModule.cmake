# sonotype.engine: the C++ engine as a Python extension module (pybind11), built from Source/python/
# into <build>/python/sonotype/engine.<ext-suffix>.so. Python finds it next to the sources'
# package (PYTHONPATH=Training:build/python; Training/sonotype/__init__.py extends its path), and
# `pip install` copies it into the wheel (setup.py builds this one target).
#
# Built by default where pybind11 (pybind11-dev) and Python's headers (python3-dev) are found, for
# the Python the project runs (SONOTYPE_PYTHON). Not in the sanitizer or fuzzing builds: a module
# compiled with ASan or libFuzzer's instrumentation cannot load into a plain python.
if(SONOTYPE_SANITIZE OR SONOTYPE_FUZZ)
    return()
endif()

set(PYBIND11_FINDPYTHON ON)
set(Python_EXECUTABLE "${SONOTYPE_PYTHON}")
find_package(Python 3.11 COMPONENTS Interpreter Development.Module)
if(Python_FOUND)
    find_package(pybind11 2.10 CONFIG)
endif()
if(NOT Python_FOUND OR NOT pybind11_FOUND)
    message(STATUS "sonotype.engine (the Python module) is not built: it needs pybind11-dev and python3-dev (scripts/install-deps.sh)")
    return()
endif()

# NO_EXTRAS: no link-time optimisation and no stripping, so that the module runs the very objects
# the CLI runs (the engine's libraries, compiled once), and run() equals run-model bit for bit.
pybind11_add_module(sonotype_python MODULE NO_EXTRAS
    Source/python/ArrayConversion.cpp
    Source/python/EngineModule.cpp
    Source/python/LoadedModel.cpp
    Source/python/ModelCalls.cpp
    Source/python/OptionKeywords.cpp
    Source/python/ResultRows.cpp)
set_target_properties(sonotype_python PROPERTIES
    OUTPUT_NAME engine
    LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/python/sonotype")
target_link_libraries(sonotype_python PRIVATE sonotype_cli sonotype_version sonotype_warnings)
# The static libraries' symbols (JUCE's, the engine's) stay inside the module: nothing else loaded
# into the same python (torch, numpy) can bind to them, nor they to another copy.
target_link_options(sonotype_python PRIVATE "LINKER:--exclude-libs,ALL")
