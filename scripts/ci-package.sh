#!/usr/bin/env bash
# CI job (.ci/run): the Debian package made (scripts/package.sh: build, cpack, lintian), installed
# with dpkg -i as a user installs it, run from the installed paths, and removed again, leaving
# nothing of it under /usr. As root, or through sudo (as scripts/lib/apt.sh installs packages).
# The libraries the package Depends on are the ones scripts/install-deps.sh installed for the build.
# Usage: scripts/ci-package.sh
set -euo pipefail
cd "$(dirname "$0")/.."
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)

scripts/package.sh
deb=$(ls build/dist/sonotype_*.deb)
version=$(sed -nE 's/^project\(Sonotype VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)
echo "== $deb (version $version)"
dpkg-deb --info "$deb"

installed() { dpkg-query -W -f='${Status}' sonotype 2> /dev/null | grep -q "install ok installed"; }
if installed; then
    echo "ci-package: removing the sonotype package installed before this run"
    "${sudo_cmd[@]}" dpkg -r sonotype
fi
work=$(mktemp -d)
cleanup()
{
    installed && "${sudo_cmd[@]}" dpkg -r sonotype > /dev/null
    rm -rf "$work"
}
trap cleanup EXIT

echo "== dpkg -i"
"${sudo_cmd[@]}" dpkg -i "$deb"
dpkg -L sonotype | sort > "$work/files"

fail() { echo "ci-package: $*" >&2; exit 1; }
echo "== the installed programs"
[ "$(command -v sonotype)" = /usr/bin/sonotype ] || fail "sonotype on PATH is $(command -v sonotype), not /usr/bin/sonotype"
[ "$(/usr/bin/sonotype --version)" = "sonotype $version" ] || fail "/usr/bin/sonotype --version: $(/usr/bin/sonotype --version)"
[ "$(env -u DISPLAY /usr/bin/sonotype-app --version | head -n 1)" = "sonotype-app $version" ] || fail "sonotype-app --version"
# A file classified from another folder, with nothing of the source or build tree around.
cp Resources/examples/drums.wav "$work/"
label=$(cd "$work" && /usr/bin/sonotype classify --summary drums.wav | sed -n 2p | cut -d, -f2)
[ "$label" = drums ] || fail "classify drums.wav from $work: '$label', not drums"
echo "classify --summary drums.wav (in $work): $label"
man -w sonotype | grep -qx /usr/share/man/man1/sonotype.1.gz || fail "man sonotype: $(man -w sonotype)"

echo "== the plugins, where hosts look"
[ -f "/usr/lib/vst3/Sonotype.vst3/Contents/$(uname -m)-linux/Sonotype.so" ] || fail "no VST3 under /usr/lib/vst3"
[ -f /usr/lib/lv2/Sonotype.lv2/manifest.ttl ] || fail "no /usr/lib/lv2/Sonotype.lv2/manifest.ttl"
if command -v lv2info > /dev/null; then
    # LV2_PATH unset: the host's default search path, /usr/lib/lv2 among them.
    # (Captured first: grep -q stopping early would fail the pipe under pipefail. Its stderr may hold
    # other packages' complaints about their own bundles.)
    info=$(env -u LV2_PATH lv2info https://github.com/sonotype/sonotype 2> "$work/lv2info.err" || true)
    grep -q "Name:.*Sonotype" <<< "$info" || fail "lv2info does not find the installed LV2: $(cat "$work/lv2info.err")"
    echo "lv2info finds https://github.com/sonotype/sonotype in /usr/lib/lv2"
fi

echo "== dpkg -r"
"${sudo_cmd[@]}" dpkg -r sonotype
left=()
while read -r path; do
    # Directories shared with other packages (/usr, /usr/bin, ...) stay; none of ours may.
    if [ -e "$path" ] && { [ ! -d "$path" ] || [[ $path == */Sonotype.* || $path == */sonotype ]]; }; then
        left+=("$path")
    fi
done < "$work/files"
[ ${#left[@]} -eq 0 ] || fail "left after dpkg -r: ${left[*]}"
echo "ci-package: installed, ran, removed; nothing of it left ($(grep -c . "$work/files") paths checked)"
