#!/usr/bin/env bash
# The built LV2 in real LV2 hosts from Debian: lilv's lv2ls/lv2info find it under its URI, and jalv
# runs it as a JACK client on a dummy (soundcard-free) JACK server, headless, with its audio ports
# and MIDI output. Usage: lv2_jalv_test.sh <path of the built Sonotype.lv2> <plugin URI>
set -euo pipefail
export LV2_PATH="$(dirname "$1")"
uri="$2"
work="$(mktemp -d)"
export JACK_DEFAULT_SERVER="sonotype-test-$$"
cleanup() {
    [ -n "${jackd_pid:-}" ] && kill "$jackd_pid" 2>/dev/null && wait "$jackd_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$work"/*; do echo "--- $f"; cat "$f"; done; exit 1; }

lv2ls > "$work/lv2ls.txt"
grep -qx "$uri" "$work/lv2ls.txt" || fail "lv2ls does not list $uri"
lv2info "$uri" > "$work/lv2info.txt" || fail "lv2info cannot read $uri"
grep -q "Name: *Sonotype" "$work/lv2info.txt" || fail "lv2info: wrong name"
grep -q "Binary: *file://.*Sonotype.lv2/libSonotype.so" "$work/lv2info.txt" || fail "lv2info: no binary"
echo "lv2ls/lv2info: $uri found"

jackd --no-realtime -d dummy -r 48000 -p 1024 > "$work/jackd.log" 2>&1 &
jackd_pid=$!
for _ in $(seq 50); do jack_lsp > /dev/null 2>&1 && break; sleep 0.1; done
jack_lsp > /dev/null 2>&1 || fail "the dummy JACK server did not start"

# jalv reads commands on stdin: keep it running for a few seconds, list its ports meanwhile, ask
# for its controls, then end stdin (jalv exits cleanly on EOF).
{
    sleep 3
    jack_lsp -t > "$work/ports.txt" 2>&1
    echo controls
    sleep 1
} | timeout 30 jalv -n sonotype-jalv "$uri" > "$work/jalv.txt" 2>&1 || fail "jalv exited with an error ($?)"

grep -q "^Plugin: *$uri" "$work/jalv.txt" || fail "jalv did not load the plugin"
grep -q "sonotype_threshold" "$work/jalv.txt" || fail "jalv did not list the plugin's parameters"
for port in audio_in_1 audio_in_2 audio_out_1 audio_out_2; do
    grep -q "^sonotype-jalv:$port$" "$work/ports.txt" || fail "no JACK port $port"
done
grep -A1 "^sonotype-jalv:out$" "$work/ports.txt" | grep -q "midi" || fail "no MIDI output port"
echo "jalv: loaded $uri, ran it on a dummy JACK server at 48 kHz, ports and MIDI out present"
