# Everything comes from Debian packages installed by scripts/install-deps.sh.
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(Threads REQUIRED)
# JSON the command line writes (classify --format json)
find_package(nlohmann_json 3 CONFIG REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(FFTW3 REQUIRED IMPORTED_TARGET fftw3)
pkg_check_modules(SOXR REQUIRED IMPORTED_TARGET soxr)
# MP3 files in (Source/formats/Mp3AudioFormat.h says why libmpg123)
pkg_check_modules(MPG123 REQUIRED IMPORTED_TARGET libmpg123)
# Ogg Opus files in (Source/formats/OpusAudioFormat.h says why libopusfile)
pkg_check_modules(OPUSFILE REQUIRED IMPORTED_TARGET opusfile)
# CLI11 (libcli11-dev): the `sonotype` tool's command line. Header-only; Debian ships its CMake package.
find_package(CLI11 2.1 REQUIRED CONFIG)
# JUCE: the plugin, GUI and CLI layers build on it (the engine does not). On Linux, Debian's
# juce-modules-source; on macOS and Windows (no Debian package there) a JUCE 7 checkout:
#   cmake -DSONOTYPE_JUCE_DIR=/path/to/JUCE ...
set(SONOTYPE_JUCE_DIR "" CACHE PATH "A JUCE 7 source checkout to build with instead of the installed JUCE package")
if(SONOTYPE_JUCE_DIR)
    add_subdirectory("${SONOTYPE_JUCE_DIR}" "${CMAKE_BINARY_DIR}/JUCE" EXCLUDE_FROM_ALL)
else()
    find_package(JUCE CONFIG REQUIRED)
endif()
if(SONOTYPE_TESTS)
    find_package(Catch2 2 REQUIRED)
endif()
set(SONOTYPE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with Debian's torch and torchaudio")
