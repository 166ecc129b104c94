# Everything comes from Debian packages installed by scripts/install-deps.sh.
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(FFTW3 REQUIRED IMPORTED_TARGET fftw3)
pkg_check_modules(SOXR REQUIRED IMPORTED_TARGET soxr)
# Debian's juce-modules-source: the plugin, GUI and CLI layers build on it (engine and tests do not).
find_package(JUCE CONFIG REQUIRED)
if(SONOTYPE_TESTS)
    find_package(Catch2 2 REQUIRED)
endif()
set(SONOTYPE_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with Debian's torch and torchaudio")
