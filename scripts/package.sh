#!/usr/bin/env bash
# Builds Sonotype and its Debian package: scripts/install-deps.sh (what is missing), scripts/build.sh,
# then `cpack -G DEB` into build/dist/ (cmake/Packaging.cmake), then lintian on the package. Prints
# lintian's findings (info ones too) and fails on an error or warning; docs/INSTALL.md explains each
# finding left.
# Usage: scripts/package.sh [extra cmake -D options for scripts/build.sh...]
#        (the package's path is the last line printed)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh "$@"
rm -rf build/dist
(cd build && cpack -G DEB)
debs=(build/dist/sonotype_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
    echo "package: expected one build/dist/sonotype_*.deb, found: ${debs[*]}" >&2
    exit 1
fi
deb=${debs[0]}
echo "== lintian $deb"
# --info: the informational tags too (not failures); --fail-on: an error or a warning fails.
lintian --info --fail-on error,warning "$deb"
echo "== lintian: no error, no warning"
echo "$deb"
