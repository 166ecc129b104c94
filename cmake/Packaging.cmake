# The Debian package: `cpack -G DEB` (scripts/package.sh runs it, then lintian) packs the tree
# cmake/Install.cmake installs, under /usr. Its Depends are computed from the binaries
# (dpkg-shlibdeps), so they name exactly the libraries linked: FFTW, libsoxr, libmpg123,
# libopusfile, libFLAC, ... docs/INSTALL.md says what lintian reports and why what is left is left.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME sonotype)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}") # the one version (CMakeLists.txt's project())
set(CPACK_PACKAGE_VENDOR "Sonotype")
set(CPACK_PACKAGE_CONTACT "Sonotype maintainers <sonotype@users.noreply.github.com>")
set(CPACK_PACKAGE_HOMEPAGE_URL "${SONOTYPE_WEBSITE}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "live audio classifier: plugin, app and command-line tool")
# The extended description, as `apt show sonotype` prints it (lines under 80 columns).
set(CPACK_PACKAGE_DESCRIPTION
    "Sonotype names what it hears, live or in whole audio files, with neural
network models exported from PyTorch and run by its own engine, with the same
numbers as PyTorch. A producer teaches it classes of their own from a few
seconds of examples (a drum kit's sounds, say), and it turns each hit into a
MIDI note.

This package holds the VST3 and LV2 plugin (in /usr/lib/vst3 and /usr/lib/lv2,
where hosts look), the standalone app (sonotype-app, in the desktop's menu) and
the command-line tool sonotype, which classifies files and folders, learns
classes, and runs and inspects model files.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES TRUE)
set(CPACK_OUTPUT_FILE_PREFIX "${CMAKE_BINARY_DIR}/dist")
# Debian's own name for the file: sonotype_0.1.0_amd64.deb.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION sound)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The control files' and directories' modes as Debian's tools make them (lintian checks them).
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
