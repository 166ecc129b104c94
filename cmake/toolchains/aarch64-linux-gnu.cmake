# Cross build for arm64 Linux with Debian's cross compiler (g++-aarch64-linux-gnu), its programs run
# under qemu-user (qemu-aarch64):
#   cmake -S Tests/arm64 -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# (scripts/ci-arm64.sh). Only code that needs no arm64 libraries builds this way: none of Debian's
# arm64 -dev packages (JUCE's, FFTW, libsoxr) is installed, so the engine and its tests, not the
# plugin or the tool.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Static programs: qemu-user runs them without the arm64 loader and libraries in a sysroot.
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
# ctest (and add_custom_command) run the programs through it.
find_program(SONOTYPE_QEMU_AARCH64 qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR "${SONOTYPE_QEMU_AARCH64}")

# Libraries from the arm64 side only; programs (ccache, code generators) from the build machine;
# headers and CMake packages from both: the header-only ones (Eigen, Catch2) are the same for every
# architecture.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
